"""The part of Go's html/template that auth mail templates use, as GoTrue renders them.

Actions: `{{ .Field }}` and `{{ .Data.key }}` (a missing key renders as nothing, as html/template
does), `{{ if PIPE }} ... {{ else if PIPE }} ... {{ else }} ... {{ end }}` where PIPE is a
field, `not FIELD`, `eq FIELD "text"` or `ne FIELD "text"`, comments `{{/* ... */}}`, and the
trim markers `{{-` / `-}}`. Values are HTML-escaped (html/template's escaping); the subject,
a text/template in GoTrue, is rendered with `escape=False`. Anything else is a TemplateError
at parse time, so a template the server cannot render is refused when it is loaded, never
when a mail is sent.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)
_FIELD = r"\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\."
_STRING = r'"(?:[^"\\]|\\.)*"'


class TemplateError(ValueError):
    pass


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Value:
    field: str


@dataclass(frozen=True)
class _Test:
    op: str  # "", "not", "eq", "ne"
    field: str
    literal: str = ""


@dataclass(frozen=True)
class _If:
    branches: tuple[tuple[_Test | None, tuple[Any, ...]], ...]  # None: the else branch


def _lookup(data: Mapping[str, Any], field: str) -> Any:
    value: Any = data
    for part in field.strip(".").split("."):
        if not part:
            continue
        if isinstance(value, Mapping):
            value = value.get(part)
        else:
            return None
    return value


def _truthy(value: Any) -> bool:
    return bool(value)  # Go's truth: zero values, empty strings, maps and slices are false


def _test(source: str) -> _Test:
    words = source.split(None, 1)
    if re.fullmatch(_FIELD, source):
        return _Test("", source)
    if len(words) == 2 and words[0] == "not" and re.fullmatch(_FIELD, words[1].strip()):
        return _Test("not", words[1].strip())
    match = re.fullmatch(rf"(eq|ne)\s+({_FIELD})\s+({_STRING})", source)
    if match:
        return _Test(match[1], match[2], _unquote(match[3]))
    raise TemplateError(f"unsupported condition {{{{ if {source} }}}}")


def _unquote(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


class Template:
    def __init__(self, source: str, name: str = "template") -> None:
        self.name = name
        tokens = self._tokens(source)
        self.nodes, _ = self._parse(tokens, 0, top=True)

    def _tokens(self, source: str) -> list[tuple[str, str]]:
        """("text", ...) and ("action", ...) pairs, trim markers applied."""
        out: list[tuple[str, str]] = []
        position = 0
        for match in _ACTION.finditer(source):
            text = source[position:match.start()]
            if match[1]:
                text = text.rstrip()
            if out and out[-1][0] == "trim":
                out.pop()
                text = text.lstrip()
            out.append(("text", text))
            action = match[2].strip()
            out.append(("action", action))
            if match[3]:
                out.append(("trim", ""))
            position = match.end()
        if "{{" in source[position:]:
            raise TemplateError(f"{self.name}: unclosed action {{{{")
        tail = source[position:]
        if out and out[-1][0] == "trim":
            out.pop()
            tail = tail.lstrip()
        out.append(("text", tail))
        return out

    def _parse(self, tokens: list[tuple[str, str]], index: int, top: bool = False) -> tuple[tuple[Any, ...], int]:
        """Nodes up to an `else`/`end` (returned as the index of that token) or the end."""
        nodes: list[Any] = []
        i = index
        while i < len(tokens):
            kind, value = tokens[i]
            if kind == "text":
                if value:
                    nodes.append(_Text(value))
                i += 1
                continue
            if value.startswith("/*"):
                if not value.endswith("*/"):
                    raise TemplateError(f"{self.name}: unclosed comment")
                i += 1
                continue
            if value == "end" or value == "else" or value.startswith("else if "):
                if top:
                    raise TemplateError(f"{self.name}: unexpected {{{{ {value} }}}}")
                return tuple(nodes), i
            if value.startswith("if "):
                node, i = self._if(tokens, i)
                nodes.append(node)
                continue
            if re.fullmatch(_FIELD, value):
                nodes.append(_Value(value))
                i += 1
                continue
            raise TemplateError(f"{self.name}: unsupported action {{{{ {value} }}}}")
        if not top:
            raise TemplateError(f"{self.name}: missing {{{{ end }}}}")
        return tuple(nodes), i

    def _if(self, tokens: list[tuple[str, str]], i: int) -> tuple[_If, int]:
        branches: list[tuple[_Test | None, tuple[Any, ...]]] = []
        condition: _Test | None = _test(tokens[i][1][3:].strip())
        while True:
            body, i = self._parse(tokens, i + 1)
            branches.append((condition, body))
            closer = tokens[i][1]
            if closer == "end":
                return _If(tuple(branches)), i + 1
            if condition is None:
                raise TemplateError(f"{self.name}: {{{{ {closer} }}}} after {{{{ else }}}}")
            condition = _test(closer[8:].strip()) if closer.startswith("else if ") else None

    def render(self, data: Mapping[str, Any], escape: bool = True) -> str:
        out: list[str] = []
        self._render(self.nodes, data, escape, out)
        return "".join(out)

    def _render(self, nodes: tuple[Any, ...], data: Mapping[str, Any], escape: bool, out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, _Text):
                out.append(node.text)
            elif isinstance(node, _Value):
                value = _lookup(data, node.field)
                text = "" if value is None else str(value)
                out.append(html.escape(text) if escape else text)
            else:
                for test, body in node.branches:
                    if test is None or self._holds(test, data):
                        self._render(body, data, escape, out)
                        break

    @staticmethod
    def _holds(test: _Test, data: Mapping[str, Any]) -> bool:
        value = _lookup(data, test.field)
        if test.op == "not":
            return not _truthy(value)
        if test.op == "eq":
            return ("" if value is None else str(value)) == test.literal
        if test.op == "ne":
            return ("" if value is None else str(value)) != test.literal
        return _truthy(value)
