"""Each format's own placeholder and block rules, as pure substitution (exact strings)."""

from __future__ import annotations

import pytest

from shellpilot.command.layout import layout
from shellpilot.command.model import TemplateSyntax
from shellpilot.command.placeholders import claude_rules
from shellpilot.command.substitution import segments, substitute
from shellpilot.command.values import Variables
from shellpilot.errors import CommandArgumentError

PRICES = "Retainer: $5,000 per month (40 hours @ $125/hr), rush work $1.50 per word."


@pytest.mark.parametrize("syntax", ["shellpilot", "opencode", "claude", "claude-legacy", "codex"])
def test_prices_in_prose_are_never_placeholders(syntax: TemplateSyntax) -> None:
    many = "a b c d e f g h"
    out = substitute(f"Invoice for $ARGUMENTS.\n{PRICES}", many, syntax)
    expected_args = many
    assert out == f"Invoice for {expected_args}.\n{PRICES}"


def test_prices_beside_real_placeholders() -> None:
    template = f"Invoice $1 for $2 hours.\n{PRICES}"
    assert substitute(template, "acme 12", "claude-legacy") == f"Invoice acme for 12 hours.\n{PRICES}"
    assert (
        substitute(template, "acme 12 x y z w", "opencode") == f"Invoice acme for 12 x y z w hours.\n{PRICES}"
    )


SQL_AWK = (
    "Find slow queries on the $ARGUMENTS table.\n\n"
    "```sql\nSELECT * FROM queries WHERE table_name = $1 AND ms > $2;\n```\n\n"
    "Then run `awk '{print $1}' slow.log | sort | uniq -c` and `s.replace(/(\\w+)-(\\w+)/, '$2-$1')`."
)


@pytest.mark.parametrize("syntax", ["shellpilot", "opencode", "claude", "claude-legacy", "codex"])
def test_code_that_uses_dollar_digits_is_left_alone(syntax: TemplateSyntax) -> None:
    out = substitute(SQL_AWK, "orders", syntax)
    assert out == SQL_AWK.replace("$ARGUMENTS", "orders")


def test_code_placeholders_count_when_the_prose_uses_them() -> None:
    template = "Create the branch for $1:\n\n```bash\ngit switch -c feature/$1\n```\nand `gh pr create -t $1`"
    assert substitute(template, "login", "opencode") == template.replace("$1", "login")


def test_code_only_placeholder_means_the_arguments_are_appended() -> None:
    assert substitute("Use `awk '{print $1}'`", "f.txt", "opencode") == "Use `awk '{print $1}'`\n\nf.txt"
    assert (
        substitute("Use `awk '{print $1}'`", "f.txt", "claude")
        == "Use `awk '{print $1}'`\n\nARGUMENTS: f.txt"
    )


def test_spreadsheet_cells_stay() -> None:
    template = "Fix $0 using `=B5*(1+$B$6)` and =A$1, cells in $B$2."
    out = substitute(template, "fix formulas in budget.xlsx", "claude")
    assert out == "Fix fix using `=B5*(1+$B$6)` and =A$1, cells in $B$2."


def test_a_number_that_breaks_the_run_is_text() -> None:
    assert substitute("Take $1, skip $9", "a b", "opencode") == "Take a b, skip $9"
    assert substitute("Only $5 here", "x", "opencode") == "Only $5 here\n\nx"
    assert substitute("$1 and $3", "a b c", "opencode") == "a and c"  # one gap is allowed


# --- Claude Code ---------------------------------------------------------------------------


def test_claude_current_rules() -> None:
    template = "Migrate $0 from $1 to $2 ($ARGUMENTS[0], all: $ARGUMENTS)"
    assert substitute(template, '"search bar" React', "claude") == (
        'Migrate search bar from React to $2 (search bar, all: "search bar" React)'
    )  # a missing one stays as written; nothing takes the rest


def test_claude_legacy_file_numbers_from_one() -> None:
    assert (
        substitute("Review PR #$1 with priority $2", "456 high", "claude-legacy")
        == "Review PR #456 with priority high"
    )
    assert substitute("Deploy $1", "billing --show-secrets", "claude-legacy") == "Deploy billing"


@pytest.mark.parametrize(
    ("body", "named", "expected"),
    [
        ("Review PR #$1 with priority $2", [], "claude-legacy"),
        ("Migrate $0 from $1", [], "claude"),
        ("Use $ARGUMENTS[1] and $1", [], "claude"),
        ("Fix $issue", ["issue"], "claude"),
        ("No placeholders, or `awk '{print $1}'` only", [], "claude"),
        ("Price $5,000", [], "claude"),
    ],
)
def test_which_claude_rules_a_file_follows(body: str, named: list[str], expected: str) -> None:
    assert claude_rules(body, layout(body, "claude"), named) == expected


def test_claude_named_arguments() -> None:
    template = "Migrate $component from $source_framework to $target_framework; not $componentName."
    named = ["component", "source_framework", "target_framework"]
    out = substitute(template, "SearchBar React", "claude", named=named)
    assert out == "Migrate SearchBar from React to $target_framework; not $componentName."


def test_claude_appends_arguments_when_nothing_takes_them() -> None:
    assert substitute("Summarise the diff.", "focus on tests", "claude") == (
        "Summarise the diff.\n\nARGUMENTS: focus on tests"
    )
    assert substitute("Summarise the diff.", "", "claude") == "Summarise the diff."


