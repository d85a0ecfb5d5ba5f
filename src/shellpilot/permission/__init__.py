"""The permission engine: rules, wildcard matching, the read-only set and the ask/reply service.

Owns: the public face of ``shellpilot.permission`` (light imports only: no tree-sitter,
no SDK). Must not touch: shells and terminals; the scanner and prompts live elsewhere.
"""

from shellpilot.permission.defaults import POLICY, default_rules
from shellpilot.permission.events import (
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    Reply,
)
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
