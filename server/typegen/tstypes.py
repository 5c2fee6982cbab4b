"""TypeScript type expressions, and how prettier lays each one out (semi: false, 80 columns).

Only the forms the generated file uses: names, string literals, unions, intersections,
arrays, tuples, object types and, for `Constants`, object and array literals.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from server.typegen.doc import HARDLINE, LINE, SOFTLINE, Doc, IfBreak, align, group, indent, join


@dataclass
class Name:
    """Printed as is: `string`, `Json`, `Database["public"]["Enums"]["mood"]`..."""

    text: str


@dataclass
class Literal:
    """A string literal type."""

    value: str


@dataclass
class Union_:
    members: list[TsType]


@dataclass
class Intersection:
    members: list[TsType]


@dataclass
class ArrayOf:
    element: TsType


@dataclass
class Tuple:
    elements: list[TsType]


@dataclass
class Prop:
    key: str
    type: TsType
    optional: bool = False


@dataclass
class Object:
    """An object type. `expanded`: written over several lines whatever its width (prettier
    keeps an object broken when the source has a newline after its `{`, as upstream's
    template has for every object but the function signatures)."""

    members: Sequence[Prop | str] = field(default_factory=list)  # str: a member printed as is
    expanded: bool = True
    comments: dict[int, list[str]] = field(default_factory=dict)  # member index -> `//` lines


TsType = Name | Literal | Union_ | Intersection | ArrayOf | Tuple | Object


def nullable(ts: TsType) -> TsType:
    return Union_([ts, Name("null")])


# --- strings and keys, quoted as prettier does -------------------------------------------

def string_literal(value: str) -> str:
    """`JSON.stringify`, then prettier's choice of quotes (double unless it needs more escapes)."""
    raw = json.dumps(value, ensure_ascii=False)[1:-1]
    doubles, singles = raw.count('"'), raw.count("'")
    quote = "'" if doubles > singles else '"'
    other = "'" if quote == '"' else '"'

    def requote(m: re.Match[str]) -> str:
        escaped, bare = m.group(1), m.group(2)
        if escaped is not None:
            if escaped == other:
                return escaped
            if re.fullmatch(r"[^\n\r\"'0-7\\bfnrt-vx\u2028\u2029]", escaped):
                return escaped
            return "\\" + escaped
        return "\\" + bare if bare == quote else bare

    return quote + re.sub(r"\\(.)|([\"'])", requote, raw, flags=re.DOTALL) + quote


_ID_START = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl"}
_ID_PART = _ID_START | {"Mn", "Mc", "Nd", "Pc"}


def _is_es5_identifier(name: str) -> bool:
    if not name:
        return False
    first, rest = name[0], name[1:]
    if not (first in "$_" or unicodedata.category(first) in _ID_START):
        return False
    return all(ch in "$\u200c\u200d" or unicodedata.category(ch) in _ID_PART for ch in rest)


def key(name: str) -> str:
    """A property key: bare when it is an identifier, else quoted (prettier's "as-needed")."""
    return name if _is_es5_identifier(name) else string_literal(name)


# --- layout ------------------------------------------------------------------------------

def _is_object(ts: TsType) -> bool:
    return isinstance(ts, Object)


def _hugs(union: Union_) -> bool:
    """`{ ... } | null` stays on the object's lines instead of a `|` per line."""
    nulls = sum(1 for m in union.members if isinstance(m, Name) and m.text in ("null", "void"))
    return nulls == len(union.members) - 1 and any(_is_object(m) for m in union.members)


def to_doc(ts: TsType, in_array: bool = False) -> Doc:
    if isinstance(ts, Name):
        return ts.text
    if isinstance(ts, Literal):
        return string_literal(ts.value)
    if isinstance(ts, ArrayOf):
        element = ts.element
        if isinstance(element, (Union_, Intersection)) and len(element.members) > 1:
            return ["(", to_doc(element, in_array=True), ")[]"]
        return [to_doc(element), "[]"]
    if isinstance(ts, Union_):
        return _union_doc(ts, in_array)
    if isinstance(ts, Intersection):
        return _intersection_doc(ts)
    if isinstance(ts, Tuple):
        if not ts.elements:
            return "[]"
        items = join([",", LINE], [to_doc(e) for e in ts.elements])
        return group("[", indent(SOFTLINE, items), IfBreak(","), SOFTLINE, "]")
    return _object_doc(ts)


def _union_doc(union: Union_, in_array: bool) -> Doc:
    if len(union.members) == 1:
        return to_doc(union.members[0])
    if _hugs(union):
        return join(" | ", [to_doc(m) for m in union.members])
    printed = [align(2, to_doc(m)) for m in union.members]
    code: list[Doc] = [IfBreak([LINE, "| "]), join([LINE, "| "], printed)]
    if in_array:
        return group(indent(code), SOFTLINE)
    return group(indent(code))


def _intersection_doc(inter: Intersection) -> Doc:
    parts: list[Doc] = []
    was_indented = False
    for i, member in enumerate(inter.members):
        printed = to_doc(member)
        if i == 0:
            parts.append(printed)
            continue
        before, this = _is_object(inter.members[i - 1]), _is_object(member)
        if not before and not this:
            parts.append(indent(" &", LINE, printed))
        elif before and this:
            parts.append([" & ", indent(printed) if was_indented else printed])
        else:
            if i > 1:
                was_indented = True
            parts.append([" & ", indent(printed) if i > 1 else printed])
    return group(parts)


def _member_doc(member: Prop | str) -> Doc:
    if isinstance(member, str):
        return member
    return group(key(member.key), "?" if member.optional else "", ": ", to_doc(member.type))


def _object_doc(obj: Object) -> Doc:
    if not obj.members:
        return "{}"
    body: list[Doc] = []
    for i, member in enumerate(obj.members):
        if i:
            body.extend([IfBreak("", ";"), LINE])
        for comment in obj.comments.get(i, []):
            body.extend([comment, HARDLINE])
        body.append(_member_doc(member))
    return group("{", indent(LINE, body), LINE, "}", hard=obj.expanded)


# --- values (the `Constants` object) -------------------------------------------------------

@dataclass
class ObjectValue:
    entries: list[tuple[str, Value]]


Value = ObjectValue | list[str]


def value_doc(value: Value) -> Doc:
    if isinstance(value, list):
        if not value:
            return "[]"
        items = join([",", LINE], [string_literal(v) for v in value])
        return group("[", indent(SOFTLINE, items), IfBreak(","), SOFTLINE, "]")
    if not value.entries:
        return "{}"
    props = [group(key(k), ": ", value_doc(v)) for k, v in value.entries]
    return group("{", indent(LINE, join([",", LINE], props)), IfBreak(","), LINE, "}", hard=True)
