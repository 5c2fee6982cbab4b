"""Read a view's select list from its stored rule (`pg_rewrite.ev_action`, a pg_node_tree).

Each output column of a view records the table column it comes straight from
(`resorigtbl`, `resorigcol`); that is how PostgREST, and postgres-meta after it, know which
keys a view carries. The text is Postgres's node output format:
`({QUERY :field value ... :targetList ({TARGETENTRY :resno 1 ...} ...)})`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

Node = str | list["Node"] | dict[str, "Node"]


@dataclass
class TargetEntry:
    resno: int
    origin_table: int  # 0: not a plain column
    origin_column: int


def _tokens(text: str) -> Iterator[tuple[bool, str]]:
    """(is a delimiter, text), as pg_strtok reads tokens: `(){}` alone, else up to a blank
    or one of those; a backslash escapes the next character (`display\\ name`)."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\n\r\f":
            i += 1
        elif ch in "(){}":
            yield True, ch
            i += 1
        else:
            chars: list[str] = []
            while i < n and text[i] not in " \t\n\r\f(){}":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                chars.append(text[i])
                i += 1
            yield False, "".join(chars)


def parse(text: str) -> Node:
    """The node tree as nested lists (`(...)`) and dicts (`{NAME :field value}`, the name
    under ""). Iterative, so a deep expression cannot exhaust the stack."""
    root: list[Node] = []
    stack: list[list[Node] | dict[str, Node]] = [root]
    field: list[str | None] = [None]  # pending field name per open node
    for delimiter, token in _tokens(text):
        top = stack[-1]
        if delimiter and token in ("(", "{"):
            new: list[Node] | dict[str, Node] = [] if token == "(" else {}
            _add(top, field, new)
            stack.append(new)
            field.append(None)
            continue
        if delimiter:
            if len(stack) > 1:
                stack.pop()
                field.pop()
            continue
        if isinstance(top, dict):
            if "" not in top:
                top[""] = token  # the node's type
            elif token.startswith(":") and field[-1] is None:
                field[-1] = token[1:]
            else:
                _add(top, field, token)
        else:
            top.append(token)
    return root[0] if len(root) == 1 else root


def _add(top: list[Node] | dict[str, Node], field: list[str | None], value: Node) -> None:
    if isinstance(top, list):
        top.append(value)
    elif field[-1] is not None:
        top[field[-1]] = value
        field[-1] = None
    # a value after a field's first one (`:constvalue 4 [ 1 0 0 0 ]`): not needed here


def _int(value: Node | None) -> int:
    try:
        return int(value) if isinstance(value, str) else 0
    except ValueError:
        return 0


def target_entries(action: str) -> list[TargetEntry]:
    """The select list of the rule's (first) query."""
    tree = parse(action)
    queries = tree if isinstance(tree, list) else [tree]
    query = queries[0] if queries else {}
    targets = query.get("targetList") if isinstance(query, dict) else None
    if not isinstance(targets, list):
        return []
    out = []
    for entry in targets:
        if isinstance(entry, dict) and entry.get("") == "TARGETENTRY":
            out.append(TargetEntry(_int(entry.get("resno")), _int(entry.get("resorigtbl")),
                                   _int(entry.get("resorigcol"))))
    return out
