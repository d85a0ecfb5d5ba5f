"""Reading strace -f -y logs: lines as strace 6 prints them, including the awkward ones."""

from __future__ import annotations

from shellpilot.oracle.trace import TRACED, parse, split_args, unescape

SHELL = ["bash", "-c", "mkdir d; echo hi > 'a>b'"]


def _log(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_programs_and_file_events_after_the_shell_starts() -> None:
    log = _log(
        '100 execve("/usr/bin/bwrap", ["bwrap", "bash"], 0x7ffd /* 3 vars */) = 0',
        '100 mkdir("/newroot/tmp", 0755) = 0',
        "100 clone(child_stack=NULL, flags=SIGCHLD) = 101",
        '101 execve("/usr/bin/bash", ["bash", "-c", "mkdir d; echo hi > \'a>b\'"], 0x1 /* 9 vars */) = 0',
        "101 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 102",
        '102 execve("/usr/bin/mkdir", ["mkdir", "d"], 0x5 /* 9 vars */) = 0',
        '102 mkdir("d", 0777) = 0',
        '101 openat(AT_FDCWD</p>, "a>b", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</p/a\\76b>',
    )
    trace = parse(log, "/p", SHELL)
    assert trace.root is not None and trace.root.argv == SHELL
    assert [(p.name, p.via.name if p.via else None) for p in trace.programs] == [
        ("bash", "bwrap"),
        ("mkdir", "bash"),
    ]
    events = [(e.kind, e.call, e.paths, e.real, e.writes) for e in trace.events if e.kind != "exec"]
    # bwrap's own mkdir before the shell is not the command's doing
    assert events == [
        ("write", "mkdir", ("/p/d",), "", True),
        ("open", "openat", ("/p/a>b",), "/p/a>b", True),
    ]


def test_unfinished_and_resumed_lines_are_joined() -> None:
    log = _log(
        '1 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 1 var */) = 0',
        '1 openat(AT_FDCWD</p>, "/outside/secret.txt", O_RDONLY <unfinished ...>',
        "2 +++ exited with 0 +++",
        "1 <... openat resumed>) = 3</outside/secret.txt>",
    )
    trace = parse(log, "/p", ["bash", "-c", "x"])
    assert [(e.paths, e.real, e.writes, e.ok) for e in trace.events if e.kind == "open"] == [
        (("/outside/secret.txt",), "/outside/secret.txt", False, True)
    ]


def test_a_vfork_child_seen_before_its_parent_returns_is_adopted() -> None:
    """posix_spawn: the child's execve is logged before the parent's clone returns."""
    log = _log(
        '1 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 1 var */) = 0',
        '1 execve("/usr/bin/git", ["git", "status"], 0x1 /* 1 var */) = 0',
        "1 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x9000}, 88 "
        "<unfinished ...>",
        '2 execve("/usr/bin/id", ["/usr/bin/id", "2"], 0x1 /* 3 vars */) = 0',
        "1 <... clone3 resumed>) = 2",
    )
    trace = parse(log, "/p", ["bash", "-c", "x"])
    names = [(p.name, p.via.name if p.via else None) for p in trace.programs]
    assert names == [("bash", None), ("git", "bash"), ("id", "git")]


def test_relative_paths_follow_chdir_and_children_inherit_the_cwd() -> None:
    log = _log(
        '1 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 1 var */) = 0',
        '1 chdir("sub") = 0',
        "1 clone(child_stack=NULL, flags=SIGCHLD) = 2",
        '2 unlink("f") = 0',
        '2 rename("a", "/q/b") = 0',
        '1 unlinkat(AT_FDCWD</p/sub>, "g", 0) = -1 EROFS (Read-only file system)',
    )
    trace = parse(log, "/p", ["bash", "-c", "x"])
    got = [(e.call, e.paths, e.ok, e.error) for e in trace.events if e.kind == "write"]
    assert got == [
        ("unlink", ("/p/sub/f",), True, ""),
        ("rename", ("/p/sub/a", "/q/b"), True, ""),
        ("unlinkat", ("/p/sub/g",), False, "EROFS"),
    ]


def test_symlink_following_is_recorded_per_call() -> None:
    log = _log(
        '1 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 1 var */) = 0',
        '1 newfstatat(AT_FDCWD</p>, "docs", {st_mode=S_IFLNK|0777, ...}, AT_SYMLINK_NOFOLLOW) = 0',
        '1 newfstatat(AT_FDCWD</p>, "docs", {st_mode=S_IFDIR|0755, ...}, 0) = 0',
        '1 readlink("docs", "/outside", 4096) = 8',
    )
    trace = parse(log, "/p", ["bash", "-c", "x"])
    assert [e.follows for e in trace.events if e.kind == "stat"] == [False, True, False]


def test_system_reads_and_odd_lines_are_skipped() -> None:
    log = _log(
        '1 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 1 var */) = 0',
        '1 openat(AT_FDCWD</p>, "/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3</usr/lib/c.so>',
        "garbage that is not strace output",
        "1 <... openat resumed>) = 3",
        '1 openat(AT_FDCWD</p>, "/etc/hosts", O_WRONLY|O_TRUNC) = -1 EROFS (Read-only file system)',
    )
    trace = parse(log, "/p", ["bash", "-c", "x"])
    assert [(e.paths, e.writes, e.error) for e in trace.events if e.kind == "open"] == [
        (("/etc/hosts",), True, "EROFS")
    ]


def test_strings_and_arguments() -> None:
    assert unescape('a\\tb\\n\\76\\x41\\\\\\"') == 'a\tb\n>A\\"'
    assert unescape("\\303\\251") == "é"
    args, rest = split_args('AT_FDCWD</a,b>, "x,)", [1, 2], {a=1, b=2} /* c, d */) = 0')
    assert args == ["AT_FDCWD</a,b>", '"x,)"', "[1, 2]", "{a=1, b=2} /* c, d */"] and rest == " = 0"
    assert "execve" in TRACED and "unlinkat" in TRACED and "newfstatat" in TRACED
