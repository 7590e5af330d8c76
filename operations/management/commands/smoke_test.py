"""After each upgrade: is the site up and whole? Exit 0 when every check passes."""

import json
import re
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


class Command(BaseCommand):
    help = (
        "Checks a running Parsnip after an upgrade: migrations all applied, /health/ all up "
        "(database, cache, Redis, a worker, its sandbox), the lessons page, a lesson and the "
        "log-in page served, and their stylesheet. Exit 1 naming what failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("url", help="the site's address, e.g. https://parsnip.example.org")
        parser.add_argument("--timeout", type=float, default=15)

    def handle(self, *args, url, timeout, **options):
        self.base, self.timeout = url.rstrip("/"), timeout
        failures = []
        for name, check in (
            ("migrations", self.migrations),
            ("health", self.health),
            ("pages", self.pages),
        ):
            try:
                said = check()
            except Exception as error:  # noqa: BLE001 - each failure is reported, then exit 1
                failures.append(f"{name}: {error}")
                self.stdout.write(self.style.ERROR(f"✗ {name}: {error}"))
            else:
                self.stdout.write(self.style.SUCCESS(f"✓ {name}: {said}"))
        if failures:
            raise CommandError(f"{len(failures)} check(s) failed: " + "; ".join(failures))

    def migrations(self) -> str:
        connection = connections[DEFAULT_DB_ALIAS]
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if plan:
            names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in plan[:5])
            raise RuntimeError(f"{len(plan)} not applied (run manage.py migrate): {names}")
        return "all applied"

    def get(self, path: str, accept: str = "text/html") -> tuple[int, str]:
        request = urllib.request.Request(self.base + path, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace")

    def health(self) -> str:
        status, body = self.get("/health/?format=json", "application/json")
        report = json.loads(body)
        down = {part: said for part, said in report.items() if said != "OK"}
        if status != 200 or down:
            raise RuntimeError(f"HTTP {status}, down: {down}")
        return ", ".join(part.split("(")[0] for part in report) + " up"

    def pages(self) -> str:
        status, home = self.get("/")
        if status != 200:
            raise RuntimeError(f"the lessons page answered {status}")
        lesson = re.search(r'href="(/learn/[\w-]+/[\w-]+/)"', home)
        checked = ["/"]
        if not lesson:
            raise RuntimeError("the lessons page links no lesson (import_content?)")
        for path in (lesson.group(1), "/accounts/login/"):
            status, _ = self.get(path)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}")
            checked.append(path)
        stylesheet = re.search(r'<link rel="stylesheet" href="([^"]+)"', home)
        if not stylesheet:
            raise RuntimeError("the lessons page links no stylesheet")
        status, _ = self.get(stylesheet.group(1), "text/css")
        if status != 200:
            raise RuntimeError(f"the stylesheet {stylesheet.group(1)} answered {status}")
        return f"{', '.join(checked)} and the stylesheet served"
