"""How long the seed lesson page takes on the server, against a trivial Django view.

    .venv/bin/python bench/pages.py [--iterations N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3),
imports the sample course from content/, then times both pages through Django's test
Client in the same process and prints the medians and their ratio. The ratio is what
to compare between machines and commits; the milliseconds depend on the machine.
"""

import sys
from pathlib import Path

# Run as `python bench/pages.py`, bench/ comes first on the path, where a sibling
# script's name (bench/queue.py) would shadow the standard library module.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

ROOT = HERE.parent
SEED_URL = "/learn/local-models/optimising-speed-and-memory/"


def trivial(request):
    from django.http import HttpResponse

    return HttpResponse("ok")


def median_ms(client, url: str, iterations: int) -> float:
    for _ in range(min(20, iterations)):  # warm caches (templates, Markdown, Pygments)
        assert client.get(url).status_code == 200
    timings = []
    for _ in range(iterations):
        start = time.perf_counter()
        response = client.get(url)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(timings) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    workdir = tempfile.TemporaryDirectory(prefix="parsnip-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

    import django

    django.setup()

    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings
    from django.urls import include, path

    module = sys.modules[__name__]
    module.urlpatterns = [path("trivial/", trivial), path("", include(settings.ROOT_URLCONF))]

    call_command("migrate", verbosity=0, interactive=False)
    call_command("import_content", str(ROOT / "content"), verbosity=0)

    # DEBUG off so neither page pays for query logging; the static files storage
    # chosen at start-up is kept, so no manifest is needed.
    with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
        client = Client()
        trivial_ms = median_ms(client, "/trivial/", args.iterations)
        lesson_ms = median_ms(client, SEED_URL, args.iterations)

    print(f"trivial view        median {trivial_ms:8.3f} ms")
    print(f"seed lesson page    median {lesson_ms:8.3f} ms")
    print(f"ratio lesson/trivial       {lesson_ms / trivial_ms:8.1f}x  ({args.iterations} requests each)")
    workdir.cleanup()


if __name__ == "__main__":
    main()
