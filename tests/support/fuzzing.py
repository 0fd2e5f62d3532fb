"""Hypothesis budgets for the fuzz suites: examples per test (see ``docs/fuzzing.md``)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings


def budget(ci: int) -> int:
    """Examples for one test: ``LLMKIT_FUZZ_EXAMPLES`` if set, else ``ci`` scaled by the active
    profile's ``max_examples`` (100 under "ci" → ``ci``; 2000 under "long" → 20 x ``ci``)."""
    forced = os.environ.get("LLMKIT_FUZZ_EXAMPLES")
    if forced:
        return int(forced)
    return max(ci, ci * settings.default.max_examples // 100)


SHRINK = os.environ.get(
    "LLMKIT_FUZZ_SHRINK", "0" if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci" else "1"
) not in ("", "0")
"""Shrink failing examples? Not under the "ci" profile by default: with a failure present,
shrinking these rich inputs takes minutes (past pytest's 120 s timeout, which would lose the
report); the regression tests at the end of each file hold minimal inputs for known bugs.
``LLMKIT_FUZZ_SHRINK=1`` turns it on; the long profile has it on."""


def fuzz(ci: int, cap: int | None = None) -> settings:
    """Settings for one fuzz test: :func:`budget` examples (at most ``cap``), no deadline, one
    failure reported (shrinking several distinct bugs at once multiplies the time)."""
    return settings(
        max_examples=min(budget(ci), cap or budget(ci)),
        deadline=None,
        report_multiple_bugs=False,
        phases=[p for p in Phase if SHRINK or p is not Phase.shrink],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )
