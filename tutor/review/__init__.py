"""Spaced review: what a learner practised in a lesson, brought back when FSRS says it is
about to be forgotten.

A card per learner and item (models.py) is made when the learner first finishes the item
in a lesson (a wrong prediction, a question answered, an ordering solved: actions.py
listens to `tutor.signals.learner_worked`), rated by that result. The Review page
(views.py) takes the learner through the cards due today, one at a time, each graded by
the same server checks as the lesson (items.py); the rating moves the card as the `fsrs`
package computes. Review answers are rows of their own (ReviewAnswer): the lesson's rows,
progress, assignments' scores and LMS grades never see them.
"""
