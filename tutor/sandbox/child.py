"""Bootstrap run inside the sandbox by the system interpreter (``python3 -I -S -c``).

It is started ahead of time, says it is ready with one NUL byte on stdout, then blocks
reading "<limits>\\n<source>" from a pipe. Only then does it set the resource limits
(inside the sandbox's user namespace, so the process count is this run's alone) and
run the learner's code as ``__main__``. It must stay importable by any Python 3.8+.
"""

import os
import resource
import sys

FILENAME = "main.py"


def _bootstrap():
    control = int(sys.argv[1])
    os.write(1, b"\0")
    chunks = []
    while True:
        chunk = os.read(control, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    if not data:  # the pool was shut down before this sandbox was used
        os._exit(0)
    header, _, source = data.partition(b"\n")
    cpu, memory, processes, file_size, open_files = (int(n) for n in header.split())
    os.closerange(3, 1 << 16)

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # the soft limit sends SIGXCPU; the hard one SIGKILL, should the program catch that
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    for limit, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_NPROC, processes),
        (resource.RLIMIT_FSIZE, file_size),
        (resource.RLIMIT_NOFILE, open_files),
    ):
        resource.setrlimit(limit, (value, value))

    text = source.decode("utf-8")

    def excepthook(kind, value, tb, filename=FILENAME):
        # show the learner's frames only, with their source lines
        import linecache
        import traceback

        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        traceback.print_exception(kind, value, tb)

    sys.excepthook = excepthook
    filename = FILENAME
    sys.argv = [filename]
    namespace = sys.modules["__main__"].__dict__
    builtins = namespace["__builtins__"]
    namespace.clear()
    namespace.update(
        __name__="__main__", __doc__=None, __builtins__=builtins, __spec__=None, __package__=None
    )
    code = compile(text, filename, "exec", dont_inherit=True)
    del data, chunks, source
    exec(code, namespace)


_bootstrap()
