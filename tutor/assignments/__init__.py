"""Assignments: a teacher sets a lesson (or some of its exercises) for a class, with an
opening date and a due date; per-student extensions; closing.

models.py (Assignment, Extension), status.py (when each student's work was submitted and
whether it was on time, late or missing: plain functions over rows the views fetch),
actions.py (the writes), forms.py, views.py (the teacher's pages), closing.py (the one
check every practice kind's submitting POST goes through), learners.py (what a student
sees of their assignments on the home page, My progress and the lesson).
"""
