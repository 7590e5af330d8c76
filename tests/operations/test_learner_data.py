"""An admin exports one learner's whole record as a readable archive, and erases it: the
account keeps no identity, what they typed on the way is gone, their answers stay
anonymous for the class's statistics, and the admin's log says who did it."""

import io
import json
import zipfile

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.urls import reverse

from operations import learner_data
from tests.factories import make_admin
from tests.operations.population import populate
from tutor.practice.snippet.models import Prediction
from tutor.trail.models import Trail

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/auth/user/"


@pytest.fixture
def school():
    return populate(students=3)


def run_action(client, action, users, *, follow=False, **extra):
    return client.post(
        CHANGELIST, {"action": action, "_selected_action": [u.pk for u in users], **extra},
        follow=follow,
    )


def files_of(response) -> dict[str, list]:
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)
                                    if response.streaming else response.content)) as archive:
        return {
            name: (archive.read(name).decode() if name.endswith(".txt")
                   else json.loads(archive.read(name)))
            for name in archive.namelist()
        }


def test_an_admin_exports_one_learners_whole_record(client, school):
    learner, other = school["learners"][:2]
    client.force_login(make_admin())

    response = run_action(client, "export_data", [learner])

    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    files = files_of(response)
    assert "README.txt" in files and learner.username in files["README.txt"]
    account = files["auth.user.json"]
    assert [row["fields"]["username"] for row in account] == [learner.username]
    assert "password" not in account[0]["fields"]
    for kind in ("tutor.prediction.json", "tutor.run.json", "tutor.submission.json",
                 "tutor.trail.json", "tutor.trailchunk.json", "tutor.lessonprogress.json",
                 "tutor.orderingattempt.json", "tutor.membership.json"):
        assert files[kind], kind
    # Nothing of another learner's.
    everything = json.dumps(files)
    assert other.username not in everything
    assert all(row["fields"]["user"] == learner.pk for row in files["tutor.prediction.json"])
    entry = LogEntry.objects.get(object_id=str(learner.pk))
    assert "Exported" in entry.get_change_message()


def test_the_grade_on_its_way_to_the_lms_is_in_the_export(client, school):
    learner = school["learners"][0]  # the population's one grade is theirs
    client.force_login(make_admin())
    files = files_of(run_action(client, "export_data", [learner]))
    assert files["lti.scoresync.json"]


def test_export_takes_one_account_at_a_time(client, school):
    client.force_login(make_admin())
    response = run_action(client, "export_data", school["learners"][:2], follow=True)
    assert "Choose one account to export at a time." in response.content.decode()


def test_erasing_asks_first_then_keeps_answers_without_a_name(client, school):
    learner, other = school["learners"][:2]
    learner_client = type(client)()
    learner_client.force_login(learner)
    predictions = Prediction.objects.filter(user=learner).count()
    client.force_login(make_admin())

    asked = run_action(client, "erase_data", [learner])
    assert asked.status_code == 200
    assert "Erase these accounts" in asked.content.decode()
    assert User.objects.get(pk=learner.pk).username == learner.username  # nothing yet

    run_action(client, "erase_data", [learner], confirmed="yes")

    erased = User.objects.get(pk=learner.pk)
    assert erased.username == f"erased-{learner.pk}"
    assert (erased.first_name, erased.email, erased.is_active) == ("", "", False)
    assert not erased.has_usable_password()
    assert not Trail.objects.filter(user=learner).exists()
    assert Prediction.objects.filter(user=learner).count() == predictions  # statistics honest
    assert Trail.objects.filter(user=other).exists()  # nobody else's
    entry = LogEntry.objects.filter(object_id=str(learner.pk)).latest("action_time")
    assert "Erased the data of " + learner.username in entry.get_change_message()
    # Signed out everywhere: their next page asks them to log in.
    assert learner_client.get(reverse("tutor:my_progress")).status_code == 302


def test_only_an_admin_can_export_or_erase(client, school):
    learner = school["learners"][0]
    client.force_login(school["cohort"].teacher)
    response = run_action(client, "erase_data", [learner], confirmed="yes")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert User.objects.get(pk=learner.pk).username == learner.username


def test_an_admin_cannot_erase_themselves(client, school):
    admin = make_admin()
    client.force_login(admin)
    response = run_action(client, "erase_data", [admin], confirmed="yes", follow=True)
    assert "You cannot erase your own account." in response.content.decode()
    assert User.objects.get(pk=admin.pk).username == admin.username


def test_rows_of_finds_rows_that_outlive_the_account():
    """An LMS identity (SET_NULL to the account) is the learner's data too."""
    from tests.factories import make_cohort, make_lesson, make_score_sync, make_user

    learner = make_user()
    make_score_sync(make_cohort(students=[learner]), learner, make_lesson())
    labels = {model._meta.label for model in learner_data.rows_of(learner)}
    assert {"lti_tool.LtiUser", "lti.ScoreSync", "auth.User"} <= labels
