"""Sandbox profiles and the bubblewrap argv that enforces one around a shell command.

Owns: what ``read-only`` and ``workspace-write`` let a command write, read and reach, the
protected paths (git hooks/config, shellpilot's config) and the mount order that keeps them
read-only. Must not touch: which profile a command gets (the gate decides), permissions,
finding bwrap (bwrap.py) or explaining failures (denial.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from shellpilot.config.model import SandboxConfig
from shellpilot.paths import config_dir, data_dir
from shellpilot.process.gitlinks import Checkouts, move_aside
from shellpilot.process.seccomp import network_filter, no_unix_sockets_filter

ProfileName = Literal["read-only", "workspace-write"]

PROTECTED_NAMES = (
    "shellpilot.json",
    "shellpilot.jsonc",
    ".shellpilot",
    ".claude/commands",
    ".claude/skills",
    ".gemini/commands",
    ".opencode/command",
    ".opencode/commands",
    ".opencode/skill",
    ".opencode/skills",
)
"""shellpilot's own config in a project, and the other agents' command and skill folders
it loads (a command file's `allowed-tools` allows commands without asking): never
writable by a sandboxed command."""
_GIT_PROTECTED = ("hooks", "config", "config.worktree", "commondir")
"""Inside a git dir: what would run programs the next time git runs outside the sandbox
(``commondir`` makes git read the config and hooks of the dir it names)."""
TMP = Path("/tmp")
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE")
"""An inherited environment variable whose name holds one of these (any case) is not passed
to a sandboxed command: shellpilot's own API keys must not reach a model's command."""


@dataclass(frozen=True)
class SandboxProfile:
    """What one sandboxed command may do (absolute, resolved paths).

    ``writable``: bound read-write (``workspace-write``: the project, its git dirs, the
    tool-output folder, config ``sandbox.writable``; any profile: granted escalations).
    ``protected``: kept read-only inside those (an existing one is bound read-only; one that
    does not exist yet and that the command creates is set aside afterwards). ``readable``:
    kept visible when ``/tmp`` is replaced (project, spill files, the home directory).
    ``tmp_dir``: the host dir mounted at ``/tmp`` (None: a fresh private tmpfs). ``network``: IP network and
    Unix-socket connections allowed (otherwise only the sandbox's own loopback). ``required``:
    refuse to run unsandboxed. ``granted``: the escalations applied (paths or ``network``),
    for the result's notes. ``hint``: how the caller may ask for more, shown with a denial.
    """

    name: ProfileName
    network: bool = False
    writable: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    tmp_dir: Path | None = None
    required: bool = False
    granted: tuple[str, ...] = ()
    hint: str = ""

    def can_write(self, path: Path) -> bool:
        """Whether a write to ``path`` (absolute) is allowed by this profile: inside ``/tmp``
        (private, except the host paths shown there again), or inside a writable root and
        not inside a protected path (unless a granted or writable path inside that protected
        one covers it, as the tool-output folder inside the data dir)."""
        if _inside(path, TMP) and not any(_inside(path, p) for p in (*self.writable, *self.readable)):
            return True  # the sandbox's own /tmp, not the host's
        if not any(_inside(path, root) for root in self.writable):
            return False
        guarded = [p for p in self.protected if _inside(path, p)]
        if not guarded:
            return True
        reopened = [*(Path(g) for g in self.granted if g != "network"), *self.writable]
        return any(_inside(path, g) and any(_inside(g, p) for p in guarded) for g in reopened)


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default ``os.environ``) without the variables whose names look secret
    (``SECRET_WORDS``: ``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``PGPASSWORD``...): the base
    environment of a sandboxed command. Config ``shell.env`` is added after it, so a user
    who wants a command to see a secret names it there."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if not any(word in k.upper() for word in SECRET_WORDS)}


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _resolve(path: str | os.PathLike[str], base: Path) -> Path:
    raw = Path(os.path.expanduser(os.fspath(path)))
    return Path(os.path.realpath(raw if raw.is_absolute() else base / raw))


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))


def own_state() -> list[Path]:
    """shellpilot's own data dir (sessions, grants) and user config dir: protected in every
    profile, so that no granted parent (``~``) lets a command grant itself more or loosen
    its rules; the tool-output folder inside stays writable where the profile says so."""
    return [Path(os.path.realpath(d())) for d in (data_dir, config_dir)]


def _home() -> list[Path]:
    """The home directory, kept visible (read-only) even when it lies under ``/tmp`` (CI
    images set ``HOME=/tmp/...``): commands need its config, such as git's identity."""
    home = Path(os.path.realpath(os.path.expanduser("~")))
    return [home] if home != TMP and home.is_absolute() else []


def _git_pointer(path: Path) -> Path | None:
    """The git dir a ``.git`` file points to (``gitdir: X``, relative to its folder)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return _resolve(text[len("gitdir:") :].strip(), path.parent)


def hooks_paths(config: Path) -> list[str]:
    """Every ``core.hooksPath`` value of a git config file (a hooks folder in the work tree,
    as husky sets up, runs programs at the next commit just like ``.git/hooks``)."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found: list[str] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].split('"', 1)[0].strip().lower()
            line = line.split("]", 1)[1].strip() if "]" in line else ""
        key, sep, value = line.partition("=")
        if section == "core" and sep and key.strip().lower() == "hookspath":
            value = value.split(" #", 1)[0].split(" ;", 1)[0].strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value:
                found.append(value)
    return found


def git_layout(project_dir: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """``(git dirs, protected paths)`` of the repository holding ``project_dir``.

    The git dirs (the ``.git`` dir, or for a worktree or submodule the dir its ``.git`` file
    points to and that dir's common dir) become writable mount points of their own, so a
    command cannot rename them away and put a fake one with its own config in their place.
    Protected: each git dir's ``hooks``, ``config``, ``config.worktree``, ``commondir`` and
    the folder its config names in ``core.hooksPath``, those of the
    submodules under ``modules/``, and a ``.git`` pointer file itself.

    When ``project_dir`` has no ``.git`` of its own, ``project_dir/.git`` as a whole is
    protected (and ``HEAD`` when missing: with ``objects/`` and ``refs/`` git takes the
    folder itself for a bare repository): a repository the command creates there, whose
    config or pointer (``gitdir: elsewhere``) the user's next ``git`` would follow, is set
    aside after the run. ``git init`` is the user's to run.
    """
    folder = project_dir
    dotgit: Path | None = None
    own: list[Path] = []
    if not os.path.lexists(project_dir / ".git"):
        own.append(project_dir / ".git")
        if not os.path.lexists(project_dir / "HEAD"):
            own.append(project_dir / "HEAD")
    while True:
        candidate = folder / ".git"
        if candidate.exists():
            dotgit = candidate
            break
        if folder.parent == folder:
            return (), tuple(own)
        folder = folder.parent
    protected: list[Path] = [*own]
    gitdirs: list[Path] = []
    if dotgit.is_dir():
        gitdirs.append(Path(os.path.realpath(dotgit)))
        if dotgit.is_symlink():
            protected.append(dotgit)  # the link could be swapped for a fake git dir
    else:
        protected.append(dotgit)
        pointed = _git_pointer(dotgit)
        if pointed is None or not pointed.is_dir():
            return (), tuple(protected)
        gitdirs.append(pointed)
        common = pointed / "commondir"
        if common.is_file():
            gitdirs.append(_resolve(common.read_text(encoding="utf-8", errors="replace").strip(), pointed))
    for gitdir in list(gitdirs):
        protected += [gitdir / name for name in _GIT_PROTECTED]
        protected += [_resolve(h, folder) for h in hooks_paths(gitdir / "config")]
        modules = gitdir / "modules"
        if modules.is_dir():
            for config in modules.glob("**/config"):
                protected += [config.parent / name for name in _GIT_PROTECTED]
    return _unique(gitdirs), _unique(protected)


def read_only_profile(
    project_dir: Path,
    *,
    readable: Sequence[Path] = (),
    tmp_dir: Path | None = None,
    required: bool = False,
    hint: str = "",
) -> SandboxProfile:
    """Everything read-only, a private writable ``/tmp`` (``TMPDIR``: ``tmp_dir``, the
    session's temp dir, else a fresh tmpfs), no network, a new PID namespace;
    ``project_dir`` and ``readable`` (spill files) stay visible."""
    seen = _unique(Path(os.path.realpath(p)) for p in (project_dir, *readable, *_home()))
    tmp = Path(os.path.realpath(tmp_dir)) if tmp_dir is not None else None
    return SandboxProfile(
        "read-only", protected=tuple(own_state()), readable=seen, tmp_dir=tmp, required=required, hint=hint
    )


def workspace_profile(
    project_dir: Path,
    *,
    output_dir: Path,
    tmp_dir: Path | None,
    settings: SandboxConfig | None = None,
    readable: Sequence[Path] = (),
    hint: str = "",
) -> SandboxProfile:
    """The project, its git dirs, ``output_dir`` and config ``sandbox.writable`` writable
    (created when missing: the first two must exist); ``tmp_dir`` (the session's temp dir,
    created) at ``/tmp``; protected paths read-only; network as config ``sandbox.network``;
    ``readable`` (approved outside dirs) stays visible when under ``/tmp``."""
    cfg = settings or SandboxConfig()
    project = Path(os.path.realpath(project_dir))
    gitdirs, git_protected = git_layout(project)
    extra = [_resolve(p, project) for p in cfg.writable]
    own = [project / name for name in PROTECTED_NAMES]
    listed = [_resolve(p, project) for p in cfg.protected]
    return SandboxProfile(
        "workspace-write",
        network=cfg.network,
        writable=_unique([project, *gitdirs, Path(os.path.realpath(output_dir)), *extra]),
        protected=_unique([*git_protected, *own, *listed, *own_state()]),
        readable=_unique([project, *(Path(os.path.realpath(p)) for p in (*readable, *_home()))]),
        tmp_dir=Path(os.path.realpath(tmp_dir)) if tmp_dir is not None else None,
        required=cfg.required,
        hint=hint,
    )


def widened(profile: SandboxProfile, paths: Sequence[Path] = (), *, network: bool = False) -> SandboxProfile:
    """``profile`` with ``paths`` writable too (even inside protected ones: the user granted
    exactly those) and, with ``network``, the network on; both named in ``granted``."""
    extra = [Path(os.path.realpath(p)) for p in paths]
    granted = [*profile.granted, *(str(p) for p in extra), *(["network"] if network else [])]
    return replace(
        profile,
        writable=_unique([*profile.writable, *extra]),
        network=profile.network or network,
        granted=tuple(dict.fromkeys(granted)),
    )


@dataclass
class Wrapped:
    """A command ready to spawn inside the sandbox: ``argv`` (bwrap ... -- shell -c cmd),
    ``env`` additions (``TMPDIR``), ``seccomp`` (the filter bytes to hand over on the fd
    named in ``argv``; the runner writes them into a pipe), ``missing`` (protected paths
    that did not exist before the run, checked by ``set_aside`` afterwards) and
    ``checkouts`` (the submodule checkouts before a run that may write, checked afterwards
    by ``gitlinks.set_aside_planted``) and ``links`` (protected paths that are symlinks, with
    their text, put back by ``restore_links``)."""

    argv: list[str]
    env: dict[str, str]
    seccomp: bytes | None = None
    missing: tuple[Path, ...] = ()
    seccomp_fd_index: int = -1
    checkouts: Checkouts | None = None
    links: tuple[tuple[Path, str], ...] = ()

    def bind_fd(self, fd: int) -> None:
        """Put the read end of the seccomp pipe into the argv (``--seccomp FD``)."""
        if self.seccomp_fd_index >= 0:
            self.argv[self.seccomp_fd_index] = str(fd)


def _depth(path: Path) -> int:
    return len(path.parts)


def _kernel_views_again(writable: Sequence[Path], root: bool) -> list[str]:
    """Mounts that put the private ``/dev`` and ``/proc`` and a read-only ``/sys`` back over
    a writable root that contains them (a granted ``/``): a bind is recursive, so it would
    bring the host's raw disks, its processes and, for root, a writable ``/proc/sys``."""
    args: list[str] = []
    if any(_inside(Path("/dev"), w) for w in writable):
        args += ["--dev", "/dev"]
    if any(_inside(Path("/proc"), w) for w in writable):
        args += ["--proc", "/proc", *(["--remount-ro", "/proc"] if root else [])]
    if any(_inside(Path("/sys"), w) for w in writable):
        args += ["--ro-bind", "/sys", "/sys"]
    return args


def wrap(
    profile: SandboxProfile,
    inner: Sequence[str],
    *,
    cwd: Path,
    bwrap: str,
    as_root: bool | None = None,
) -> Wrapped:
    """The bwrap argv running ``inner`` under ``profile`` in ``cwd``.

    Mount order (later mounts cover earlier ones): the whole tree read-only; a private
    ``/dev`` and ``/proc`` (read-only when running as root, since uid 0 may write
    ``/proc/sys`` even without capabilities); ``/tmp`` (``tmp_dir`` or a tmpfs); the readable
    paths under ``/tmp`` again (read-only); the writable roots (parents first); the existing
    protected paths read-only; granted paths inside protected ones writable again; the
    private ``/dev``, ``/proc`` and a read-only ``/sys`` again over a writable root that holds
    them (a granted ``/``). Then new
    PID, IPC and UTS namespaces (network too without ``network``), no capabilities, death
    with the parent, and the seccomp filter of ``seccomp.py`` (without network: IP and
    netlink sockets only; with it: Unix ones too; never AF_VSOCK or io_uring). Writable
    roots and ``tmp_dir`` are created when missing.
    """
    root = os.geteuid() == 0 if as_root is None else as_root
    args: list[str] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if root:
        args += ["--remount-ro", "/proc"]
    if profile.tmp_dir is not None:
        profile.tmp_dir.mkdir(parents=True, exist_ok=True)
        args += ["--bind", str(profile.tmp_dir), str(TMP)]
    else:
        args += ["--tmpfs", str(TMP)]
    writable = sorted((p for p in profile.writable if p != TMP), key=_depth)
    for path in writable:
        if not path.exists():
            path.mkdir(parents=True, exist_ok=True)
    shown = [Path(os.path.realpath(cwd)), *profile.readable, Path(os.path.realpath(inner[0])).parent]
    for path in _unique(shown):
        hidden = _inside(path, TMP) and path != TMP
        if hidden and path.exists() and not any(_inside(path, w) for w in writable):
            args += ["--ro-bind", str(path), str(path)]
    for path in writable:
        args += ["--bind", str(path), str(path)]
    missing: list[Path] = []
    guarded = [p for p in sorted(profile.protected, key=_depth) if any(_inside(p, w) for w in writable)]
    links: list[tuple[Path, str]] = []
    for path in guarded:
        if os.path.islink(path):
            # A mount lands on the link's target: the link itself stays replaceable, so it
            # is checked (and put back) afterwards, and its target kept read-only here.
            links.append((path, os.readlink(path)))
            target = Path(os.path.realpath(path))
            if target.exists() and target not in writable:
                args += ["--ro-bind", str(target), str(target)]
        elif os.path.lexists(path):
            args += ["--ro-bind", str(path), str(path)]
        else:
            missing.append(path)
    for path in writable:
        if any(_inside(path, p) and path != p for p in guarded) or path in guarded:
            args += ["--bind", str(path), str(path)]
    args += _kernel_views_again(writable, root)
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL"]
    seccomp: bytes | None = None
    fd_index = -1
    if not profile.network:
        args.append("--unshare-net")
    seccomp = network_filter() if profile.network else no_unix_sockets_filter()
    if seccomp is not None:
        args += ["--seccomp", "-1"]
        fd_index = len(args)  # +1 for the bwrap path in front
    args += ["--chdir", str(cwd), "--"]
    return Wrapped(
        argv=[bwrap, *args, *inner],
        env={"TMPDIR": str(TMP)},
        seccomp=seccomp,
        missing=tuple(missing),
        seccomp_fd_index=fd_index,
        links=tuple(links),
    )


def set_aside(missing: Iterable[Path], *, now: float | None = None) -> list[str]:
    """Move each protected path that did not exist before the run and exists now to
    ``<name>.sandbox-blocked-<unix time>-<random>`` (nothing is deleted; see
    ``gitlinks.move_aside``); returns one note per move.
    Processes of the sandbox are gone by then (its PID namespace died with the command)."""
    notes: list[str] = []
    for path in missing:
        if not os.path.lexists(path):
            continue
        try:
            target = move_aside(path, now)
        except OSError as exc:
            notes.append(
                f"The sandbox could not set aside {path}, a protected path the command created: {exc}."
            )
            continue
        notes.append(
            f"The command created {path}, a protected path the sandbox keeps read-only; "
            f"shellpilot moved it to {target}. Only the user may create it."
        )
    return notes


def restore_links(links: Iterable[tuple[Path, str]], *, now: float | None = None) -> list[str]:
    """Put back each protected symlink (``(path, link text)``) the command removed or
    replaced: what is there now is moved aside (``gitlinks.move_aside``) and the link
    is made again; returns one note per repair."""
    notes: list[str] = []
    for path, text in links:
        if os.path.islink(path) and os.readlink(path) == text:
            continue
        moved = path
        try:
            if os.path.lexists(path):
                moved = move_aside(path, now)
            os.symlink(text, path)
        except OSError as exc:
            notes.append(
                f"The sandbox could not restore {path}, a protected symlink the command replaced: {exc}."
            )
            continue
        notes.append(
            f"The command replaced {path}, a protected symlink the sandbox keeps; shellpilot put the "
            f"link back (-> {text}) and moved what was there to {moved.name}."
        )
    return notes
