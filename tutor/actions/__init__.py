"""Workflows over several rows: each is one function, keyword-only, atomic.

Views validate first and then call these; the worker's tasks call them with an id. One
module per kind of work: runs, predictions (and drafts), ordering, progress, classes;
import from the module (`from tutor.actions.runs import queue_run`).
"""
