"""``python -m llmkit``: the command line (see :mod:`llmkit._cli`)."""

from __future__ import annotations

from ._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
