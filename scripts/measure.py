"""Runs a command and prints, to stderr, its wall and CPU time and the peak memory of its largest
process (scripts/test.sh's steps: CI must stay inside its time limit, and a test process inside
16 GB). Usage: python3 scripts/measure.py LABEL COMMAND...; exits with the command's status."""
import resource
import subprocess
import sys
import time

label, command = sys.argv[1], sys.argv[2:]
start = time.monotonic()
status = subprocess.call(command)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
# ru_maxrss (KiB on Linux) of the children is that of the largest single descendant waited for.
print(
    f"{label}: {' '.join(command)} took {wall:.0f} s (CPU {usage.ru_utime + usage.ru_stime:.0f} s, "
    f"peak {usage.ru_maxrss / 2**20:.1f} GiB in one process)",
    file=sys.stderr,
)
sys.exit(status if status >= 0 else 128 - status)
