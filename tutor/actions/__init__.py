"""Workflows over several rows: each is one function, keyword-only, atomic.

Views validate first and then call these; the worker's tasks call them with an id. Here
the work every kind shares: runs, progress (and `learner_worked`, the one call a kind's
action makes for what a learner did), classes; each practice kind's own actions live in
its folder (`tutor/practice/<kind>/actions.py`). Import from the module
(`from tutor.actions.runs import queue_run`).
"""
