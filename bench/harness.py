"""What the benchmarks share. Import it first in every bench script.

Run as `python bench/<name>.py`, bench/ heads sys.path, where bench/queue.py would shadow
the standard library's `queue`: importing this module puts the project there instead.
It also gives the throw-away database, the trivial baseline view and the statistics.
"""

import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != HERE]
# Settings need a key unless DEBUG is on; benchmarks that serve pages in this process turn
# DEBUG off themselves (throwaway_django), and bench/served.py serves as `make run` does.
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("LOG_LEVEL", "WARNING")  # no log line per login in the figures
os.environ.setdefault("SECRET_KEY", "parsnip-benchmarks-only-key-never-used-anywhere-else")
# WhiteNoise warns that collectstatic has not run; benchmarks serve no static files.
warnings.filterwarnings("ignore", message="No directory at")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


def trivial(request):
    """The baseline: the cheapest page Django can serve, measured in the same run."""
    from django.http import HttpResponse

    return HttpResponse("ok")


@contextmanager
def throwaway_django() -> Iterator[None]:
    """Django set up on a migrated SQLite database in a temporary directory (never
    db.sqlite3), with /trivial/ served beside the project's URLs and DEBUG off so no page
    pays for query logging. The static files storage chosen at start-up is kept."""
    with tempfile.TemporaryDirectory(prefix="parsnip-bench-") as workdir:
        os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.test.utils import override_settings
        from django.urls import include, path

        sys.modules[__name__].urlpatterns = [
            path("trivial/", trivial),
            path("", include(settings.ROOT_URLCONF)),
        ]
        call_command("migrate", verbosity=0, interactive=False)
        with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
            yield


def median_ms(client, url: str, iterations: int, *, warmup: int = 5) -> float:
    """Median server time of GET `url` through Django's test client, in milliseconds."""
    for _ in range(min(warmup, iterations)):  # warm caches (templates, Markdown, connections)
        assert client.get(url).status_code == 200
    timings = []
    for _ in range(iterations):
        start = time.perf_counter()
        response = client.get(url)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(timings) * 1000


def machine_cpu_seconds() -> float:
    """The whole machine's CPU time so far (/proc/stat, not idle nor iowait)."""
    with open("/proc/stat") as f:
        fields = [int(n) for n in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def paired(first, second, runs: int) -> tuple[list[float], list[float]]:
    """Wall ms of each of ``runs`` calls of ``first`` and of ``second``, called in turn, so
    that both see the same machine (on a shared VM its speed drifts within seconds)."""
    a, b = [], []
    for _ in range(runs):
        started = time.perf_counter()
        first()
        middle = time.perf_counter()
        second()
        a.append((middle - started) * 1000)
        b.append((time.perf_counter() - middle) * 1000)
    return a, b


def per_op(once, runs: int) -> tuple[float, float]:
    """(wall ms, machine CPU ms) per call, over ``runs`` sequential calls."""
    cpu, started = machine_cpu_seconds(), time.perf_counter()
    for _ in range(runs):
        once()
    wall = time.perf_counter() - started
    return wall / runs * 1000, (machine_cpu_seconds() - cpu) / runs * 1000


def wall_and_cpu_ms(once, iterations: int, warmup: int = 2) -> tuple[list[float], list[float]]:
    """Wall and this process's CPU milliseconds of each call: on a busy machine the CPU
    time moves far less than the wall time."""
    for _ in range(warmup):
        once()
    wall, cpu = [], []
    for _ in range(iterations):
        started, started_cpu = time.perf_counter(), time.process_time()
        once()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu
