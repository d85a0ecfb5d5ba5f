"""Node kinds of the tree-sitter bash grammar, grouped by what the walker does with them.

Owns: the kind-name sets (statements, compound commands, chains, passive nodes).
Must not touch: the walk itself (bash_walk.py).
"""

from __future__ import annotations

SEQUENCE = frozenset({"program", "compound_statement", "do_group", "else_clause", "elif_clause"})
BRANCHY = frozenset(
    {
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
    }
)
STATEMENTS = frozenset(
    {
        "command",
        "redirected_statement",
        "list",
        "pipeline",
        "subshell",
        "negated_command",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
        "test_command",
        *SEQUENCE,
        *BRANCHY,
    }
)
# Statements a redirect written after them applies to as a whole.
COMPOUND = frozenset({"subshell", "compound_statement", "test_command", *BRANCHY})
# Statements whose last element a redirect written after them applies to (bash binds
# `a && b > f` as `a && (b > f)`; tree-sitter puts the redirect on the whole list).
CHAINS = frozenset({"list", "pipeline", "negated_command"})
SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
# Nodes that carry no command of their own (only maybe nested substitutions).
PASSIVE = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "number",
        "simple_expansion",
        "expansion",
        "arithmetic_expansion",
        "brace_expression",
        "variable_name",
        "special_variable_name",
        "string_content",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "postfix_expression",
        "parenthesized_expression",
        "test_operator",
        "extglob_pattern",
        "regex",
        "array",
        "subscript",
        "comment",
        "heredoc_body",
        "heredoc_content",
        "heredoc_start",
        "heredoc_end",
        "file_descriptor",
        "command_name",
    }
)
