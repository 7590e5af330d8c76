"""A classic-BPF seccomp deny-list for learner code, built without libseccomp.

bubblewrap loads it with ``--seccomp FD``. Everything not listed is allowed: the
namespaces, the read-only file system and the rlimits do the confining; this filter
removes kernel interfaces that are large attack surface and that no lesson needs.
"""

import errno
import os
import struct

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
_NR_OFFSET = 0
_ARCH_OFFSET = 4
_ARG0_LOW_OFFSET = 16  # low 32 bits of args[0] (both supported arches are little-endian)

# BPF opcodes (linux/bpf_common.h)
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
_X32_SYSCALL_BIT = 0x40000000

# Every namespace flag clone() accepts; creating namespaces is bubblewrap's job, not the learner's.
CLONE_NAMESPACE_FLAGS = (
    0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
)

# name: (x86_64 number, aarch64 number or None)
DENIED = {
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "bpf": (321, 280),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438),
    "process_madvise": (440, 440),
    "kcmp": (312, 272),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "unshare": (272, 97),
    "setns": (308, 268),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "reboot": (169, 142),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "quotactl_fd": (443, 443),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "fanotify_init": (300, 262),
    "lookup_dcookie": (212, 18),
    "personality": (135, 92),
    "syslog": (103, 116),
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
    "_sysctl": (156, None),
}
# clone3 passes its flags in a struct the filter cannot read: answer ENOSYS so glibc
# falls back to clone(), whose flags the filter can check.
CLONE3 = (435, 435)
CLONE = (56, 220)
UNSHARE = (272, 97)
MOUNT = (165, 40)
CLONE_NEWUSER = 0x10000000


def _stmt(code, k):
    return [code, 0, 0, k]


def _jump(code, k, jt, jf):
    return [code, jt, jf, k]


def _arch_block(column, zygote=False):
    """Instructions for one architecture, with symbolic jump targets resolved later.

    The zygote's variant lets it (and a run's C1 and C2, before they install the full
    filter on top) unshare and mount, but never make a user namespace."""
    allowed = {UNSHARE[column], MOUNT[column]} if zygote else set()
    deny = sorted(
        {numbers[column] for numbers in DENIED.values() if numbers[column] is not None} - allowed
    )
    block = [("ld", _NR_OFFSET)]
    if column == 0:
        block.append(("jge", _X32_SYSCALL_BIT, "eperm", None))
    block.append(("jeq", CLONE3[column], "enosys", None))
    block.append(("jeq", CLONE[column], "clone", None))
    if zygote:
        block.append(("jeq", UNSHARE[column], "clone", None))
    block.extend(("jeq", nr, "eperm", None) for nr in deny)
    block.append(("ret", SECCOMP_RET_ALLOW))
    block.append(("label", "clone"))
    block.append(("ld", _ARG0_LOW_OFFSET))
    block.append(("jset", CLONE_NEWUSER if zygote else CLONE_NAMESPACE_FLAGS, "eperm", None))
    block.append(("ret", SECCOMP_RET_ALLOW))
    block.append(("label", "eperm"))
    block.append(("ret", SECCOMP_RET_ERRNO | errno.EPERM))
    block.append(("label", "enosys"))
    block.append(("ret", SECCOMP_RET_ERRNO | errno.ENOSYS))
    return block


def _assemble(block):
    labels, position = {}, 0
    for op in block:
        if op[0] == "label":
            labels[op[1]] = position
        else:
            position += 1
    program, position = [], 0
    for op in block:
        kind = op[0]
        if kind == "label":
            continue
        if kind == "ld":
            program.append(_stmt(_LD_W_ABS, op[1]))
        elif kind == "ret":
            program.append(_stmt(_RET_K, op[1]))
        else:
            code = {"jeq": _JEQ_K, "jge": _JGE_K, "jset": _JSET_K}[kind]
            offset = labels[op[2]] - position - 1
            if not 0 <= offset < 256:
                raise ValueError("seccomp jump out of range")
            program.append(_jump(code, op[1], offset, 0))
        position += 1
    return program


def build_filter(zygote=False):
    """The filter as bytes of struct sock_filter, ready for ``bwrap --seccomp FD``."""
    x86 = _assemble(_arch_block(0, zygote))
    arm = _assemble(_arch_block(1, zygote))
    # ld arch; jeq x86 -> +2 ; jeq arm -> +(2 + len(x86)) ; kill ; x86... ; arm...
    head = [
        _stmt(_LD_W_ABS, _ARCH_OFFSET),
        _jump(_JEQ_K, AUDIT_ARCH_X86_64, 2, 0),
        _jump(_JEQ_K, AUDIT_ARCH_AARCH64, 1 + len(x86), 0),
        _stmt(_RET_K, SECCOMP_RET_KILL_PROCESS),
    ]
    program = head + x86 + arm
    if len(x86) + 1 >= 256:
        raise ValueError("seccomp program too long for an 8-bit jump")
    return b"".join(struct.pack("=HBBI", *insn) for insn in program)


FILTER = build_filter()
ZYGOTE_FILTER = build_filter(zygote=True)


def filter_fd(program=FILTER):
    """A pipe read end holding the filter; bubblewrap reads it to EOF and closes it."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end