def test_claude_variables() -> None:
    variables = Variables(plugin_root="/p", skill_dir="/p/skills/pdf", session_id="ses_1")
    template = (
        "Run ${CLAUDE_PLUGIN_ROOT}/x.sh in ${CLAUDE_SKILL_DIR} for ${CLAUDE_SESSION_ID}; ${CLAUDE_EFFORT}"
    )
    assert substitute(template, "", "claude", variables=variables) == (
        "Run /p/x.sh in /p/skills/pdf for ses_1; ${CLAUDE_EFFORT}"
    )
    assert substitute(template, "", "opencode") == template  # not OpenCode's syntax


# --- escapes, single pass ------------------------------------------------------------------


def test_backslash_dollar_escapes_only_where_the_format_allows() -> None:
    assert substitute("Cost \\$1 per $1", "item", "shellpilot") == "Cost $1 per item"
    assert substitute("Cost \\$1 per $1", "item", "opencode") == "Cost \\$1 per item"
    assert substitute("Cost \\$1 per $0", "item", "claude") == "Cost \\$1 per item"


@pytest.mark.parametrize("syntax", ["shellpilot", "opencode", "claude", "claude-legacy", "codex", "gemini"])
@pytest.mark.parametrize(
    "hazard", ["$1", "$0", "$ARGUMENTS", "$&", "{{args}}", "${CLAUDE_SKILL_DIR}", "$FILE"]
)
def test_inserted_text_is_never_expanded_again(syntax: TemplateSyntax, hazard: str) -> None:
    template = {"gemini": "[{{args}}]", "claude": "[$0] [$ARGUMENTS]"}.get(syntax, "[$1] [$ARGUMENTS]")
    out = substitute(template, f"'{hazard}'", syntax, variables=Variables(skill_dir="/s"))
    assert hazard in out and "/s" not in out


# --- blocks per format ----------------------------------------------------------------------


def blocks(template: str, syntax: TemplateSyntax) -> list[str]:
    from shellpilot.command.substitution import BlockSegment

    return [p.command for p in segments(template, "", syntax) if isinstance(p, BlockSegment)]


def test_bang_inside_a_code_span_is_not_a_block() -> None:
    template = (
        "## Errors\n- `#REF!`: Invalid cell references\n- `#DIV/0!`: Division by zero\n"
        "- `#NAME?`: unknown name\n\nFiles: !`ls *.xlsx`\n"
    )
    for syntax in ("shellpilot", "opencode", "claude"):
        assert blocks(template, syntax) == ["ls *.xlsx"]


def test_bang_must_start_a_token() -> None:
    template = "Status:!`git status` (!`date`) [!`pwd`]\n!`whoami` x!`id`"
    assert blocks(template, "claude") == ["date", "pwd", "whoami"]


def test_fenced_code_is_never_run_but_bang_fences_are() -> None:
    template = "```markdown\nStatus: !`git status`\n```\n\n```!\necho one\necho two\n```\n"
    assert blocks(template, "claude") == ["echo one\necho two"]
    assert blocks(template, "shellpilot") == ["echo one\necho two"]
    assert blocks(template, "opencode") == []  # OpenCode has no ```! fences


def test_markdown_has_no_brace_blocks_and_gemini_only_brace_blocks() -> None:
    js = "Why is `if (!{a:1}.b)` false? Also if (!{a:1}.b) here."
    for syntax in ("shellpilot", "opencode", "claude"):
        assert blocks(js, syntax) == []
    gemini = "Explain `$!` and !`date` for {{args}}.\nShell: !{echo {nested} ok}"
    assert blocks(gemini, "gemini") == ["echo {nested} ok"]
    assert blocks("Broken !{echo {x}", "gemini") == []  # unbalanced: text
    assert blocks("Explain `$!` please", "codex") == []


def test_arguments_in_blocks_are_shell_quoted_per_format() -> None:
    assert substitute("!{grep -r {{args}} .}", "a b", "gemini") == "!{grep -r 'a b' .}"
    assert substitute("!`git log $0`", "main", "claude") == "!`git log main`"
    assert substitute("```!\ngit show $ARGUMENTS\n```", "HEAD~1", "claude") == "```!\ngit show HEAD~1\n```"
    assert substitute("!`echo $ARGUMENTS`", "x;rm -rf y", "opencode") == "!`echo $ARGUMENTS`"  # refused


# --- Gemini and Codex -----------------------------------------------------------------------


def test_gemini_appends_the_invocation() -> None:
    assert substitute("Summarise the repo.", "in detail", "gemini", name="repo:sum") == (
        "Summarise the repo.\n\n/repo:sum in detail"
    )


def test_codex_positional_and_dollar_dollar() -> None:
    template = "Review $1 with priority $2; all: $ARGUMENTS; literal $$1 and $10"
    assert substitute(template, '"docs/My File.md" high', "codex") == (
        "Review docs/My File.md with priority high; all: docs/My File.md high; literal $$1 and $10"
    )  # Codex reads one digit: $10 would be "$1" then "0", which no author means
    assert substitute("Review $1 and $2", "only", "codex") == "Review only and "


def test_codex_key_value_arguments() -> None:
    template = "Stage $FILES, then open a PR titled $PR_TITLE. Keep $$FILES. In code: `echo $HOME`."
    out = substitute(template, 'FILES=src/a.py PR_TITLE="Fix the parser"', "codex", name="draftpr")
    assert out == "Stage src/a.py, then open a PR titled Fix the parser. Keep $$FILES. In code: `echo $HOME`."
    with pytest.raises(CommandArgumentError, match="missing PR_TITLE"):
        substitute(template, "FILES=x", "codex", name="draftpr")
    with pytest.raises(CommandArgumentError, match="expected KEY=value but found 'stray'"):
        substitute(template, "FILES=x PR_TITLE=y stray", "codex", name="draftpr")
