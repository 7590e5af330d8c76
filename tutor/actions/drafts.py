"""A learner's draft of their code (a snippet's edited version, an exercise's answer in
progress): one row per learner and item, kept as they type and run."""

from django.db import models


def keep_draft(model: type[models.Model], *, code: str, **owner) -> models.Model:
    """Store `code` as the draft of `owner` (the learner and the item: the model's unique
    fields): one INSERT ... ON CONFLICT DO UPDATE, made or replaced in one statement, with
    no read first and no savepoint (update_or_create took five round trips, and a Run
    click makes one)."""
    draft = model(code=code, **owner)
    model.objects.bulk_create(
        [draft], update_conflicts=True, unique_fields=list(owner), update_fields=["code", "updated_at"]
    )
    return draft
