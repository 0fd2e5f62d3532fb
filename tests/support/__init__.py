"""What the tests share, none of it a test: pytest collects nothing here.

- ``bodies``: the request body llmkit sends, checked against an official SDK's request type.
- ``chunking``: how a network may cut a response body (the oracle suites' cut points).
- ``clients``: running llmkit against the fake provider, sync and async (``run``, ``complete``).
- ``contract``: the event contract every wire keeps.
- ``corpus``: the recorded-exchange loader, its own SSE reader and ``rechunk``.
- ``eventstream``: AWS event-stream bytes written from the framing's specification.
- ``fuzzing``: Hypothesis budgets for the fuzz suites.
- ``helpers``: OpenAI Chat SSE bytes, replay re-chunked, JSON comparisons.
- ``loopback``: a scripted HTTP/1.1 server on 127.0.0.1.
- ``oracle``: what the SDK-oracle suites share (settings, llmkit's reading of a body).
- ``sdk``: the official SDKs' request types as oracles.
- ``streams``: what every wire's realistic stream generator shares (choice sources, sizes,
  vocabularies, JSON values); each wire's generator stays in ``tests/wire/<wire>/streams.py``.
- ``ui_cases``, ``ui_node``: the streaming-UI cases and running them under Node.js.
"""
