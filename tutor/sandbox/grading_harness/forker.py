# The grading harness, part 4 of 7: F, which forks the children, each with the kit.

# --- F ------------------------------------------------------------------------------------
def first_child(sock):
    """The first child, forked by P before P reads its job: stdio /dev/null, the kit built
    here (while P reads the job), then a child like any other."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    kit = _kit()
    __import__("gc").freeze()
    child(sock, kit)


def forker(sock):
    """F: forks a child per "fork" from P and sends P its pid and P's end of its socket;
    when a child ends, reaps it and sends "end <pid> <wait status> <CPU microseconds>"."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    kit = None  # made at the first request (P's first child makes its own): most runs need none
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    running = {}  # pidfd -> pid
    while True:
        for fd, _event in poller.poll():
            if fd != sock.fileno():
                pid = running.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _, status, usage = os.wait4(pid, 0)
                cpu = int((usage.ru_utime + usage.ru_stime) * 1e6)
                sock.send(b"end %d %d %d" % (pid, status, cpu))
                continue
            if sock.recv(64) != b"fork":
                os._exit(0)  # P is done: every child left dies with the sandbox
            if kit is None:
                kit = _kit()  # every child inherits it as it is
                __import__("gc").freeze()
            theirs, ours = _socket.socketpair(AF_UNIX, SOCK_SEQPACKET)
            pid = os.fork()
            if pid == 0:
                sock.close()
                theirs.close()
                for pidfd in running:
                    os.close(pidfd)
                child(ours, kit)
            ours.close()
            sock.sendmsg([b"pid %d" % pid], [(SOL_SOCKET, SCM_RIGHTS,
                          theirs.fileno().to_bytes(4, sys.byteorder))])  # fmt: skip
            theirs.close()
            pidfd = os.pidfd_open(pid)
            running[pidfd] = pid
            poller.register(pidfd, select.POLLIN)


def _no_proc(libc):
    """Landlock: no file under /proc may be read from here on, by P, F or any test (their
    own memory, /proc/self/mem, included). Without Landlock the audit hook stands alone."""
    try:
        libc.call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        attributes = LANDLOCK_READ_FILE.to_bytes(8, sys.byteorder)
        ruleset = libc.call("syscall", LANDLOCK_CREATE_RULESET, attributes, 8, 0)
        if ruleset < 0:
            return
        for entry in os.listdir("/"):
            if entry == "proc":
                continue
            try:
                fd = os.open("/" + entry, O_PATH)
            except OSError:
                continue
            rule = LANDLOCK_READ_FILE.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder)
            libc.call("syscall", LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0)
            os.close(fd)
        libc.call("syscall", LANDLOCK_RESTRICT_SELF, ruleset, 0)
        os.close(ruleset)
    except OSError:
        pass
