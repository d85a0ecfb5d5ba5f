"""Permission rules: the Rule record, config -> rules, and most-specific-wins evaluation.

Owns: turning a ``permission`` config value into rules and deciding which rule answers a
(permission, pattern) pair. Must not touch: files, the bus, shells; pure functions only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from shellpilot.errors import ConfigError
from shellpilot.permission.wildcard import has_wildcard, literal_count, match

Action = Literal["allow", "ask", "deny"]
Source = Literal["default", "config", "agent", "grant", "none"]

ACTIONS: tuple[Action, ...] = get_args(Action)
_SEVERITY: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class Rule:
    """One rule: for ``permission`` (a wildcard over permission names, e.g. ``bash``,
    ``mcp_*``, ``*``) and ``pattern`` (a wildcard over what is asked, e.g. a command
    text or a ``dir/*`` glob), answer ``action``.

    ``source`` says where it came from: ``default`` (the built-in policy), ``config``
    (the user's files), ``agent`` (an agent's preset or config), ``grant`` (an "always"
    answer) or ``none`` (the synthetic ask returned when nothing matched).
    """

    permission: str
    pattern: str
    action: Action
    source: Source = "config"

    def matches(self, permission: str, pattern: str) -> bool:
        """Do both the permission name and the pattern match this rule's wildcards?"""
        return match(permission, self.permission) and match(pattern, self.pattern)

    @property
    def catch_all(self) -> bool:
        """True for a rule whose pattern is ``*`` (it matches every value)."""
        return self.pattern == "*"


def specificity(rule: Rule) -> tuple[bool, int, int, bool, int]:
    """The sort key of most-specific-wins (bigger wins), in priority order:

    1. an exact permission name (``bash``) beats a wildcard one (``*``, ``mcp_*``);
    2. more literal characters in the permission name (``mcp_*`` beats ``*``);
    3. more literal characters in the pattern (``git status *`` beats ``git *``
       beats ``*``; the space of a trailing `` *`` is not counted);
    4. an exact pattern (no wildcard) beats a wildcard one of the same length;
    5. the stricter action: deny > ask > allow.
    """
    return (
        not has_wildcard(rule.permission),
        literal_count(rule.permission),
        literal_count(rule.pattern),
        not has_wildcard(rule.pattern),
        _SEVERITY[rule.action],
    )


def _pattern_specificity(rule: Rule) -> tuple[int, bool]:
    return literal_count(rule.pattern), not has_wildcard(rule.pattern)


def evaluate(permission: str, pattern: str, rules: Sequence[Rule]) -> Rule:
    """The rule that decides ``pattern`` for ``permission``; its ``action`` is the answer.

    Order-independent (in OpenCode the last matching rule wins): among
    the matching rules the most specific wins (see ``specificity``). Built-in
    ``default`` rules form a lower tier: they decide only when none of the other rules
    (config, agent, grant) matches, or when their *pattern* is strictly more specific
    than the best of those. So ``"permission": "allow"`` overrides the default
    ``bash``/``external_directory`` asks, while the default allow for shellpilot's own
    tool-output folder survives a broad ``"external_directory": "deny"``.
    A grant is an ordinary allow rule: a more specific deny still beats it.
    No match at all -> a synthetic ``Rule(permission, "*", "ask", "none")``.
    """
    best_user: Rule | None = None
    best_default: Rule | None = None
    for rule in rules:
        if not rule.matches(permission, pattern):
            continue
        if rule.source == "default":
            if best_default is None or specificity(rule) > specificity(best_default):
                best_default = rule
        elif best_user is None or specificity(rule) > specificity(best_user):
            best_user = rule
    if best_user is None:
        return best_default or Rule(permission, "*", "ask", "none")
    if best_default is not None and _pattern_specificity(best_default) > _pattern_specificity(best_user):
        return best_default
    return best_user


def merge(*rulesets: Iterable[Rule]) -> list[Rule]:
    """All rules of ``rulesets`` in one list, exact duplicates dropped (order kept).

    Order does not change ``evaluate``'s answer; it only keeps listings stable.
    """
    seen: set[Rule] = set()
    merged: list[Rule] = []
    for ruleset in rulesets:
        for rule in ruleset:
            if rule not in seen:
                seen.add(rule)
                merged.append(rule)
    return merged


def expand_home(pattern: str, home: Path | None = None) -> str:
    """Expand a leading ``~``, ``~/``, ``$HOME`` or ``$HOME/`` to the home directory.

    Only at the start and only as a whole word: ``$HOMEfoo`` and ``~user/x`` stay as
    written (OpenCode expands ``$HOMEfoo`` to ``<home>foo``).
    """
    base = str(home if home is not None else Path(os.path.expanduser("~")))
    for prefix in ("~", "$HOME"):
        if pattern == prefix:
            return base
        if pattern.startswith(prefix + "/"):
            return base.rstrip("/") + pattern[len(prefix) :]
    return pattern


def _action(value: object, where: str) -> Action:
    if isinstance(value, str) and value in ACTIONS:
        return value
    raise ConfigError(f"{where}: expected one of allow, ask, deny; got {value!r}.")


def rules_from_config(
    permission_config: object,
    *,
    source: Source = "config",
    home: Path | None = None,
) -> list[Rule]:
    """Rules from a ``permission`` config value.

    Accepted shapes (``None`` gives no rules):

    - ``"allow"`` | ``"ask"`` | ``"deny"``: one rule ``*`` / ``*`` (sets everything);
    - ``{"edit": "allow"}``: a string value is the pattern ``*``;
    - ``{"bash": {"*": "ask", "git status *": "allow", "rm *": "deny"}}``: one rule per
      entry, patterns home-expanded (``expand_home``).

    Raises ConfigError naming the key when an action or a shape is not valid.
    """
    if permission_config is None:
        return []
    if isinstance(permission_config, str):
        return [Rule("*", "*", _action(permission_config, "permission"), source)]
    if not isinstance(permission_config, Mapping):
        raise ConfigError(
            "permission: expected allow|ask|deny or an object such as "
            '{"bash": {"*": "ask", "git status *": "allow"}}.'
        )
    rules: list[Rule] = []
    for name, value in permission_config.items():
        if not isinstance(name, str) or not name:
            raise ConfigError(f"permission: keys must be non-empty permission names, got {name!r}.")
        if isinstance(value, Mapping):
            for pattern, action in value.items():
                if not isinstance(pattern, str):
                    raise ConfigError(f"permission.{name}: patterns must be strings, got {pattern!r}.")
                checked = _action(action, f"permission.{name}[{pattern!r}]")
                rules.append(Rule(name, expand_home(pattern, home), checked, source))
        else:
            rules.append(Rule(name, "*", _action(value, f"permission.{name}"), source))
    return rules
