"""Split a SQL script into statements, knowing where each starts (for error line numbers).

Understands '...' and "..." quoting, E'' escapes, $tag$ bodies, -- and nested /* */
comments, parentheses (a rule's `do also (...; ...)`) and SQL-standard `begin atomic ... end`
function bodies (pg_dump writes them), as psql splits them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")
_LEADING_NOISE = re.compile(r"(?:\s+|--[^\n]*\n?)*")
_WORD = re.compile(r"[^\W\d][\w$]*")  # a keyword or identifier, any script's letters


@dataclass(frozen=True)
class Statement:
    text: str
    line: int  # 1-based line of the statement's first character in the script


def _skip_quoted(script: str, i: int, quote: str) -> int:
    i += 1
    while i < len(script):
        if script[i] == "\\" and quote == "'" and _is_escape_string(script, i):
            i += 2
            continue
        if script[i] == quote:
            if i + 1 < len(script) and script[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return i


def _is_escape_string(script: str, i: int) -> bool:
    start = script.rfind("'", 0, i)
    return start > 0 and script[start - 1] in "eE"


def _skip_block_comment(script: str, i: int) -> int:
    depth, i = 1, i + 2
    while i < len(script) and depth:
        if script.startswith("/*", i):
            depth, i = depth + 1, i + 2
        elif script.startswith("*/", i):
            depth, i = depth - 1, i + 2
        else:
            i += 1
    return i


def split_statements(script: str) -> list[Statement]:
    statements: list[Statement] = []
    start = i = 0
    n = len(script)
    parens = 0  # `;` inside parentheses does not end a statement
    atomic = 0  # open `begin atomic` body and `case` blocks in it, each closed by `end`
    last_word = ""
    while i < n:
        ch = script[i]
        if (w := _WORD.match(script, i)) and not (i and (script[i - 1].isalnum() or script[i - 1] in "_$")):
            word = w.group(0).lower()
            if atomic:
                atomic += {"case": 1, "end": -1}.get(word, 0)
            elif word == "atomic" and last_word == "begin":
                atomic = 1
            last_word = word
            i = w.end()
        elif ch == "(":
            parens, i = parens + 1, i + 1
        elif ch == ")":
            parens, i = max(parens - 1, 0), i + 1
        elif ch in "'\"":
            i = _skip_quoted(script, i, ch)
        elif script.startswith("--", i):
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
        elif script.startswith("/*", i):
            i = _skip_block_comment(script, i)
        elif ch == "$" and (m := _DOLLAR_TAG.match(script, i)) and not (i and (script[i - 1].isalnum() or script[i - 1] == "_")):
            close = script.find(m.group(0), m.end())
            i = n if close < 0 else close + len(m.group(0))
        elif ch == ";" and not parens and not atomic:
            _append(statements, script, start, i + 1)
            start = i = i + 1
            last_word = ""
        else:
            i += 1
    _append(statements, script, start, n)
    return statements


def _append(statements: list[Statement], script: str, start: int, end: int) -> None:
    chunk = script[start:end]
    if not _has_code(chunk):
        return
    lead = _LEADING_NOISE.match(chunk)
    offset = start + (lead.end() if lead else 0)
    statements.append(Statement(script[offset:end], script.count("\n", 0, offset) + 1))


def _has_code(chunk: str) -> bool:
    without_comments = re.sub(r"--[^\n]*|/\*.*?\*/", "", chunk, flags=re.S)
    return bool(without_comments.strip().strip(";").strip())
