"""Run tests while every core is busy, to shake out tests that depend on timing.

Starts `stress-ng --cpu N` (N = the number of cores unless told), runs pytest with the given
arguments (or any command with --shell) once or --runs times, prints each run's outcome and
a tally, and always stops stress-ng: at the end, on a failure, on Ctrl-C or on SIGTERM (and,
should this script be killed outright, stress-ng is told by the kernel and stops too).
Installs Debian's stress-ng with apt-get when it is missing.

    .venv/bin/python bench/suite_under_load.py tests/tutor/test_run_notices.py
    .venv/bin/python bench/suite_under_load.py --runs 5 -q tests/tutor/test_run_notices.py
    .venv/bin/python bench/suite_under_load.py --shell "make test"

Exit status: 0 when every run passed, else the first failing run's.
"""

import argparse
import ctypes
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1
SUMMARY = re.compile(r"\b\d+ (passed|failed|errors?|skipped)\b|no tests ran")


def ensure_stress_ng() -> str:
    found = shutil.which("stress-ng")
    if found:
        return found
    print("stress-ng is missing: installing Debian's package", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True)
    subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "stress-ng"], check=True,
                   env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    return shutil.which("stress-ng") or sys.exit("stress-ng did not install")


def die_with_parent() -> None:
    """In the child: be sent SIGTERM when this script ends, however it ends."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_load(cpus: int) -> subprocess.Popen:
    stress = subprocess.Popen(
        [ensure_stress_ng(), "--cpu", str(cpus), "--timeout", "4h", "--quiet"],
        start_new_session=True,  # Ctrl-C reaches only this script, which stops it once
        preexec_fn=die_with_parent,
    )
    time.sleep(1)  # its workers are spinning before the first test starts
    if stress.poll() is not None:
        sys.exit(f"stress-ng stopped at once (exit {stress.returncode})")
    return stress


def stop_load(stress: subprocess.Popen) -> None:
    if stress.poll() is None:
        os.killpg(stress.pid, signal.SIGTERM)
        try:
            stress.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(stress.pid, signal.SIGKILL)
            stress.wait()
    print(f"stress-ng stopped (exit {stress.returncode})", flush=True)


def run_once(command: list[str] | str) -> tuple[int, str, float]:
    """Runs the command, echoing its output; returns its exit code, pytest's summary line
    (the last one seen) and the wall time."""
    started = time.monotonic()
    child = subprocess.Popen(command, cwd=ROOT, shell=isinstance(command, str), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1)
    summary = ""
    try:
        for line in child.stdout:
            sys.stdout.write(line)
            if SUMMARY.search(line):
                summary = line.strip().strip("=").strip()
        child.wait()
    finally:
        if child.poll() is None:  # interrupted: stop the tests too
            child.terminate()
            try:
                child.wait(30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return child.returncode, summary, time.monotonic() - started


def interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="how many times (default 1)")
    parser.add_argument("--cpu", type=int, default=os.cpu_count(), help="stress-ng workers")
    parser.add_argument("--shell", help="a shell command to run instead of pytest")
    options, pytest_args = parser.parse_known_args()
    if options.shell:
        command: list[str] | str = options.shell
    else:
        command = [sys.executable, "-m", "pytest", *pytest_args]
    shown = command if isinstance(command, str) else shlex.join(command)

    # SIGTERM ends this script as Ctrl-C does, through the `finally` that stops the load.
    signal.signal(signal.SIGTERM, interrupt)
    outcomes: list[tuple[int, str, float]] = []
    stress = start_load(options.cpu)
    print(f"under stress-ng --cpu {options.cpu}: {shown}", flush=True)
    try:
        for number in range(1, options.runs + 1):
            code, summary, seconds = run_once(command)
            outcomes.append((code, summary, seconds))
            print(f"== run {number}/{options.runs}: exit {code}, {summary or 'no summary'}, "
                  f"{seconds:.0f} s", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        stop_load(stress)

    failed = [code for code, _, _ in outcomes if code != 0]
    print(f"== {len(outcomes)} run(s) under load of: {shown}")
    for number, (code, summary, seconds) in enumerate(outcomes, 1):
        print(f"   run {number}: {'passed' if code == 0 else 'FAILED'} (exit {code}) "
              f"{summary} in {seconds:.0f} s")
    if len(outcomes) < options.runs:
        return 130
    return failed[0] if failed else 0


if __name__ == "__main__":
    sys.exit(main())
