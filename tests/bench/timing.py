"""What the process-level benchmarks share: timing one run of a command."""
import collections, os, subprocess, sys, time

Run = collections.namedtuple("Run", "wall cpu rss_mib")  # seconds, user+sys seconds, peak MiB


def run_once(cmd):
    """Runs cmd once (stdout discarded); exits with its stderr if it fails."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} failed ({code}): {err[:2000]}")
    return Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0)  # ru_maxrss is in KiB on Linux
