"""The parse cache of command files: real files, a real cache file, real concurrent processes."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from shellpilot.command.cache import SETTLED_NS, ParseCache, cache_file
from shellpilot.command.registry import CommandRegistry
from shellpilot.command.sources.markdown import load_markdown_file
from shellpilot.config.model import Config


def settle(*roots: Path) -> None:
    """Give each file (or every file under each folder) an mtime 10 s ago: the cache stores only
    settled files. This changes their ctime too, so they are parsed once more."""
    old = time.time_ns() - 10 * SETTLED_NS
    for root in roots:
        files = [Path(d, n) for d, _, names in os.walk(root) for n in names] if root.is_dir() else [root]
        for file in files:
            os.utime(file, ns=(old, old))


def write_tree(project: Path) -> None:
    shellpilot = project / ".shellpilot" / "command"
    (shellpilot / "git").mkdir(parents=True)
    (shellpilot / "git" / "commit.md").write_text(
        "---\ndescription: Commit it\nagent: build\n---\nCommit $1.\n"
    )
    (shellpilot / "plain.md").write_text("Just $ARGUMENTS")
    (shellpilot / "colon.md").write_text("---\ndescription: has: a colon\n---\nbody\n")  # a warning
    (shellpilot / "broken.md").write_text("---\ndescription: [unclosed\n---\nbody\n")  # skipped
    (shellpilot / "binary.md").write_bytes(b"\xff\xfe\x00 not text")
    claude = project / ".claude" / "commands"
    claude.mkdir(parents=True)
    (claude / "review.md").write_text("---\nargument-hint: [pr]\n---\n# Review the PR\nLook at $ARGUMENTS\n")
    gemini = project / ".gemini" / "commands"
    gemini.mkdir(parents=True)
    (gemini / "ask.toml").write_text('description = "Ask"\nprompt = "Answer {{args}}"\n')
    settle(project)


def read_cache(file: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and the body of a cache file."""
    head, _, body = file.read_bytes().partition(b"\n")
    return json.loads(head), marshal.loads(body)


def load(project: Path, data: Path) -> tuple[CommandRegistry, ParseCache]:
    cache = ParseCache.for_project(data, project)
    registry = CommandRegistry(project, Config(), config_dir=project / "no-user-config", cache=cache)
    registry.load_files()
    return registry, cache


def listing(registry: CommandRegistry) -> tuple[list[object], list[str]]:
    names = registry.load_files()
    return [names[n] for n in sorted(names)], [str(w) for w in registry.warnings]


@pytest.fixture
def tree(project: Path) -> Path:
    write_tree(project)
    return project


def test_a_warm_cache_gives_what_parsing_gives(tree: Path, tmp_path: Path) -> None:
    plain = CommandRegistry(tree, Config(), config_dir=tree / "no-user-config")
    cold, first = load(tree, tmp_path / "data")
    warm, second = load(tree, tmp_path / "data")
    assert first.misses == 7 and first.hits == 0
    assert second.hits == 7 and second.misses == 0
    assert listing(warm) == listing(cold) == listing(plain)
    assert any("colon" in w for w in listing(warm)[1]) and any("broken" in w for w in listing(warm)[1])
    assert first.file == cache_file(tmp_path / "data", tree) and first.file.exists()


def test_a_changed_added_or_removed_file_is_seen(tree: Path, tmp_path: Path) -> None:
    load(tree, tmp_path / "data")
    commit = tree / ".shellpilot" / "command" / "git" / "commit.md"
    commit.write_text(commit.read_text().replace("Commit it", "Commit XY"))  # same size, new mtime
    (tree / ".shellpilot" / "command" / "plain.md").unlink()
    (tree / ".shellpilot" / "command" / "new.md").write_text("New $1")
    settle(commit, tree / ".shellpilot" / "command" / "new.md")  # old mtimes: stored again
    registry, cache = load(tree, tmp_path / "data")
    names = registry.load_files()
    assert names["git/commit"].description == "Commit XY"
    assert "plain" not in names and names["new"].template == "New $1"
    assert cache.misses == 2 and cache.hits == 5
    _, saved = read_cache(cache.file)
    files = [key for group in saved.values() for key in group]
    assert len(files) == 7 and not any("plain.md" in key for key in files)  # gone files leave


