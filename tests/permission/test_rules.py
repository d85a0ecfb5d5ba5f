"""Rules: config -> rules, most-specific-wins evaluation in any key order, defaults."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from shellpilot.errors import ConfigError
from shellpilot.permission.defaults import default_rules
from shellpilot.permission.rules import Rule, evaluate, expand_home, merge, rules_from_config

HOME = Path("/home/u")


def _all_orders(config: dict[str, str]) -> list[dict[str, str]]:
    return [dict(order) for order in itertools.permutations(config.items())]


@pytest.mark.parametrize(
    ("bash", "command", "expected"),
    [
        ({"git *": "allow", "*": "ask"}, "git status", "allow"),
        ({"git *": "allow", "*": "ask"}, "ls", "ask"),
        ({"*": "ask", "git status *": "allow", "rm *": "deny"}, "git status --short", "allow"),
        ({"*": "ask", "git status *": "allow", "rm *": "deny"}, "rm -rf build", "deny"),
        ({"*": "ask", "git status *": "allow", "rm *": "deny"}, "git push", "ask"),
        ({"*": "ask", "git status *": "allow", "rm *": "deny"}, "rmdir x", "ask"),
        ({"rm *": "allow", "rm -rf *": "deny"}, "rm -rf /", "deny"),
        ({"rm *": "allow", "rm -rf *": "deny"}, "rm x", "allow"),
        ({"git *": "deny", "git status *": "allow"}, "git status", "allow"),
        ({"git *": "deny", "git status *": "allow"}, "git commit", "deny"),
        ({"ls": "deny", "ls *": "allow"}, "ls", "deny"),  # exact pattern beats "ls *"
        ({"ls": "allow", "ls *": "deny"}, "ls", "allow"),
        ({"ls": "allow", "ls *": "deny"}, "ls -la", "deny"),
        ({"npm run *": "allow", "npm *": "ask", "*": "deny"}, "npm run dev", "allow"),
        ({"npm run *": "allow", "npm *": "ask", "*": "deny"}, "npm install", "ask"),
        ({"npm run *": "allow", "npm *": "ask", "*": "deny"}, "curl x", "deny"),
        ({"a?c": "allow", "abc": "deny"}, "abc", "deny"),
        ({"git ?tatus": "deny", "git s?atus": "allow"}, "git status", "deny"),  # tie -> stricter
        ({"*": "allow"}, "anything at all", "allow"),
    ],
)
def test_most_specific_wins_in_every_key_order(bash: dict[str, str], command: str, expected: str) -> None:
    for order in _all_orders(bash):
        rules = rules_from_config({"bash": order})
        assert evaluate("bash", command, rules).action == expected, order
        assert evaluate("bash", command, list(reversed(rules))).action == expected, order


@pytest.mark.parametrize(
    ("config", "permission", "expected"),
    [
        ({"*": "deny", "bash": "allow"}, "bash", "allow"),  # exact name beats "*"
        ({"*": "allow", "bash": "deny"}, "bash", "deny"),
        ({"*": "allow", "bash": "deny"}, "edit", "allow"),
        ({"*": "deny", "mcp_*": "allow"}, "mcp_github", "allow"),  # mcp_* beats *
        ({"mcp_*": "allow", "mcp_github": "ask"}, "mcp_github", "ask"),
        ({"mcp_*": "allow", "mcp_github": "ask"}, "mcp_other", "allow"),
        ({"edit": "allow"}, "bash", "ask"),  # no rule -> ask
    ],
)
def test_permission_names_in_every_key_order(config: dict[str, str], permission: str, expected: str) -> None:
    for order in _all_orders(config):
        assert evaluate(permission, "x", rules_from_config(order)).action == expected, order


def test_exact_permission_beats_a_more_literal_pattern_under_a_wildcard_name() -> None:
    rules = rules_from_config({"*": {"git status *": "deny"}, "bash": {"*": "allow"}})
    assert evaluate("bash", "git status", rules).action == "allow"


def test_no_match_is_a_synthetic_ask() -> None:
    decided = evaluate("bash", "ls", [])
    assert decided == Rule("bash", "*", "ask", "none")
    assert decided.catch_all


def test_string_permission_sets_everything() -> None:
    rules = rules_from_config("allow")
    assert rules == [Rule("*", "*", "allow", "config")]
    assert evaluate("external_directory", "/etc/*", rules).action == "allow"


def test_string_value_means_pattern_star_and_source_is_kept() -> None:
    rules = rules_from_config({"edit": "deny", "bash": {"ls *": "allow"}}, source="agent")
    assert rules == [Rule("edit", "*", "deny", "agent"), Rule("bash", "ls *", "allow", "agent")]
    assert rules_from_config(None) == []


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("~", "/home/u"),
        ("~/", "/home/u/"),
        ("~/.ssh/*", "/home/u/.ssh/*"),
        ("$HOME", "/home/u"),
        ("$HOME/x/*", "/home/u/x/*"),
        ("$HOMEfoo", "$HOMEfoo"),  # not a whole word: left alone
        ("~user/x", "~user/x"),
        ("cat ~/x", "cat ~/x"),  # only at the start
        ("/tmp/*", "/tmp/*"),
    ],
)
def test_home_expansion(pattern: str, expanded: str) -> None:
    assert expand_home(pattern, HOME) == expanded
    rules = rules_from_config({"external_directory": {pattern: "deny"}}, home=HOME)
    assert rules[0].pattern == expanded


def test_home_expansion_defaults_to_the_real_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/somewhere/else")
    assert rules_from_config({"external_directory": {"~/x": "deny"}})[0].pattern == "/somewhere/else/x"


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ("maybe", "permission"),
        ({"bash": "yes"}, "permission.bash"),
        ({"bash": {"rm *": "nope"}}, "rm *"),
        ({"bash": {"rm *": 1}}, "rm *"),
        (["allow"], "expected allow|ask|deny"),
        ({"": "allow"}, "non-empty"),
    ],
)
def test_bad_config_names_the_key(config: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        rules_from_config(config)
    assert fragment in str(caught.value)


def test_merge_concatenates_and_drops_exact_duplicates() -> None:
    a = [Rule("bash", "*", "ask"), Rule("bash", "ls *", "allow")]
    b = [Rule("bash", "*", "ask"), Rule("bash", "rm *", "deny")]
    assert merge(a, b) == [a[0], a[1], b[1]]


def test_config_deny_beats_a_broader_grant() -> None:
    rules = merge(rules_from_config({"bash": {"rm -rf *": "deny"}}), [Rule("bash", "rm *", "allow", "grant")])
    assert evaluate("bash", "rm -rf /", rules).action == "deny"
    assert evaluate("bash", "rm foo", rules).action == "allow"


# --- defaults beneath user rules ---------------------------------------------------------

DATA = Path("/data/sp")


def test_default_policy_asks_for_bash_and_outside_dirs() -> None:
    rules = default_rules(DATA)
    assert evaluate("bash", "ls", rules) == Rule("bash", "*", "ask", "default")
    assert evaluate("external_directory", "/etc/*", rules).action == "ask"
    assert evaluate("external_directory", "/data/sp/tool-output/*", rules).action == "allow"
    # edit is allowed by default: the shell tool asks it for the files a command writes,
    # which bash and external_directory already decide for the default agent.
    assert evaluate("edit", "x.py", rules) == Rule("edit", "*", "allow", "default")
    assert evaluate("webfetch", "https://x", rules).action == "ask"  # anything else asks


@pytest.mark.parametrize(
    ("config", "permission", "pattern", "expected"),
    [
        ("allow", "bash", "rm -rf /", "allow"),  # "permission": "allow" sets everything
        ("allow", "external_directory", "/etc/*", "allow"),
        ({"bash": "allow"}, "bash", "git push", "allow"),
        ({"bash": {"git *": "allow"}}, "bash", "git status", "allow"),
        ({"bash": {"git *": "allow"}}, "bash", "curl x", "ask"),  # falls back to the default
        ({"external_directory": "deny"}, "external_directory", "/etc/*", "deny"),
        # shellpilot's own output folder stays readable under a broad deny ...
        ({"external_directory": "deny"}, "external_directory", "/data/sp/tool-output/*", "allow"),
        ("deny", "external_directory", "/data/sp/tool-output/*", "allow"),
        # ... unless the user denies that exact glob.
        (
            {"external_directory": {"/data/sp/tool-output/*": "deny"}},
            "external_directory",
            "/data/sp/tool-output/*",
            "deny",
        ),
    ],
)
def test_user_rules_over_defaults(config: object, permission: str, pattern: str, expected: str) -> None:
    rules = merge(default_rules(DATA), rules_from_config(config))
    assert evaluate(permission, pattern, rules).action == expected
    assert evaluate(permission, pattern, list(reversed(rules))).action == expected


# --- project rules only tighten --------------------------------------------------------

_PROJECT_CASES = [
    # (user config, project config, pattern, expected)
    ({"bash": {"rm *": "deny"}}, {"bash": {"rm *": "ask"}}, "rm -rf src", "deny"),
    ({"bash": {"rm *": "deny"}}, {"bash": {"rm *": "allow"}}, "rm -rf src", "deny"),
    ({"bash": {"rm *": "deny"}}, {"bash": {"rm -rf *": "allow"}}, "rm -rf src", "deny"),  # more specific
    ({"bash": {"rm *": "deny"}}, {"bash": "allow"}, "rm x", "deny"),
    ({"bash": "allow"}, {"bash": {"rm *": "deny"}}, "rm x", "deny"),  # tightening works
    ({"bash": "allow"}, {"bash": {"rm *": "deny"}}, "ls", "allow"),
    ({"bash": {"git *": "allow"}}, {"bash": {"git push *": "ask"}}, "git push", "ask"),
    ({"bash": {"git *": "allow"}}, {"bash": {"git push *": "ask"}}, "git log", "allow"),
    ({"bash": "ask"}, {"bash": {"npm test *": "allow"}}, "npm test", "ask"),  # no loosening
    (None, {"bash": {"npm test *": "allow"}}, "npm test", "allow"),  # over the defaults only
    (None, {"bash": {"rm *": "deny"}}, "rm x", "deny"),
    (None, {"bash": {"ls *": "ask"}}, "ls", "ask"),
]


@pytest.mark.parametrize(("user", "project", "pattern", "expected"), _PROJECT_CASES)
def test_project_rules_only_tighten(user: object, project: object, pattern: str, expected: str) -> None:
    rules = merge(
        default_rules(Path("/data")),
        rules_from_config(user),
        rules_from_config(project, source="project"),
    )
    for order in (rules, list(reversed(rules))):
        assert evaluate("bash", pattern, order).action == expected


def test_a_project_never_loosens_an_agent_or_a_grant_by_a_looser_answer() -> None:
    plan = rules_from_config({"edit": "deny"}, source="agent")
    project = rules_from_config({"edit": "allow", "bash": {"npm *": "ask"}}, source="project")
    grant = [Rule("bash", "npm test *", "allow", "grant")]
    rules = merge(default_rules(Path("/data")), plan, grant, project)
    assert evaluate("edit", "src/a.py", rules).action == "deny"
    assert evaluate("bash", "npm test", rules).action == "ask"  # the project asks for npm
    decided = evaluate("bash", "npm test", rules)
    assert decided.source == "project" and decided.pattern == "npm *"


def test_a_project_ask_for_one_command_is_obeyed_over_a_user_catch_all() -> None:
    """As strict and more specific: the project's rule decides, so the read-only allowance
    (which needs a catch-all ask) no longer applies to ``ls``."""
    rules = merge(
        rules_from_config({"bash": "ask"}), rules_from_config({"bash": {"ls *": "ask"}}, source="project")
    )
    decided = evaluate("bash", "ls -la", rules)
    assert decided.action == "ask" and not decided.catch_all
