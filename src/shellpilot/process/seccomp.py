"""The seccomp filter of a sandbox without network: no Unix-domain sockets, no io_uring.

Owns: the classic-BPF program bwrap loads with ``--seccomp FD`` (bytes). Must not touch:
processes or files. A network namespace cuts IP traffic but not a connect() to a socket
file on the host (the Docker or D-Bus socket could run anything outside the sandbox), so
without network a command may not create AF_UNIX sockets (socketpair stays allowed) nor set
up io_uring, which could open sockets past this filter.
"""

from __future__ import annotations

import errno
import platform
import struct

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000
_AF_UNIX = 1

# machine -> (AUDIT_ARCH_*, socket nr, io_uring_setup nr)
_ARCHES: dict[str, tuple[int, int, int]] = {
    "x86_64": (0xC000003E, 41, 425),
    "amd64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
    "arm64": (0xC00000B7, 198, 425),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def no_unix_sockets_filter(machine: str | None = None) -> bytes | None:
    """The BPF program (``struct sock_filter[]`` bytes) that fails ``socket(AF_UNIX, ...)``
    and ``io_uring_setup`` with EPERM, and every syscall of another ABI (x32, 32-bit compat)
    too, so the rule cannot be dodged through one. None on a machine it has no table for
    (the sandbox then runs without it)."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None:
        return None
    audit_arch, nr_socket, nr_io_uring = arch
    deny = _ERRNO | errno.EPERM
    program = [
        _op(_LD_ABS_W, _ARCH),  # 0
        _op(_JEQ_K, audit_arch, 0, 7),  # 1: another ABI -> 9 (deny)
        _op(_LD_ABS_W, _NR),  # 2
        _op(_JGE_K, _X32_BIT, 5, 0),  # 3: x32 syscall -> 9 (deny)
        _op(_JEQ_K, nr_io_uring, 4, 0),  # 4: io_uring_setup -> 9 (deny)
        _op(_JEQ_K, nr_socket, 0, 2),  # 5: not socket -> 8 (allow)
        _op(_LD_ABS_W, _ARG0),  # 6: domain
        _op(_JEQ_K, _AF_UNIX, 1, 0),  # 7: AF_UNIX -> 9 (deny)
        _op(_RET_K, _ALLOW),  # 8
        _op(_RET_K, deny),  # 9
    ]
    return b"".join(program)
