"""Prints the per-wire table of the SDK coverage probes after a run that made them."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from .test_sdk_coverage import summary

    text = summary()
    if text:
        terminalreporter.section("SDK coverage (streamed / whole)")
        terminalreporter.write_line(text)
