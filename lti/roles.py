"""What an LMS role gives in Parsnip. One reading for a launch's roles claim and a roster
entry's roles (NRPS uses the same vocabulary), so the two never disagree.

Only a *context* role of the LMS course (LIS v2 `membership#…`, or its short name) speaks
about that course. Institution roles (`institution/person#Instructor`: anyone who teaches
any course at the school) and system roles say nothing about this course, so they give no
right in its class.

- Teaching the course's class: `membership#Instructor` (or `Instructor`) and the Instructor
  sub-roles (`membership/Instructor#TeachingAssistant`, `#Grader`, `#Lecturer`, ...): the LMS
  gave them the course's teaching, grades included, so its class's pages and picker.
- Not teaching: `ContentDeveloper` (builds the course's material, does not teach its
  learners: the class's pages show their work), `Mentor` (follows some learners, not the
  class), `Administrator` (of the course's set-up), and every unknown role.
- A seat in the class (its grid, its grades to the LMS): `Learner` and its sub-roles, and
  anyone with no context role at all (an LMS that sends its students only institution
  roles, or none). A mentor, content developer or administrator of the course opens its
  lessons signed in, without a seat and without teaching.
"""

from collections.abc import Iterable

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR = f"{MEMBERSHIP}#Instructor"
LEARNER = f"{MEMBERSHIP}#Learner"


# The context roles' principal names (LTI 1.3 A.2.2), which LTI allows alone too.
CONTEXT_ROLES = (
    "Administrator",
    "ContentDeveloper",
    "Instructor",
    "Learner",
    "Mentor",
    "Manager",
    "Member",
    "Officer",
)


def _in_family(role: str, principal: str) -> bool:
    """`role` is `principal` in any of its spellings, or one of its sub-roles."""
    return role in (principal, f"{MEMBERSHIP}#{principal}") or role.startswith(
        f"{MEMBERSHIP}/{principal}#"
    )


def holds(roles: Iterable[str], principal: str) -> bool:
    """The roles include the context role `principal` ("Mentor") or one of its sub-roles."""
    return any(isinstance(role, str) and _in_family(role, principal) for role in roles)


def teaches(roles: Iterable[str]) -> bool:
    """The roles give the teaching of this LMS course (and so of its Parsnip class)."""
    return holds(roles, "Instructor")


def learns(roles: Iterable[str]) -> bool:
    """The roles make a learner of this LMS course."""
    return holds(roles, "Learner")


def has_a_seat(roles: Iterable[str]) -> bool:
    """The roles give a seat in the course's class: a learner, or nobody the LMS says more
    of (no context role at all); never a teacher of it."""
    roles = [role for role in roles if isinstance(role, str)]
    if teaches(roles):
        return False
    in_context = [r for r in roles if r.startswith(MEMBERSHIP) or r in CONTEXT_ROLES]
    return learns(roles) or not in_context


def membership_flags(roles: Iterable[str]) -> dict[str, bool]:
    """django-lti's LtiMembership flags as the roles are now (every flag, False included:
    django-lti only ever set them, so a demoted instructor stayed one)."""
    roles = list(roles)
    return {
        "is_administrator": holds(roles, "Administrator"),
        "is_content_developer": holds(roles, "ContentDeveloper"),
        "is_instructor": teaches(roles),
        "is_learner": learns(roles),
        "is_mentor": holds(roles, "Mentor"),
    }
