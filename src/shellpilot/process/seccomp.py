"""The seccomp filter of a sandbox without network: IP and netlink sockets only, no io_uring.

Owns: the classic-BPF program bwrap loads with ``--seccomp FD`` (bytes). Must not touch:
processes or files. A network namespace cuts IP traffic but not a connect() to a socket
file on the host (the Docker or D-Bus socket could run anything outside the sandbox), nor
AF_VSOCK (a VM's channel to its hypervisor), so without network a command may create only
AF_INET, AF_INET6 (its own loopback) and AF_NETLINK sockets (socketpair stays allowed), and
may not set up io_uring, which could open sockets past this filter. With network on, the
filter allows AF_UNIX too and still refuses AF_VSOCK and the rest.
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
_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK = 1, 2, 10, 16

# machine -> (AUDIT_ARCH_*, socket nr, the numbers of the denied calls: io_uring_setup,
# add_key, request_key, keyctl)
_X86_64 = (0xC000003E, 41, (425, 248, 249, 250))
_AARCH64 = (0xC00000B7, 198, (425, 217, 218, 219))
_ARCHES: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "x86_64": _X86_64,
    "amd64": _X86_64,
    "aarch64": _AARCH64,
    "arm64": _AARCH64,
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def socket_filter(families: tuple[int, ...], machine: str | None = None) -> bytes | None:
    """The BPF program (``struct sock_filter[]`` bytes) that fails with EPERM ``socket()``
    of any family not in ``families``, ``io_uring_setup`` (it could open sockets past the
    filter), ``add_key``/``request_key``/``keyctl`` (the kernel keyrings are state shared
    with the host that no namespace here isolates), and every syscall of another ABI
    (x32, 32-bit compat), so the rule cannot be
    dodged through one. None on a machine it has no table for (the sandbox then runs
    without it)."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None or not families:
        return None
    audit_arch, nr_socket, denied = arch
    n, d = len(families), len(denied)
    allow, deny = 6 + d + n, 7 + d + n  # positions of the two returns

    def to(pc: int, target: int) -> int:
        return target - pc - 1

    program = [
        _op(_LD_ABS_W, _ARCH),  # 0
        _op(_JEQ_K, audit_arch, 0, to(1, deny)),  # 1: another ABI -> deny
        _op(_LD_ABS_W, _NR),  # 2
        _op(_JGE_K, _X32_BIT, to(3, deny), 0),  # 3: x32 syscall -> deny
    ]
    for k, number in enumerate(denied):  # 4...: io_uring_setup, the key calls -> deny
        program.append(_op(_JEQ_K, number, to(4 + k, deny), 0))
    program += [
        _op(_JEQ_K, nr_socket, 0, to(4 + d, allow)),  # not socket -> allow
        _op(_LD_ABS_W, _ARG0),  # domain
    ]
    for i, family in enumerate(families):
        pc = 6 + d + i
        program.append(_op(_JEQ_K, family, to(pc, allow), to(pc, deny) if i == n - 1 else 0))
    program += [_op(_RET_K, _ALLOW), _op(_RET_K, _ERRNO | errno.EPERM)]
    return b"".join(program)


def no_unix_sockets_filter(machine: str | None = None) -> bytes | None:
    """Without network: only AF_INET, AF_INET6 (the sandbox's own loopback) and AF_NETLINK
    sockets; see ``socket_filter``."""
    return socket_filter((_AF_INET, _AF_INET6, _AF_NETLINK), machine)


def network_filter(machine: str | None = None) -> bytes | None:
    """With network: AF_UNIX too, but still no AF_VSOCK (a VM's channel to its hypervisor
    is not the network the user allowed) nor any other family; see ``socket_filter``."""
    return socket_filter((_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK), machine)
