"""llmkit's pytest plugin (``fake_provider``), exercised the way users meet it: through its
``pytest11`` entry point, in test sessions run by pytest's own ``pytester``."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

STRICT = ("-p", "no:cacheprovider", "-W", "error", "--strict-markers")


def test_the_fixture_is_a_started_fake_scripted_in_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import llmkit
        from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

        def test_scripted(fake_provider):
            assert isinstance(fake_provider, FakeProvider)
            fake_provider.script(
                FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})]),
                FakeReply("It is sunny."),
            )
            context = llmkit.Context(messages=[llmkit.user("Weather?")])
            model = fake_provider.model()
            first = llmkit.complete(model, context, api_key=fake_provider.api_key)
            assert first.tool_calls[0].arguments == {"city": "Paris"}
            context.messages += [first, llmkit.tool_result(first.tool_calls[0], "sunny")]
            second = llmkit.complete(model, context, api_key=fake_provider.api_key)
            assert second.text == "It is sunny."
            assert fake_provider.requests[1].body["messages"][-1]["role"] == "tool"

        def test_each_test_gets_its_own(fake_provider):
            assert fake_provider.requests == []
            assert fake_provider.api == "openai-chat"
        """
    )
    result = pytester.runpytest(*STRICT)
    result.assert_outcomes(passed=2, warnings=0)


def test_the_marker_takes_fake_provider_arguments(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        import llmkit
        from llmkit.testing import FakeReply

        @pytest.mark.fake_provider([FakeReply("Bonjour")], api="anthropic-messages")
        def test_claude(fake_provider):
            assert fake_provider.base_url.endswith("/v1")
            model = fake_provider.model("claude-x")
            context = llmkit.Context(messages=[llmkit.user("Salut")])
            reply = llmkit.complete(model, context, api_key=fake_provider.api_key)
            assert (reply.api, reply.text) == ("anthropic-messages", "Bonjour")
            assert fake_provider.requests[0].path == "/v1/messages"

        @pytest.mark.fake_provider(emulate="ollama", require_key=False)
        def test_emulated(fake_provider):
            assert fake_provider.emulate == "ollama"
        """
    )
    result = pytester.runpytest(*STRICT)
    result.assert_outcomes(passed=2, warnings=0)


def test_indirect_parametrization_wins_over_the_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fake_provider(api="gemini", api_key="from-marker")
        @pytest.mark.parametrize(
            "fake_provider", [{}, {"api": "openai-responses"}], indirect=True
        )
        def test_apis(fake_provider, request):
            assert fake_provider.api_key == "from-marker"
            expected = {"fake_provider0": "gemini", "fake_provider1": "openai-responses"}
            assert fake_provider.api == expected[request.node.callspec.id]

        @pytest.mark.parametrize("fake_provider", ["gemini"], indirect=True)
        def test_not_a_dict(fake_provider):
            pass
        """
    )
    result = pytester.runpytest(*STRICT)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*takes dicts of FakeProvider arguments, not str*"])


def test_the_fake_is_closed_after_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import socket
        from urllib.parse import urlsplit

        seen = []

        def test_uses_it(fake_provider):
            seen.append(urlsplit(fake_provider.base_url))
            socket.create_connection((seen[0].hostname, seen[0].port), timeout=2).close()

        def test_it_is_gone():
            try:
                socket.create_connection((seen[0].hostname, seen[0].port), timeout=2).close()
            except ConnectionRefusedError:
                return
            raise AssertionError("the fake provider still listens")
        """
    )
    result = pytester.runpytest(*STRICT)
    result.assert_outcomes(passed=2, warnings=0)


def test_an_exhausted_script_is_the_fakes_own_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        import llmkit

        def test_nothing_scripted(fake_provider):
            context = llmkit.Context(messages=[llmkit.user("hi")])
            with pytest.raises(llmkit.ServerError, match="no reply left for request #1"):
                llmkit.complete(
                    fake_provider.model(), context, api_key=fake_provider.api_key, max_retries=0
                )

        def test_script_refuses_other_values(fake_provider):
            with pytest.raises(TypeError, match="FakeReply or FakeError, not str"):
                fake_provider.script("hello")
        """
    )
    result = pytester.runpytest(*STRICT)
    result.assert_outcomes(passed=2, warnings=0)


def test_without_autoload_it_is_enabled_with_dash_p(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile("def test_it(fake_provider):\n    assert fake_provider.base_url\n")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.runpytest(*STRICT).assert_outcomes(errors=1)  # fixture 'fake_provider' not found
    pytester.runpytest(*STRICT, "-p", "llmkit").assert_outcomes(passed=1)


def test_loading_the_plugin_imports_no_http_library() -> None:
    # So that a conftest.py can still make `import httpx` resolve to httpx2 (docs/httpx2.md).
    code = (
        "import sys, llmkit._pytest_plugin; print(sorted({'httpx', 'httpx2'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
