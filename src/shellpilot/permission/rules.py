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
Source = Literal["default", "config", "agent", "grant", "project", "command", "none"]

ACTIONS: tuple[Action, ...] = get_args(Action)
_SEVERITY: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class Rule:
    """One rule: for ``permission`` (a wildcard over permission names, e.g. ``bash``,
    ``mcp_*``, ``*``) and ``pattern`` (a wildcard over what is asked, e.g. a command
    text or a ``dir/*`` glob), answer ``action``.

    ``source`` says where it came from and so its standing: ``default`` (the built-in
    policy), ``config`` (the user's files), ``agent`` (an agent's preset or the user's
    agent config), ``grant`` (an "always" answer), ``project`` (the project's own config
    files: they may only tighten, see ``evaluate``), ``command`` (a slash command's
    ``allowed-tools``/``disallowed-tools``, for its own turn only; they stand with the
    user's, but never unblock, see ``evaluate``) or ``none`` (the synthetic ask returned
    when nothing matched).
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


def _over_defaults(best: Rule | None, default: Rule | None) -> Rule | None:
    """``best`` unless the built-in ``default`` rule's pattern is strictly more specific."""
    if best is None:
        return default
    if default is not None and _pattern_specificity(default) > _pattern_specificity(best):
        return default
    return best


def evaluate(permission: str, pattern: str, rules: Sequence[Rule]) -> Rule:
    """The rule that decides ``pattern`` for ``permission``; its ``action`` is the answer.

    Order-independent (in OpenCode the last matching rule wins): among
    matching rules of the same standing the most specific wins (see ``specificity``).
    Three standings:

    - the user's: ``config``, ``agent``, ``grant`` and ``command`` rules. A grant is an
      ordinary allow rule: a more specific deny still beats it. A ``command``
      allow never beats a matching ``config`` or ``agent`` deny, however specific it is:
      a command file may pre-approve, never unblock.
    - the built-in ``default`` rules, a lower tier: they decide only when no rule of the
      user matches, or when their *pattern* is strictly more specific than the best of
      those. So ``"permission": "allow"`` overrides the default ``bash`` and
      ``external_directory`` asks, while the default allow for shellpilot's own
      tool-output folder survives a broad ``"external_directory": "deny"``.
    - the project's (``project``: its own config files) may only tighten: when a user's
      rule also decides, the project's answer (taken over the defaults the same way) wins
      only if it is stricter (deny > ask > allow), or as strict and more specific; a
      project ``ask`` or ``allow`` never replaces the user's ``deny``. With no user rule
      matching, the project's rules stand where the user's would.

    No match at all -> a synthetic ``Rule(permission, "*", "ask", "none")``.
    """
    best: dict[str, Rule] = {}
    owner_deny: Rule | None = None
    for rule in rules:
        if not rule.matches(permission, pattern):
            continue
        owned = rule.action == "deny" and rule.source in ("config", "agent")
        if owned and (owner_deny is None or specificity(rule) > specificity(owner_deny)):
            owner_deny = rule
        tier = rule.source if rule.source in ("default", "project") else "user"
        held = best.get(tier)
        if held is None or specificity(rule) > specificity(held):
            best[tier] = rule
    chosen = best.get("user")
    if chosen is not None and chosen.source == "command" and chosen.action == "allow" and owner_deny:
        best["user"] = owner_deny
    default = best.get("default")
    user = _over_defaults(best.get("user"), default)
    project = best.get("project")
    if project is None:
        return user or Rule(permission, "*", "ask", "none")
    if "user" not in best:
        return _over_defaults(project, default) or project
    assert user is not None
    tighter = _SEVERITY[project.action] > _SEVERITY[user.action]
    as_tight = _SEVERITY[project.action] == _SEVERITY[user.action] and specificity(project) > specificity(
        user
    )
    return project if tighter or as_tight else user


def denies_all(permission: str, rules: Sequence[Rule]) -> bool:
    """True when ``rules`` deny ``permission`` for every pattern: the rule deciding ``*`` is
    a deny and no rule other than a built-in default allows any pattern of it (the plan
    agent's ``"edit": "deny"``). Such an agent's shell commands run in a read-only sandbox."""
    if evaluate(permission, "*", rules).action != "deny":
        return False
    return not any(
        r.action == "allow" and r.source != "default" and match(permission, r.permission) for r in rules
    )


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
