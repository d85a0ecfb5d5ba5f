"""Which git invocations only read: status, log, show, diff, branch (listing), rev-parse, ls-files.

Owns: git's global options and the per-subcommand allow-lists of harmless flags.
Must not touch: other commands (``readonly.py``) or running git.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from shellpilot.permission.flags import FlagSpec, Parsed, parse, words

Inside = Callable[[str], bool]

# Global options allowed before the subcommand. Not allowed: -c/--config-env (config,
# e.g. core.pager or core.fsmonitor runs a program), --git-dir/--work-tree/--namespace
# (another repository), --exec-path (other git programs), -p/--paginate (runs a pager),
# --bare, --super-prefix, and anything unknown. ``-C DIR`` only inside the project.
_GLOBAL = words(
    "--no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs "
    "--icase-pathspecs --no-replace-objects --no-lazy-fetch"
)

_HISTORY = FlagSpec(
    short="pusRawbWlziEFPgcmtrDMCB",
    short_value="nSGL",
    short_optional="U",  # (`-U` alone is 3 lines; `-U /x` diffs /x outside the repository)
    long=words(
        "--oneline --graph --all --reverse --first-parent --merges --no-merges --follow "
        "--abbrev-commit --no-abbrev-commit --no-abbrev --relative-date --name-only --name-status "
        "--left-right --cherry-pick --cherry-mark --cherry --boundary --ancestry-path "
        "--simplify-by-decoration --source --walk-reflogs --topo-order --date-order "
        "--author-date-order --no-decorate --no-color --mailmap --use-mailmap --no-use-mailmap "
        "--log-size --parents --children --full-history --dense --sparse --simplify-merges "
        "--show-pulls --patch --no-patch --raw --patch-with-raw --patch-with-stat --numstat "
        "--shortstat --summary --compact-summary --full-index --binary --no-renames --text "
        "--minimal --patience --histogram --no-prefix --default-prefix --function-context "
        "--exit-code --quiet --cached --staged --merge-base --ignore-all-space "
        "--ignore-space-change --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol "
        "--irreversible-delete --pickaxe-all --pickaxe-regex --invert-grep --regexp-ignore-case "
        "--basic-regexp --extended-regexp --fixed-strings --perl-regexp --all-match --no-notes "
        "--combined-all-paths --cc --remerge-diff --no-relative --check --not --ignore-missing "
        "--reflog --single-worktree --no-expand-tabs --no-ext-diff --no-textconv "
        "--no-min-parents --no-max-parents --do-walk --no-color-moved --no-color-moved-ws "
        "--indent-heuristic --no-indent-heuristic --no-walk --no-stat --no-mailmap"
    ),
    long_value=words(
        "--format --date --since --after --until --before --author --committer --grep --max-count "
        "--skip --word-diff-regex --diff-filter --diff-algorithm --src-prefix --dst-prefix "
        "--line-prefix --inter-hunk-context --encoding --stat-width --stat-name-width "
        "--stat-count --stat-graph-width --min-parents --max-parents --glob --exclude "
        "--decorate-refs --decorate-refs-exclude --color-moved-ws --anchored --since-as-filter"
    ),
    long_optional=words(
        "--unified --pretty --abbrev --decorate --color --stat --dirstat --word-diff --find-renames "
        "--find-copies --break-rewrites --relative --submodule --ignore-submodules --notes "
        "--color-moved --color-words --branches --tags --remotes --expand-tabs "
        "--show-linear-break --diff-merges --find-copies-harder"
    ),
    numeric=True,
)  # not: --output (writes a file), --ext-diff / --textconv (run configured programs),
#    --no-index (compares arbitrary files), -O (reads an order file), --show-signature (gpg)

_STATUS = FlagSpec(
    short="sbvzu",
    long=words(
        "--short --branch --show-stash --long --verbose --null --no-column --ahead-behind "
        "--no-ahead-behind --renames --no-renames"
    ),
    long_optional=words(
        "--porcelain --untracked-files --ignore-submodules --ignored --column --find-renames"
    ),
)

_BRANCH = FlagSpec(
    short="arlvqi",
    long=words(
        "--all --remotes --list --verbose --quiet --show-current --no-color --no-column "
        "--ignore-case --omit-empty --no-abbrev"
    ),
    long_value=words("--sort --format"),
    long_optional=words(
        "--color --column --abbrev --contains --no-contains --merged --no-merged --points-at"
    ),
)  # not: -d -D -m -M -c -C -f -u -t --delete --move --copy --force --set-upstream-to ...
_BRANCH_COMMIT_FLAGS = ("--contains", "--no-contains", "--merged", "--no-merged", "--points-at")

_PLUMBING = FlagSpec(any_flag=True)  # rev-parse / ls-files have no writing options

_OPTIONAL_ATTACHED = re.compile(r"-([MCBl])[0-9%]*")
_LEADING_GLOB = re.compile(r"[*?\[]")


def _normalize(args: list[str], pattern: re.Pattern[str]) -> list[str]:
    """Fold options with an optional attached value (``-M50%``, ``-uno``) to their letter."""
    out = []
    for arg in args:
        hit = pattern.fullmatch(arg)
        out.append("-" + hit.group(1) if hit else arg)
    return out


def _branch_args(args: list[str]) -> list[str]:
    """``--merged X`` -> ``--merged=X`` so the commit is not read as a new branch name."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _BRANCH_COMMIT_FLAGS and i + 1 < len(args) and not args[i + 1].startswith("-"):
            out.append(f"{arg}={args[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def _sub_parse(sub: str, args: list[str]) -> Parsed | None:
    if sub in ("log", "show", "diff", "shortlog"):
        return parse(_normalize(args, _OPTIONAL_ATTACHED), _HISTORY)
    if sub == "status":
        return parse(_normalize(args, re.compile(r"-(u)\w*")), _STATUS)
    if sub == "branch":
        parsed = parse(_branch_args(args), _BRANCH)
        if parsed is not None and parsed.operands and not parsed.has("-l", "--list"):
            return None  # `git branch NAME` creates a branch
        return parsed
    if sub in ("rev-parse", "ls-files"):
        return parse(args, _PLUMBING)
    return None


def is_read_only_git(
    args: list[str],
    inside: Inside,
    plain_repo: Callable[[list[str]], bool] | None = None,
    top_inside: Callable[[list[str]], bool] | None = None,
) -> bool:
    """True when ``git <args>`` only reads the repository (``args`` excludes ``git``).

    ``plain_repo(dirs)``, when given, is asked with the global ``-C`` directories (in
    order, each relative to the one before) whether the repository git will use has a
    config that runs no program (readonly.py, gitconfig.py). ``top_inside(dirs)``, when
    given, says whether that repository's top level is inside the project; when it is
    not (a monorepo folder, a dotfiles repository in ``$HOME``), operands that name a
    file by the repository's top (``REV:path``, ``:path``, pathspec magic ``:/``,
    ``:(top)``) or climb above the cwd (``REV:../x``) and ``-L`` ranges make it ask.
    Pretty formats with a signature placeholder (``%G?``, ``%GS``...: git runs gpg)
    make it ask anywhere.

    ``inside(path)`` says whether a path stays in the project (symlinks resolved); it
    bounds ``-C`` directories and every operand, revisions included (``HEAD~1`` reads as
    a path inside): git silently compares plain files (``--no-index``) when a path is
    outside the repository, so ``git diff /tmp/x README`` must ask. ``--no-index`` itself
    is refused anywhere. Operands that start with a glob character before ``--`` are
    refused: the shell may expand them to file names such as ``--output=x`` that git
    would read as options.
    """
    if "--no-index" in args:
        return False
    dirs: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _GLOBAL:
            i += 1
        elif arg == "-C":
            if i + 1 >= len(args) or not inside(args[i + 1]):
                return False
            dirs.append(args[i + 1])
            i += 2
        elif arg.startswith("-"):
            return False
        else:
            break
    if i >= len(args) or (plain_repo is not None and not plain_repo(dirs)):
        return False
    if not _read_files_inside(args[i + 1 :], inside):
        return False
    if any(_SIGNATURE_FORMAT.search(arg) for arg in args[i + 1 :]):
        return False
    parsed = _sub_parse(args[i], args[i + 1 :])
    if parsed is None:
        return False
    before = [op for op in parsed.operands if op not in parsed.after_dashdash]
    if any(_LEADING_GLOB.match(op) or "`" in op for op in before):
        return False
    if not all(_operand_inside(op, dirs, inside) for op in parsed.operands):
        return False
    if top_inside is None or top_inside(dirs):
        return True
    return not parsed.has("-L") and all(_names_no_file_by_top(op, dirs, inside) for op in parsed.operands)


_SIGNATURE_FORMAT = re.compile(r"%[-+ ]?G|%\(signature")
"""A pretty-format placeholder that verifies a signature (``%G?``, ``%+GS``, ``%GK``...;
``%(signature...)`` of newer git's ref formats): git runs gpg (or ssh-keygen) for it."""

_STAGE = re.compile(r":[0-3]:")


def _names_no_file_by_top(operand: str, dirs: list[str], inside: Inside) -> bool:
    """For a repository whose top is outside the project: an operand with no ``:`` is a
    revision or a cwd-relative path (checked elsewhere). ``REV:./path``, ``REV:../path``
    and ``:[N:]./path`` name a file relative to the cwd, which must stay inside; any other
    ``:`` form names one relative to the top (``HEAD:secret``, ``:/``, ``:(top)x``,
    ``:!x``) or cannot be told apart (a ``:`` inside ``^{...}``)."""
    if ":" not in operand:
        return True
    if "{" in operand:
        return False
    stage = _STAGE.match(operand)
    path = operand[stage.end() :] if stage else operand.partition(":")[2]
    if path not in (".", "..") and not path.startswith(("./", "../")):
        return False
    return _operand_inside(path, dirs, inside)


# Options of the read-only subcommands whose value is a file git reads (rev-parse and
# ls-files accept any flag: these must still name files inside the project).
_FILE_OPTIONS = ("--exclude-from", "--pathspec-from-file", "--resolve-git-dir", "--file", "--template")
_FILE_LETTERS = ("-X", "-F")


def _read_files_inside(args: list[str], inside: Inside) -> bool:
    """Every file an option reads (`--exclude-from=F`, `-X F`, `-XF`) stays inside."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name in _FILE_OPTIONS or arg in _FILE_LETTERS:
            if not eq:
                value = args[i + 1] if i + 1 < len(args) else ""
            if not inside(value):
                return False
        elif arg[:2] in _FILE_LETTERS and len(arg) > 2 and not inside(arg[2:]):
            return False
    return True


def _operand_inside(operand: str, dirs: list[str], inside: Inside) -> bool:
    """A path operand stays inside from the cwd and from every ``-C`` directory in turn."""
    if not inside(operand):
        return False
    joined = ""
    for folder in dirs:
        joined = os.path.join(joined, folder)
        if not inside(os.path.join(joined, operand)):
            return False
    return True
