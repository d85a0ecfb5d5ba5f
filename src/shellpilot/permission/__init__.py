"""The permission engine: rules, wildcard matching, the read-only set and the ask/reply service.

Owns: the public face of ``shellpilot.permission``, each name loaded with its module on first
use. Must not touch: shells and terminals; the scanner and prompts live elsewhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shellpilot.exports import lazy

_WHERE = {
    "POLICY": "defaults",
    "default_rules": "defaults",
    "PermissionAsked": "events",
    "PermissionReplied": "events",
    "PermissionRequest": "events",
    "Reply": "events",
    "GrantStore": "grants",
    "grants_path": "grants",
    "READ_ONLY_COMMANDS": "readonly",
    "is_read_only": "readonly",
    "plain_command_text": "readonly",
    "Ask": "request",
    "AskRequest": "request",
    "allow_all": "request",
    "Action": "rules",
    "Rule": "rules",
    "evaluate": "rules",
    "merge": "rules",
    "rules_from_config": "rules",
    "PermissionService": "service",
    "Verdict": "service",
    "check": "service",
    "match": "wildcard",
}

__getattr__, __dir__ = lazy(__name__, _WHERE, globals())

if TYPE_CHECKING:
    from shellpilot.permission.defaults import POLICY, default_rules
    from shellpilot.permission.events import PermissionAsked, PermissionReplied, PermissionRequest, Reply
    from shellpilot.permission.grants import GrantStore, grants_path
    from shellpilot.permission.readonly import READ_ONLY_COMMANDS, is_read_only, plain_command_text
    from shellpilot.permission.request import Ask, AskRequest, allow_all
    from shellpilot.permission.rules import Action, Rule, evaluate, merge, rules_from_config
    from shellpilot.permission.service import PermissionService, Verdict, check
    from shellpilot.permission.wildcard import match

__all__ = [
    "POLICY",
    "READ_ONLY_COMMANDS",
    "Action",
    "Ask",
    "AskRequest",
    "GrantStore",
    "PermissionAsked",
    "PermissionReplied",
    "PermissionRequest",
    "PermissionService",
    "Reply",
    "Rule",
    "Verdict",
    "allow_all",
    "check",
    "default_rules",
    "evaluate",
    "grants_path",
    "is_read_only",
    "match",
    "merge",
    "plain_command_text",
    "rules_from_config",
]
