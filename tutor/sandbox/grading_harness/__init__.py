"""The grading harness: the program tutor.sandbox.grading runs in the sandbox.

One program, kept in parts (tutor.sandbox.grading.HARNESS_PARTS, joined in that order into
grading.HARNESS, which the sandbox compiles as one): header.py (modules, limits, framing),
parent.py (P), compiling.py (P compiling the code and the checks), forker.py (F), values.py
(what checks record and how failures are described), seal.py (the audit hook), child.py
(C, and the slots, built last). The parts
share one namespace, as one file's functions do; importing this package (tests do) runs
them in it, each compiled under its own file name.

A preload of the fork server (docs/sandbox.md), which compiles it and runs this module's
body once, building the test slots (PREPARED) there: a grading's program only calls
``main`` (grading.PRELOADED_BOOTSTRAP). Without a fork server it is compiled once per
worker by the sandbox's own interpreter, and sent as bytecode at the head of stdin behind a
bootstrap that is the run's program (grading.BOOTSTRAP): compiling this file costs more
than a whole run. ``main`` then reads its job from the rest of stdin
(the learner's code, the tests and the run's nonce), runs the tests one after another, and
writes one report to stdout framed with the nonce. docs/grading.md says why it is built
this way. Three kinds of process:

  P  this one: reads the job, compiles the learner's code (a syntax error ends it here) and
     the checks, gives each test to a child, feeds it its stdin, reads its output under a
     cap, kills it when its time is up, and writes the report. It never runs learner code,
     and it is not dumpable: no other process may read its memory or descriptors through
     /proc.
  F  forked from P before P reads anything, so it holds nothing but this file. It builds
     what every child needs before its first test (the kit: the state to reset to, the
     sealed audit hook, the slots already made) and forks children for P. It ends once
     no test is left that could need a new child.
  C  runs consecutive tests while they pass (TESTS_PER_CHILD at most, never a visible test
     after a hidden one), receiving each only when the one before has ended, and starting
     each afresh: modules, builtins, sys, namespace, stdio, signals and descriptors as they
     were. It seals itself (an audit hook the learner's code cannot remove) and runs the
     learner's code, then the check. Its verdict carries a per-test token that exists only
     among the constants of its driver code, which the learner's code cannot reach;
     without the token P counts the test failed.

It must stay runnable by any Python 3.9+ and import only built-in modules: its start-up
time is paid by every submission.
"""

import os as _os

from ..grading import HARNESS_DIR as _DIR
from ..grading import HARNESS_PARTS as _PARTS

for _part in _PARTS:
    _path = _os.path.join(_DIR, _part)
    with open(_path, encoding="utf-8") as _file:
        exec(compile(_file.read(), _path, "exec", dont_inherit=True), globals())
del _os, _DIR, _PARTS, _part, _path, _file
