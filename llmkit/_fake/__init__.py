"""The machinery behind :mod:`llmkit.testing`: scripted replies, per-wire encoders, the server.

- ``script``: the wire-neutral dataclasses a test scripts (re-exported by ``llmkit.testing``);
- ``encoding``: the encoder contract and the wire-neutral rendering of a scripted item;
- ``openai_chat``: the OpenAI Chat Completions encoder (one module per wire API);
- ``server``: the threaded HTTP/1.1 server that records, routes and paces.
"""
