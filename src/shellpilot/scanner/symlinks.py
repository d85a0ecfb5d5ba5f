"""Where a path inside the project really is: symlinks below the project root followed.

Owns: `Physical`, which finds the paths that a symlink inside the project takes
elsewhere (`docs -> /outside`: `docs/id_rsa` is `/outside/id_rsa`). Must not touch:
reporting (scan_paths.PathResolver decides what a result means) or parsing.
"""

from __future__ import annotations

import os
import stat


class Unresolvable(Exception):
    """A symlink on a path could not be followed (a loop, a denied `/proc/1/root`)."""


class Physical:
    """Resolves paths inside one project (absolute, normalised `project`); results are
    cached for the life of the instance (one scan)."""

    __slots__ = ("_real", "_seen", "made", "prefix", "project")

    def __init__(self, project: str) -> None:
        self.project = project
        self.prefix = project if project.endswith("/") else project + "/"
        self._real: str | None = None
        self._seen: dict[str, str | None] = {}
        self.made: dict[str, str] = {}
        """Links the scanned text makes (`ln -s /outside l`): link path -> its target as
        written (relative to the link's folder); later paths through them lead there."""

    def make(self, link: str, target: str) -> None:
        """Take `link` (absolute, normalised) to be a symlink to `target` from now on."""
        self.made[link] = target
        self._seen.clear()

    def real_project(self) -> str:
        """The project's own physical path (found once, on first need)."""
        if self._real is None:
            try:
                self._real = os.path.realpath(self.project)
            except (OSError, ValueError):
                self._real = self.project
        return self._real

    def escape(self, path: str, joined: str | None = None) -> str | None:
        """Where `path` (absolute, normalised, inside the project) really is, when a
        symlink below the project root leads out of the project; `None` when it stays in
        (or no symlink is on the way, or the rest does not exist).

        `joined`: the path before normalisation when it holds `..`: the kernel resolves
        `lnk/..` physically (the parent of the link's target), so that one is resolved
        whole. Raises Unresolvable when a link cannot be followed.
        """
        if joined is not None and "/.." in joined:
            whole = self._realpath(joined)
            if not self.keeps(whole):
                return whole
            if not self.made:
                return None
            # (a link the text makes is not on disk yet: the normalised path meets it)
        if path in self._seen:
            return self._seen[path]
        real = self._walk(path)
        result = None if real is None or self.keeps(real) else real
        self._seen[path] = result
        return result

    def keeps(self, real: str) -> bool:
        """Whether physical path `real` is the project or inside it."""
        top = self.real_project()
        return (
            real == top
            or real.startswith(top.rstrip("/") + "/")
            or real == self.project
            or real.startswith(self.prefix)
        )

    def _walk(self, path: str) -> str | None:
        """`path`'s physical location when a symlink lies on it below the project root,
        else None (one `lstat` per component, stopping at the first missing one)."""
        if not path.startswith(self.prefix):
            return None
        current = self.project.rstrip("/")
        parts = path[len(self.prefix) :].split("/")
        for part in parts:
            current = current + "/" + part
            if current in self.made:
                return self._follow(path)
            try:
                # (access() answers a missing path, the common case, without an exception)
                if not os.access(current, os.F_OK, follow_symlinks=False):
                    return None  # missing: nothing below it can be a link
                mode = os.lstat(current).st_mode
            except (OSError, ValueError):
                return None
            if stat.S_ISLNK(mode):
                # (`cd inner && ln -s /x l; echo y > l/f` with inner -> src: the made link
                # is met on the physical path, src/l)
                return self._follow(path) if self.made else self._realpath(path)
            if not stat.S_ISDIR(mode):
                return None
        return None

    def through_made(self, path: str) -> str | None:
        """Where absolute `path` (anywhere, the project or not) leads when a link the text
        makes lies on it (see `_follow`); None when none does or it cannot be followed."""
        if not any(path == m or path.startswith(m + "/") for m in self.made):
            return None
        try:
            return self._follow(path)
        except Unresolvable:
            return None

    def _follow(self, path: str) -> str:
        """Where absolute `path` leads when links the text makes may lie on it: each one
        met is replaced by its target (relative to the link's folder), then links on disk
        are followed, again while a made one is met (40 hops at most, as the kernel
        allows)."""
        made = self.made
        for _ in range(40):
            head = next((m for m in made if path == m or path.startswith(m + "/")), None)
            if head is None:
                real = self._realpath(path)
                if real == path or not any(real == m or real.startswith(m + "/") for m in made):
                    return real
                path = real
                continue
            tail = path[len(head) + 1 :]
            path = os.path.normpath(os.path.join(os.path.dirname(head), made[head], tail))
        raise Unresolvable(f"{path}: too many levels of symbolic links")

    @staticmethod
    def _realpath(path: str) -> str:
        try:
            return os.path.realpath(path)
        except (OSError, ValueError) as err:
            raise Unresolvable(f"{path}: {err.strerror if isinstance(err, OSError) else err}") from err
