"""A small layout engine with prettier's semantics: groups print flat when they fit in the
line, else broken; a hard line breaks every enclosing group.

Upstream formats its generated file with a prettier-compatible formatter (printWidth 80);
building the same documents and laying them out the same way gives the same text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 80


@dataclass
class Group:
    contents: Doc
    hard: bool = False  # breaks whatever the width (set by break propagation too)


@dataclass
class Indent:
    contents: Doc
    spaces: int = 2  # Indent(x) adds a level; Indent(x, n) aligns by n spaces


@dataclass
class Line:
    soft: bool = False  # flat: nothing instead of a space
    hard: bool = False  # always a newline


@dataclass
class IfBreak:
    broken: Doc
    flat: Doc = ""


Doc = str | list["Doc"] | Group | Indent | Line | IfBreak

LINE = Line()
SOFTLINE = Line(soft=True)
HARDLINE = Line(hard=True)


def group(*parts: Doc, hard: bool = False) -> Group:
    return Group(list(parts), hard)


def indent(*parts: Doc) -> Indent:
    return Indent(list(parts))


def align(spaces: int, *parts: Doc) -> Indent:
    return Indent(list(parts), spaces)


def join(separator: Doc, docs: Sequence[Doc]) -> list[Doc]:
    out: list[Doc] = []
    for i, doc in enumerate(docs):
        if i:
            out.append(separator)
        out.append(doc)
    return out


def _propagate_breaks(doc: Doc) -> bool:
    """Mark every group holding a hard line as hard; returns whether `doc` holds one."""
    if isinstance(doc, str):
        return False
    if isinstance(doc, list):
        found = False
        for part in doc:
            found = _propagate_breaks(part) or found
        return found
    if isinstance(doc, Group):
        inner = _propagate_breaks(doc.contents)
        doc.hard = doc.hard or inner
        return doc.hard
    if isinstance(doc, Indent):
        return _propagate_breaks(doc.contents)
    if isinstance(doc, IfBreak):
        # Like prettier, only the broken form counts: it is the one a hard line forces.
        broken = _propagate_breaks(doc.broken)
        _propagate_breaks(doc.flat)
        return broken
    return doc.hard


def text_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


BREAK, FLAT = "break", "flat"
Command = tuple[int, str, Doc]  # (indentation, mode, doc)


def _fits(next_cmd: Command, rest: list[Command], width: int) -> bool:
    """Whether `next_cmd` laid out flat, then what follows up to the next newline, fits."""
    rest_index = len(rest)
    cmds = [next_cmd]
    while width >= 0:
        if not cmds:
            if rest_index == 0:
                return True
            rest_index -= 1
            cmds.append(rest[rest_index])
            continue
        ind, mode, doc = cmds.pop()
        if isinstance(doc, str):
            width -= text_width(doc)
        elif isinstance(doc, list):
            cmds.extend((ind, mode, part) for part in reversed(doc))
        elif isinstance(doc, Indent):
            cmds.append((ind, mode, doc.contents))
        elif isinstance(doc, Group):
            cmds.append((ind, BREAK if doc.hard else mode, doc.contents))
        elif isinstance(doc, IfBreak):
            cmds.append((ind, mode, doc.broken if mode == BREAK else doc.flat))
        elif isinstance(doc, Line):
            if mode == BREAK or doc.hard:
                return True
            if not doc.soft:
                width -= 1
    return False


def render(doc: Doc, width: int = WIDTH) -> str:
    _propagate_breaks(doc)
    out: list[str] = []
    pos = 0
    cmds: list[Command] = [(0, BREAK, doc)]
    while cmds:
        ind, mode, doc = cmds.pop()
        if isinstance(doc, str):
            out.append(doc)
            pos += text_width(doc)
        elif isinstance(doc, list):
            cmds.extend((ind, mode, part) for part in reversed(doc))
        elif isinstance(doc, Indent):
            cmds.append((ind + doc.spaces, mode, doc.contents))
        elif isinstance(doc, Group):
            if (mode == FLAT and not doc.hard) or (not doc.hard and _fits((ind, FLAT, doc.contents), cmds, width - pos)):
                cmds.append((ind, FLAT, doc.contents))
            else:
                cmds.append((ind, BREAK, doc.contents))
        elif isinstance(doc, IfBreak):
            cmds.append((ind, mode, doc.broken if mode == BREAK else doc.flat))
        elif isinstance(doc, Line):
            if mode == FLAT and not doc.hard:
                if not doc.soft:
                    out.append(" ")
                    pos += 1
                continue
            # A newline: drop the trailing spaces of the line it ends.
            while out and out[-1].endswith(" "):
                out[-1] = out[-1].rstrip(" ")
                if not out[-1]:
                    out.pop()
            out.append("\n" + " " * ind)
            pos = ind
    return "".join(out)
