"""What docs/deploy.md has an operator install works: the systemd units are valid, and the
smoke test run after each upgrade passes on a healthy site and names what is wrong."""

import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from operations.models import Heartbeat
from operations.tasks import heartbeat

DEPLOY = Path(settings.BASE_DIR) / "deploy"


def test_the_systemd_units_are_valid(tmp_path):
    """systemd's own check, with the paths of this checkout in place of /srv/parsnip."""
    checkout = str(settings.BASE_DIR)
    for unit in (DEPLOY / "systemd").iterdir():
        text = (
            unit.read_text()
            .replace("/srv/parsnip", checkout)
            .replace("/etc/parsnip/parsnip.env", str(DEPLOY / "parsnip.env.example"))
            .replace("User=parsnip", "User=root").replace("Group=parsnip", "Group=root")
        )
        name = unit.name.replace("@.service", "@1.service")
        (tmp_path / name).write_text(text)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert {"parsnip-web.service", "parsnip-worker@1.service", "parsnip-backup.timer"} <= set(names)
    checked = subprocess.run(
        [shutil.which("systemd-analyze") or "systemd-analyze", "verify", *names],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert checked.returncode == 0, checked.stderr
    assert "Unknown" not in checked.stderr, checked.stderr


@pytest.mark.django_db(transaction=True)
def test_the_smoke_test_passes_on_a_healthy_site(live_server):
    call_command("import_content", str(Path(settings.BASE_DIR) / "content"), verbosity=0)
    heartbeat()
    out = StringIO()
    call_command("smoke_test", live_server.url, stdout=out)
    said = out.getvalue()
    assert "✓ migrations: all applied" in said
    assert "✓ health:" in said and "Sandbox" in said
    assert "/learn/" in said and "stylesheet served" in said


@pytest.mark.django_db(transaction=True)
def test_the_smoke_test_names_what_is_down(live_server):
    call_command("import_content", str(Path(settings.BASE_DIR) / "content"), verbosity=0)
    heartbeat()
    Heartbeat.objects.update(sandbox_ok=False, sandbox_detail="bwrap: No permissions")
    out = StringIO()
    with pytest.raises(CommandError, match="1 check\\(s\\) failed: health"):
        call_command("smoke_test", live_server.url, stdout=out)
    assert "✗ health" in out.getvalue() and "bwrap: No permissions" in out.getvalue()
