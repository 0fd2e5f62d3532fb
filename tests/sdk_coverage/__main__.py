"""``python -m tests.sdk_coverage``: the per-wire table, then every silent probe (in
``silent.txt``'s format) and every crash."""

from __future__ import annotations

from .report import collect, silent_lines, table

outcomes = collect()
print(table(outcomes))
print()
for line in silent_lines(outcomes, with_crashes=True):
    print(line)
