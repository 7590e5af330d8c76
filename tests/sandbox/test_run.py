"""Ordinary programs run in the sandbox and print exactly what they should."""

import json
import textwrap

import pytest

from tutor.sandbox import Limits, Result, run


def run_ok(code, **kwargs):
    result = run(textwrap.dedent(code), **kwargs)
    assert result.status == "ok", result
    assert result.exit_code == 0
    return result


def test_hello_world():
    result = run_ok("print('hi')")
    assert result.stdout == "hi\n"
    assert result.stderr == ""
    assert result.truncated is False


def test_result_json_has_exactly_the_contract_keys():
    data = json.loads(json.dumps(run("print(1)").to_dict()))
    assert data.keys() == {"status", "exit_code", "stdout", "stderr", "duration_ms", "truncated"}
    assert isinstance(data["duration_ms"], int)


def test_stdlib_imports():
    result = run_ok(
        """
        import collections, datetime, decimal, fractions, itertools, json, math, random, re
        import dataclasses, functools, statistics, string, typing, sqlite3, hashlib
        print(json.dumps({"n": math.factorial(5)}), re.sub("a", "b", "banana"))
        print(sorted(collections.Counter("hello").items())[0], fractions.Fraction(1, 3) * 3)
        db = sqlite3.connect(":memory:"); print(db.execute("select 6 * 7").fetchone()[0])
        """
    )
    assert result.stdout == "{\"n\": 120} bbnbnb\n('e', 1) 1\n42\n"


def test_threads():
    result = run_ok(
        """
        import threading
        out = []
        threads = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(sorted(out))
        """
    )
    assert result.stdout == "[0, 1, 2, 3, 4, 5, 6, 7]\n"


def test_twenty_threads_alive_at_once_fit_in_the_memory_limit():
    result = run_ok(
        """
        import threading
        barrier = threading.Barrier(20)
        threads = [threading.Thread(target=barrier.wait, args=(5,)) for _ in range(20)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("all 20 met")
        """
    )
    assert result.stdout == "all 20 met\n"


def test_files_in_the_working_directory():
    result = run_ok(
        """
        import os
        with open("notes.txt", "w") as f: f.write("kept\\n")
        print(open("notes.txt").read(), end="")
        print(os.getcwd(), os.listdir("."))
        """
    )
    assert result.stdout == "kept\n/tmp ['notes.txt']\n"


def test_unicode_in_and_out():
    result = run_ok("name = input(); print(f'héllo {name} ✓ 🐍')", stdin="Zoë\n")
    assert result.stdout == "héllo Zoë ✓ 🐍\n"


def test_moderate_memory_and_cpu():
    result = run_ok("data = bytearray(64 * 1024 * 1024); print(len(data), sum(range(3_000_000)))")
    assert result.stdout == f"{64 * 1024 * 1024} {sum(range(3_000_000))}\n"


def test_uncaught_exception_is_an_error_with_the_learners_traceback():
    result = run("def f():\n    return 1 / 0\nf()\n")
    assert result.status == "error"
    assert result.exit_code == 1
    assert result.stderr.startswith('Traceback (most recent call last):\n  File "main.py", line 3')
    assert "    return 1 / 0\n" in result.stderr
    assert result.stderr.endswith("ZeroDivisionError: division by zero\n")


def test_syntax_error():
    result = run("print('unclosed'")
    assert result.status == "error"
    assert "SyntaxError" in result.stderr


def test_exit_code_is_reported():
    result = run("import sys; print('bye'); sys.exit(3)")
    assert (result.status, result.exit_code, result.stdout) == ("error", 3, "bye\n")


def test_stdin_is_given_then_eof():
    result = run_ok("import sys; print(sys.stdin.read().split())", stdin="a b\nc")
    assert result.stdout == "['a', 'b', 'c']\n"


@pytest.mark.parametrize(
    ("code", "message"),
    [("print('a')\0", "NUL"), ("x = 1\n" * 20_000, "limit")],
)
def test_bad_source_is_a_clear_error(code, message):
    result = run(code)
    assert result.status == "error"
    assert message in result.stderr
    assert result.stdout == ""


def test_limits_are_frozen_and_clamped_to_maxima():
    maxima = Limits(cpu_seconds=10, wall_seconds=20, memory_bytes=512 * 2**20)
    raised = Limits().raised(maxima, cpu_seconds=60, memory_bytes=1024 * 2**20)
    assert raised.cpu_seconds == 10
    assert raised.memory_bytes == 512 * 2**20
    with pytest.raises(ValueError):
        Limits(cpu_seconds=0)
    assert isinstance(run("pass"), Result)


def test_unsafe_backend_runs_only_when_asked_for():
    result = run(
        "import os; print(os.getcwd().startswith('/tmp/parsnip-run-'))", backend="unsafe-subprocess"
    )
    assert (result.status, result.stdout) == ("ok", "True\n")
    assert run("import os; print(os.getcwd())").stdout == "/tmp\n"


def test_a_program_can_talk_to_itself_over_its_own_loopback():
    result = run_ok(
        """
        import socket, threading
        server = socket.create_server(("127.0.0.1", 0))
        port = server.getsockname()[1]
        def echo():
            conn, _ = server.accept()
            conn.sendall(conn.recv(100).upper())
        threading.Thread(target=echo).start()
        with socket.create_connection(("127.0.0.1", port), timeout=2) as client:
            client.sendall(b"ping")
            print(client.recv(100).decode())
        """
    )
    assert result.stdout == "PING\n"
