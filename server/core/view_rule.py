"""A view's select list, read from its stored rule (`pg_rewrite.ev_action`, a pg_node_tree).

Each output column of a view records the table column it comes straight from
(`resorigtbl`, `resorigcol`): how PostgREST, postgres-meta after it, and here both the REST
schema cache and the type generator know which keys a view carries. Only the outermost
query's target list says so: PostgreSQL has already traced those fields through subqueries
and CTEs in FROM, and left them 0 for expressions, set operations and scalar subqueries.

The text is PostgreSQL's node output format: `{NODE :field value ...}` nodes, `(...)`
lists, `<>` for NULL, backslash escapes inside tokens.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("supalite.db")


@dataclass(frozen=True)
class TargetEntry:
    resno: int  # the view's column number
    origin_table: int  # the relation it comes straight from; 0: not a plain column
    origin_column: int


def target_entries(action: str) -> list[TargetEntry]:
    """The outermost query's select list (junk entries left out); empty when the rule cannot
    be read. Numbers, not names: a column renamed by ALTER VIEW keeps its number, while the
    rule keeps the old name."""
    try:
        rule = parse(action)
    except ValueError:
        log.warning("unreadable view rule: its columns get no lineage")
        return []
    query = rule[0] if isinstance(rule, list) and rule else None
    out = []
    for entry in _field(query, "targetList") or []:
        numbers = [_field(entry, key) for key in ("resno", "resorigtbl", "resorigcol")]
        if _field(entry, "resjunk") != "false" or not all(isinstance(v, str) and v.isascii() and v.isdigit() for v in numbers):
            continue
        resno, table, column = (int(v) for v in numbers)
        out.append(TargetEntry(resno, table, column))
    return out


def _node_tokens(text: str) -> Iterator[tuple[str, bool]]:
    """pg_node_tree tokens, as PostgreSQL's pg_strtok cuts them: the text, unescaped, and
    whether it was written bare (so `<>` and `(` are told from a name spelled the same)."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\n":
            i += 1
        elif ch in "(){}":
            yield ch, True
            i += 1
        else:
            chars: list[str] = []
            bare = True
            while i < n and text[i] not in " \t\n(){}":
                if text[i] == "\\" and i + 1 < n:
                    chars.append(text[i + 1])
                    i += 2
                    bare = False
                else:
                    chars.append(text[i])
                    i += 1
            yield "".join(chars), bare


def parse(text: str) -> Any:
    """pg_node_tree text -> nested values: a node is a dict of its fields (its type under ""),
    each field the list of the values written after it; a list is a list; `<>` is None; any
    other token a str. Iterative: a deeply nested expression costs no Python stack."""
    root: list[Any] = []
    stack: list[tuple[Any, list[Any]]] = [(None, root)]  # (open node or list, where values go)
    for token, bare in _node_tokens(text):
        container, target = stack[-1]
        if bare and token == "{":
            node: dict[str, list[Any]] = {"": []}
            target.append(node)
            stack.append((node, node[""]))
        elif bare and token == "(":
            items: list[Any] = []
            target.append(items)
            stack.append((items, items))
        elif bare and token in (")", "}"):
            if len(stack) == 1 or isinstance(container, dict) != (token == "}"):
                raise ValueError("unbalanced pg_node_tree")
            stack.pop()
        elif bare and token.startswith(":") and isinstance(container, dict):
            # A later field of the same name wins: a column named `:resno` is written before
            # the real field (TargetEntry writes resname first).
            container[token[1:]] = []
            stack[-1] = (container, container[token[1:]])
        else:
            target.append(None if bare and token == "<>" else token)
    if len(stack) != 1 or len(root) != 1:
        raise ValueError("unbalanced pg_node_tree")
    return root[0]


def _field(node: Any, name: str) -> Any:
    """The one value of a node's field, else None."""
    values = node.get(name) if isinstance(node, dict) else None
    return values[0] if values and len(values) == 1 else None
