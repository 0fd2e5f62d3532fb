"""Small measuring helpers shared by the contestant and concurrency processes."""

from __future__ import annotations

import os
import resource
import sys


def rss_bytes() -> int:
    """Resident memory of this process now (psutil when installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as f:  # Linux without psutil
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return int(psutil.Process().memory_info().rss)


def peak_rss_bytes() -> int:
    """The largest resident memory this process has had.

    On Linux this is ``VmHWM``: ``ru_maxrss`` would be wrong there, because it survives
    ``exec`` and so reports the parent's peak (the harness holds every rendered stream) for a
    child that never came near it.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # macOS: bytes; others: KiB
