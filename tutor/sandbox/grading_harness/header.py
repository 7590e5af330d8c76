# The grading harness, part 1 of 7 (the order: tutor.sandbox.grading.HARNESS_PARTS): what
# every part uses: the modules (built-in only), the limits, and the framing of messages.

import _collections
import _operator
import _signal
import _socket
import _thread
import marshal
import os
import select
import sys
from time import monotonic

LEARNER_FILE = "main.py"  # the name tracebacks give the learner's code, as for a plain run
CHECK_FILE = "<test>"
COMPARE = "\0parsnip-compare\0"  # stands for the recording function in a compiled check
BUILT_IN = "\0parsnip-builtin\0"  # + a name: stands for that built-in in a compiled check
VALUE_CAP = 1 << 14  # bytes of one encoded value (more: described as too big)
RECORDS_SENT = 1 << 14  # bytes of records a child gathers before it sends them to P
RECORDS_KEPT = 1 << 18  # bytes of records P keeps of one test (more: the test is not checked)
GRACE = 0.3  # seconds P waits beyond a test's budget before it kills the test
END_WAIT = 2.0  # seconds P waits for F's word after killing a test
DETAILS_CAP = 1 << 16  # bytes of a failure's description
REPR_CAP = 2000  # characters of a value shown in a failed comparison
FRAMES_KEPT = 20  # learner frames kept at each end of a long traceback
NO_VERDICT = 120  # C's exit status when its driver did not finish
TESTS_PER_CHILD = 10  # tests one child may run, one after another, while they pass
OWN_STDIN = 4096  # bytes of a test's stdin its child writes itself (fits any pipe's buffer)
VERSION_OFFSET = 24  # CPython's dict: reference count, type, size, then its version tag
RECURSION_CAP = 100_000  # sys.setrecursionlimit above this sets this: a runaway recursion
# then ends as a RecursionError in well under a test's time, not by its clock or a crash

PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_READ_FILE = 1 << 2
LANDLOCK_RULE_PATH_BENEATH = 1
O_PATH = 0o10000000
CO_NOT_A_PLAIN_FUNCTION = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, async generator
BYTE_ORDER = sys.byteorder  # read here: a test's code may change sys.byteorder
# what the closures the learner's code may reach (through their frames) use: each test's
# slot has its own copy of these, and of nothing else
LEARNER_FACING = ("_describer", "_judging", "_encoder", "_numbers", "_honesty", "_check_runner", "_clean_exit",
                  "_never", "_nothing", "_finisher", "_flusher", "_too_slow", "pack", "text",
                  "TooSlow", "LEARNER_FILE", "FRAMES_KEPT", "DETAILS_CAP", "VALUE_CAP",
                  "_operator", "_collections", "_signal")  # fmt: skip

AF_UNIX, SOCK_SEQPACKET = _socket.AF_UNIX, _socket.SOCK_SEQPACKET
SOL_SOCKET, SCM_RIGHTS = _socket.SOL_SOCKET, _socket.SCM_RIGHTS


# --- framing: every message is a list of byte strings, each "<length>:<bytes>" ------------
def pack(items):
    return b"".join(b"%d:%s" % (len(item), item) for item in items)


def unpack(data):
    items, position = [], 0
    while position < len(data):
        colon = data.index(b":", position)
        start = colon + 1
        end = start + int(data[position:colon])
        if end > len(data):
            raise ValueError("truncated")
        items.append(data[start:end])
        position = end
    return items


def text(value):
    """Valid UTF-8 whatever the bytes or string: what the report carries."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.encode("utf-8", "backslashreplace")
