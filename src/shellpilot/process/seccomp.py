"""The seccomp filter of a sandbox without network: IP and netlink sockets only, no io_uring.

Owns: the classic-BPF program bwrap loads with ``--seccomp FD`` (bytes). Must not touch:
processes or files. A network namespace cuts IP traffic but not a connect() to a socket
file on the host (the Docker or D-Bus socket could run anything outside the sandbox), nor
AF_VSOCK (a VM's channel to its hypervisor), so without network a command may create only
AF_INET, AF_INET6 (its own loopback) and AF_NETLINK sockets (socketpair stays allowed), and
may not set up io_uring, which could open sockets past this filter.
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
_AF_INET, _AF_INET6, _AF_NETLINK = 2, 10, 16

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
    """The BPF program (``struct sock_filter[]`` bytes) that fails with EPERM ``socket()``
    of any family but AF_INET, AF_INET6 and AF_NETLINK, ``io_uring_setup``, and every
    syscall of another ABI (x32, 32-bit compat), so the rule cannot be dodged through one.
    None on a machine it has no table for (the sandbox then runs without it)."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None:
        return None
    audit_arch, nr_socket, nr_io_uring = arch
    deny = _ERRNO | errno.EPERM
    program = [
        _op(_LD_ABS_W, _ARCH),  # 0
        _op(_JEQ_K, audit_arch, 0, 9),  # 1: another ABI -> 11 (deny)
        _op(_LD_ABS_W, _NR),  # 2
        _op(_JGE_K, _X32_BIT, 7, 0),  # 3: x32 syscall -> 11 (deny)
        _op(_JEQ_K, nr_io_uring, 6, 0),  # 4: io_uring_setup -> 11 (deny)
        _op(_JEQ_K, nr_socket, 0, 4),  # 5: not socket -> 10 (allow)
        _op(_LD_ABS_W, _ARG0),  # 6: domain
        _op(_JEQ_K, _AF_INET, 2, 0),  # 7: AF_INET -> 10 (allow)
        _op(_JEQ_K, _AF_INET6, 1, 0),  # 8: AF_INET6 -> 10 (allow)
        _op(_JEQ_K, _AF_NETLINK, 0, 1),  # 9: AF_NETLINK -> 10 (allow), any other -> 11 (deny)
        _op(_RET_K, _ALLOW),  # 10
        _op(_RET_K, deny),  # 11
    ]
    return b"".join(program)
