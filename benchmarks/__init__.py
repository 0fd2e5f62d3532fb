"""llmkit's benchmark harness: not part of the package, not part of the test suite.

Run everything with ``python benchmarks/run.py`` (see ``benchmarks/README.md``).

- :mod:`benchmarks.streams`: deterministic stream generators (the bytes a provider would send);
- :mod:`benchmarks.server`: the loopback HTTP server that serves them;
- :mod:`benchmarks.contestants`: one process per timed run (floor, llmkit, the vendor SDKs);
- :mod:`benchmarks.concurrency`: 1,000 concurrent slow streams in one process;
- :mod:`benchmarks.report`: tables, plot and ``docs/benchmarks.md``;
- :mod:`benchmarks.run`: the orchestration and the command line.
"""
