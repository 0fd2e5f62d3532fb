"""benchmarks/structured_output.py runs, and its contestants agree on the value they read."""

from __future__ import annotations

from benchmarks import structured_output


def test_the_structured_output_benchmark_runs_and_checks_its_results() -> None:
    results = structured_output.main(["--n", "300", "--reps", "1"])
    row = results[300]
    assert set(row) == set(structured_output.CONTESTANTS)
    assert all(value is not None and value > 0 for value in row.values())