def test_a_file_changed_in_place_with_the_same_size_and_mtime_is_seen(tree: Path, tmp_path: Path) -> None:
    # The ctime is part of the key: restoring the mtime after an edit does not hide it.
    load(tree, tmp_path / "data")
    commit = tree / ".shellpilot" / "command" / "git" / "commit.md"
    before = commit.stat()
    commit.write_text(commit.read_text().replace("Commit it", "Commit XY"))
    os.utime(commit, ns=(before.st_atime_ns, before.st_mtime_ns))
    registry, _ = load(tree, tmp_path / "data")
    assert registry.load_files()["git/commit"].description == "Commit XY"


@pytest.mark.parametrize(
    "damage",
    [
        "empty",
        "not json",
        "a flipped byte",
        "truncated",
        "entries of the wrong shape",
        "not utf-8",
        "a header that is not an object",
        "no header line",
    ],
)
def test_a_damaged_cache_file_is_ignored_and_rewritten(tree: Path, tmp_path: Path, damage: str) -> None:
    _, first = load(tree, tmp_path / "data")
    good = first.file.read_bytes()
    header = json.loads(good.partition(b"\n")[0])
    wrong = marshal.dumps({"g": {"k": {"stamp": 1}}, "h": [1, 2]})
    damaged = {
        "empty": b"",
        "not json": b"{not json\n[",
        "a flipped byte": good[:-10] + bytes([good[-10] ^ 0x20]) + good[-9:],
        "truncated": good[: len(good) // 2],
        "entries of the wrong shape": json.dumps({**header, "crc": zlib.crc32(wrong)}).encode()
        + b"\n"
        + wrong,
        "not utf-8": b"\xff\xfe\n\xff",
        "a header that is not an object": b"[3]\n" + good.partition(b"\n")[2],
        "no header line": good.partition(b"\n")[2],
    }[damage]
    first.file.write_bytes(damaged)
    registry, cache = load(tree, tmp_path / "data")
    assert cache.misses == 7 and listing(registry)[0] == listing(load(tree, tmp_path / "fresh")[0])[0]
    assert load(tree, tmp_path / "data")[1].hits == 7  # rewritten whole


def test_a_cache_written_by_other_code_is_not_reused(tree: Path, tmp_path: Path) -> None:
    _, first = load(tree, tmp_path / "data")
    header, body = read_cache(first.file)
    header["code"][0][1] += 1  # as if a parser module had changed
    first.file.write_bytes(json.dumps(header).encode() + b"\n" + marshal.dumps(body))
    assert load(tree, tmp_path / "data")[1].misses == 7


def test_a_cache_written_by_another_python_is_not_reused(tree: Path, tmp_path: Path) -> None:
    """The body is marshal data, whose format belongs to one Python version."""
    _, first = load(tree, tmp_path / "data")
    header, body = read_cache(first.file)
    data = marshal.dumps(body)
    header["python"] = [3, header["python"][1] + 1]
    first.file.write_bytes(json.dumps(header).encode() + b"\n" + data)
    assert load(tree, tmp_path / "data")[1].misses == 7
    assert load(tree, tmp_path / "data")[1].hits == 7  # rewritten for this Python


def test_the_json_cache_of_earlier_versions_is_removed_on_save(tree: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    old = cache_file(data, tree).with_suffix(".json")
    old.parent.mkdir(parents=True)
    old.write_text('{"version": 3}\n{}')
    _, cache = load(tree, data)
    cache.save()
    assert cache.file.exists() and not old.exists()


def test_the_parser_and_its_arguments_are_part_of_the_key(tree: Path, tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache.json")
    parse = cache.wrap(load_markdown_file)
    path = tree / ".claude" / "commands" / "review.md"
    as_claude = parse("review", path, "claude")
    as_shellpilot = parse("review", path, "shellpilot")
    assert as_claude.commands[0].description == "Review the PR"  # Claude: the first line
    assert as_shellpilot.commands[0].description is None
    assert parse("review", path, "claude") == as_claude and cache.misses == 2 and cache.hits == 1


def test_an_unwritable_data_dir_still_lists(tree: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data dir should be")
    registry, cache = load(tree, blocker)
    assert len(listing(registry)[0]) >= 6 and not cache.file.exists()


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from shellpilot.command.cache import ParseCache
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.config.model import Config

    project, data, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    for n in range(rounds):
        cache = ParseCache.for_project(data, project)
        cache._changed = True  # write every round, to race the other writers
        CommandRegistry(project, Config(), config_dir=project / "none", cache=cache).load_files()
    """
)


def test_concurrent_writers_never_leave_a_broken_file(tree: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    target = cache_file(data, tree)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tree), str(data), "15"]) for _ in range(3)]
    seen = 0
    while any(w.poll() is None for w in writers):
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            continue
        head, _, body = raw.partition(b"\n")  # every read is one whole file, never half of one
        assert json.loads(head)["crc"] == zlib.crc32(body)
        assert sum(len(group) for group in marshal.loads(body).values()) == 7
        seen += 1
    assert all(w.wait() == 0 for w in writers)
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".tmp-")]  # no leftovers
    assert load(tree, data)[1].hits == 7 and seen > 0


def test_a_parse_that_depends_on_folders_above_the_file_is_not_reused(project: Path, tmp_path: Path) -> None:
    commands = project / "plugin" / "commands"
    commands.mkdir(parents=True)
    (commands / "run.md").write_text("Run ${CLAUDE_PLUGIN_ROOT}/tool.sh $ARGUMENTS\n")
    settle(commands)
    cache = ParseCache(tmp_path / "cache.json")
    parse = cache.wrap(load_markdown_file)
    first = parse("run", commands / "run.md", "claude")
    assert first.commands[0].plugin_root == str(project / "plugin")
    (project / ".claude-plugin").mkdir()  # the plugin's root is now the project itself
    again = parse("run", commands / "run.md", "claude")
    assert again.commands[0].plugin_root == str(project) and cache.hits == 0


def test_a_file_written_just_now_is_parsed_until_it_settles(tree: Path, tmp_path: Path) -> None:
    # File times are coarse: a second write within the same tick could keep size, mtime and
    # ctime. So a file is stored only once its mtime is SETTLED_NS old at the time it is read.
    load(tree, tmp_path / "data")
    fresh = tree / ".shellpilot" / "command" / "fresh.md"
    fresh.write_text("Fresh $1")
    for _ in range(2):
        registry, cache = load(tree, tmp_path / "data")
        assert cache.misses == 1 and cache.hits == 7  # parsed each time, never stored
        assert registry.load_files()["fresh"].template == "Fresh $1"
    _, saved = read_cache(cache.file)
    assert not any("fresh.md" in key for group in saved.values() for key in group)
    fresh.write_text("Fresh $2")  # the same size, within the same second
    assert load(tree, tmp_path / "data")[0].load_files()["fresh"].template == "Fresh $2"
    settle(fresh)
    assert load(tree, tmp_path / "data")[1].misses == 1  # settled now: parsed once, stored
    assert load(tree, tmp_path / "data")[1].hits == 8


def test_revived_commands_equal_parsed_ones_and_own_their_lists(tree: Path, tmp_path: Path) -> None:
    load(tree, tmp_path / "data")
    registry, cache = load(tree, tmp_path / "data")
    registry.reload()
    names = registry.load_files()  # the same entries revived twice in one process
    assert cache.hits == 14 and cache.misses == 0
    plain = CommandRegistry(tree, Config(), config_dir=tree / "no-user-config").load_files()
    assert names == plain  # every field, defaults included
    first = load(tree, tmp_path / "data")[0].load_files()["git/commit"]
    assert first.hints == names["git/commit"].hints and first.hints is not names["git/commit"].hints


def test_a_damaged_entry_is_parsed_again_and_listed_once(tree: Path, tmp_path: Path) -> None:
    _, first = load(tree, tmp_path / "data")
    header, body = read_cache(first.file)
    entries = {key: raw for group in body.values() for key, raw in group.items()}
    colon = next(raw for key, raw in entries.items() if "colon.md" in key)
    colon[4] = [["a warning without its line"]]  # its command revives, its warning does not
    commit = next(raw for key, raw in entries.items() if "commit.md" in key)
    commit[3][0]["not_a_field"] = 1
    data = marshal.dumps(body)
    first.file.write_bytes(json.dumps({**header, "crc": zlib.crc32(data)}).encode() + b"\n" + data)
    registry, cache = load(tree, tmp_path / "data")
    assert cache.misses == 2 and cache.hits == 5
    plain = CommandRegistry(tree, Config(), config_dir=tree / "no-user-config")
    assert listing(registry) == listing(plain)  # no command twice, every warning once
