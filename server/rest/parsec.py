"""A small Parsec: the parser combinators PostgREST's query-string grammar is written in.

PostgREST parses `select`, filters, `order` and logic trees with Haskell's Parsec
(src/PostgREST/ApiRequest/QueryParams.hs), and its PGRST100 answers are Parsec's error
messages: the position of the furthest failure, `unexpected ...`, `expecting ...`. To give
the same answers this module reproduces Parsec's semantics (Text.Parsec.Prim/Error/Char):

- a reply is consumed or empty, ok or error. `a <|> b` tries `b` only when `a` failed
  without consuming; `try p` turns a consumed failure into an empty one;
- errors are merged as Parsec merges them: a meaningful error wins over an unknown one,
  else the one further in the input, else both messages (`mergeError`);
- labels (`<?>`) replace the expectations of an empty reply;
- messages are shown as Haskell's `show` prints them: `"x"` for tokens, `'x'` from
  `notFollowedBy`/`eof`, non-ASCII characters as decimal escapes.

A parser is a function (state, offset) -> reply. Positions are offsets into the text,
turned into Parsec's (line, column) only for the message, tabs and newlines included.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

# Parsec's message kinds, in the order it sorts them for display
SYS_UNEXPECT, UNEXPECT, EXPECT, MESSAGE = range(4)

Msg = tuple[int, str]


class ParseError:
    """Parsec's ParseError: a position (an offset here) and its messages."""

    __slots__ = ("msgs", "pos")

    def __init__(self, pos: int, msgs: tuple[Msg, ...] = ()) -> None:
        self.pos = pos
        self.msgs = msgs


class State:
    """The text being parsed, how deep the grammar's recursion is (bounded by callers), and
    the replies of memoized parsers by offset."""

    __slots__ = ("depth", "memo", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.depth = 0
        self.memo: dict[tuple[int, int], Reply] = {}


# (consumed, ok, value, offset after, error)
Reply = tuple[bool, bool, Any, int, ParseError]
Parser = Callable[[State, int], Reply]


def merge(e1: ParseError, e2: ParseError) -> ParseError:
    """Parsec's mergeError."""
    if not e2.msgs and e1.msgs:
        return e1
    if not e1.msgs and e2.msgs:
        return e2
    if e1.pos == e2.pos:
        return ParseError(e1.pos, e1.msgs + e2.msgs)
    return e1 if e1.pos > e2.pos else e2


def _after(prev: ParseError, new: ParseError) -> ParseError:
    """The error of `m >>= k` when k did not consume: m's error merged in unless unknown."""
    return new if not prev.msgs else merge(prev, new)


def _expect(err: ParseError, label: str) -> ParseError:
    """setExpectErrors: the label replaces every expectation."""
    return ParseError(err.pos, ((EXPECT, label), *(m for m in err.msgs if m[0] != EXPECT)))


# -- primitives ------------------------------------------------------------------------------

# Parsers of exactly one character (satisfy, and labels or choices of them), by their test:
# `many` runs them as a plain loop, asking the parser itself only for the error where it stops.
_ONE_CHAR: dict[Parser, Callable[[str], bool]] = {}


def satisfy(test: Callable[[str], bool]) -> Parser:
    def run(st: State, i: int) -> Reply:
        text = st.text
        if i >= len(text):
            return False, False, None, i, ParseError(i, ((SYS_UNEXPECT, ""),))
        c = text[i]
        if test(c):
            return True, True, c, i + 1, ParseError(i + 1)
        return False, False, None, i, ParseError(i, ((SYS_UNEXPECT, show_string(c)),))
    _ONE_CHAR[run] = test
    return run


def char(c: str) -> Parser:
    return label(satisfy(lambda x: x == c), show_string(c))


def one_of(chars: str) -> Parser:
    return satisfy(lambda x: x in chars)


def none_of(chars: str) -> Parser:
    return satisfy(lambda x: x not in chars)


def string(s: str) -> Parser:
    """Parsec's `string` (tokens): a failure after the first character is consumed, and is
    reported at the start with the character that differed."""
    shown = show_string(s)

    def run(st: State, i: int) -> Reply:
        text = st.text
        for k, expected in enumerate(s):
            j = i + k
            if j >= len(text):
                return k > 0, False, None, i, ParseError(i, ((EXPECT, shown), (SYS_UNEXPECT, "")))
            if text[j] != expected:
                return k > 0, False, None, i, ParseError(i, ((EXPECT, shown), (SYS_UNEXPECT, show_string(text[j]))))
        end = i + len(s)
        return True, True, s, end, ParseError(end)
    return run


def eof(st: State, i: int) -> Reply:
    """`notFollowedBy anyToken <?> "end of input"` (anyToken does not move the position)."""
    if i >= len(st.text):
        return False, True, None, i, ParseError(i, ((EXPECT, "end of input"), (SYS_UNEXPECT, "")))
    return False, False, None, i, ParseError(i, ((EXPECT, "end of input"), (UNEXPECT, show_char(st.text[i]))))


def pure(value: Any) -> Parser:
    def run(st: State, i: int) -> Reply:
        return False, True, value, i, ParseError(i)
    return run


def zero(st: State, i: int) -> Reply:
    """parserZero (`mzero`, a failed `guard`): an unknown error."""
    return False, False, None, i, ParseError(i)


# -- combinators -----------------------------------------------------------------------------

def seq(*parsers: Parser) -> Parser:
    """`do` notation: each parser in turn; the list of their values."""
    def run(st: State, i: int) -> Reply:
        consumed = False
        err: ParseError | None = None
        values = []
        for p in parsers:
            c, ok, v, j, e = p(st, i)
            if c:
                consumed = True
                if not ok:
                    return True, False, None, j, e
                err = e
                i = j
            else:
                err = e if err is None else _after(err, e)
                if not ok:
                    return consumed, False, None, i, err
            values.append(v)
        return consumed, True, values, i, err if err is not None else ParseError(i)
    return run


def bind(p: Parser, then: Callable[[Any], Parser]) -> Parser:
    """`p >>= then`."""
    def run(st: State, i: int) -> Reply:
        c, ok, v, j, e = p(st, i)
        if not ok:
            return c, ok, v, j, e
        c2, ok2, v2, j2, e2 = then(v)(st, j)
        if c2:
            return True, ok2, v2, j2, e2
        return c, ok2, v2, j2, _after(e, e2)
    return run


def alt(*parsers: Parser) -> Parser:
    """`p1 <|> p2 <|> ...`: the next alternative only after an empty failure."""
    def run(st: State, i: int) -> Reply:
        err: ParseError | None = None
        for p in parsers:
            r = p(st, i)
            if r[0]:
                return r
            if r[1]:
                return r if err is None else (False, True, r[2], r[3], merge(err, r[4]))
            err = r[4] if err is None else merge(err, r[4])
        return False, False, None, i, err if err is not None else ParseError(i)
    if parsers and all(p in _ONE_CHAR for p in parsers):
        tests = tuple(_ONE_CHAR[p] for p in parsers)

        def either(c: str) -> bool:
            return any(test(c) for test in tests)
        _ONE_CHAR[run] = either
    return run


def label(p: Parser, name: str) -> Parser:
    """`p <?> name`."""
    def run(st: State, i: int) -> Reply:
        r = p(st, i)
        if r[0] or (r[1] and not r[4].msgs):
            return r
        return False, r[1], r[2], r[3], _expect(r[4], name)
    if p in _ONE_CHAR:
        _ONE_CHAR[run] = _ONE_CHAR[p]
    return run


def attempt(p: Parser) -> Parser:
    """`try p`."""
    def run(st: State, i: int) -> Reply:
        r = p(st, i)
        if r[0] and not r[1]:
            return False, False, None, i, r[4]
        return r
    return run


def look_ahead(p: Parser) -> Parser:
    def run(st: State, i: int) -> Reply:
        r = p(st, i)
        if r[1]:
            return False, True, r[2], i, ParseError(i)
        return r
    return run


def not_followed_by(p: Parser, show: Callable[[Any], str] = lambda c: show_char(c)) -> Parser:
    """`try (do { c <- try p; unexpected (show c) } <|> return ())`."""
    def run(st: State, i: int) -> Reply:
        c, ok, v, j, e = p(st, i)
        if ok:  # `unexpected` where p stopped
            e = _after(e, ParseError(j, ((UNEXPECT, show(v)),)))
            if c:
                return False, False, None, i, e
            # an empty failure of the first branch: `return ()` takes over (Parsec's quirk)
        return False, True, None, i, merge(e, ParseError(i))
    return run


def many(p: Parser, limit: Callable[[int, int], None] | None = None) -> Parser:
    """Zero or more; `limit(count, offset)` may raise to bound the count."""
    test = _ONE_CHAR.get(p)
    if test is not None and limit is None:
        def run_chars(st: State, i: int) -> Reply:
            text, start, end = st.text, i, len(st.text)
            while i < end and test(text[i]):
                i += 1
            return i > start, True, list(text[start:i]), i, p(st, i)[4]
        return run_chars

    def run(st: State, i: int) -> Reply:
        values: list[Any] = []
        consumed = False
        while True:
            c, ok, v, j, e = p(st, i)
            if not c:
                if ok:
                    raise RuntimeError("many: a parser that accepts an empty string")
                return consumed, True, values, i, e
            if not ok:
                return True, False, None, j, e
            consumed = True
            values.append(v)
            i = j
            if limit is not None:
                limit(len(values), i)
    return run


def memo(p: Parser) -> Parser:
    """p, its reply kept by offset: the grammar's alternatives parse the same name again and
    again after backtracking (a reply depends on the text and offset only)."""
    key = id(p)

    def run(st: State, i: int) -> Reply:
        reply = st.memo.get((key, i))
        if reply is None:
            reply = st.memo[key, i] = p(st, i)
        return reply
    return run


def fmap(p: Parser, f: Callable[[Any], Any]) -> Parser:
    def run(st: State, i: int) -> Reply:
        c, ok, v, j, e = p(st, i)
        return c, ok, f(v) if ok else None, j, e
    return run


def pick(index: int, *parsers: Parser) -> Parser:
    """The value of one parser of a sequence (`a *> b <* c`)."""
    return fmap(seq(*parsers), lambda vs: vs[index])


def many1(p: Parser) -> Parser:
    test = _ONE_CHAR.get(p)
    if test is not None:  # as `seq(p, many(p))`: the error is p's where the run stops
        def run_chars(st: State, i: int) -> Reply:
            text, start, end = st.text, i, len(st.text)
            while i < end and test(text[i]):
                i += 1
            if i == start:
                return p(st, i)
            return True, True, list(text[start:i]), i, p(st, i)[4]
        return run_chars
    return fmap(seq(p, many(p)), lambda vs: [vs[0], *vs[1]])


def sep_by1(p: Parser, sep: Parser) -> Parser:
    return fmap(seq(p, many(pick(1, sep, p))), lambda vs: [vs[0], *vs[1]])


def sep_by(p: Parser, sep: Parser) -> Parser:
    return alt(sep_by1(p, sep), pure([]))


def option(default: Any, p: Parser) -> Parser:
    return alt(p, pure(default))


def optional(p: Parser) -> Parser:
    """`optionMaybe p`."""
    return option(None, p)


def between(open_: Parser, close: Parser, p: Parser) -> Parser:
    return pick(1, open_, p, close)


def forward() -> tuple[Parser, Callable[[Parser], None]]:
    """A parser defined later, for recursive grammars."""
    target: list[Parser] = []

    def run(st: State, i: int) -> Reply:
        return target[0](st, i)
    return run, target.append


any_char = satisfy(lambda _: True)
letter = label(satisfy(str.isalpha), "letter")  # Haskell's isAlpha: Unicode letters, as str.isalpha
digit = label(satisfy(lambda x: "0" <= x <= "9"), "digit")  # Haskell's isDigit: ASCII only


# -- running and showing -----------------------------------------------------------------------

def run(p: Parser, text: str) -> tuple[bool, Any, ParseError]:
    """(ok, value, error) of p over the whole text (like Parsec, no end of input is required)."""
    _, ok, value, _, err = p(State(text), 0)
    return ok, value, err


def line_column(text: str, offset: int) -> tuple[int, int]:
    """Parsec's SourcePos at an offset: a newline starts a line, a tab moves to the next
    multiple of 8 (plus one)."""
    line, column = 1, 1
    for ch in text[:offset]:
        if ch == "\n":
            line, column = line + 1, 1
        elif ch == "\t":
            column += 8 - (column - 1) % 8
        else:
            column += 1
    return line, column


def describe(err: ParseError) -> str:
    """Parsec's showErrorMessages "or" "unknown parse error" "expecting" "unexpected"
    "end of input", on one line as PostgREST puts it."""
    if not err.msgs:
        return "unknown parse error"
    msgs = sorted(err.msgs, key=lambda m: m[0])
    sys_unexpect = [t for k, t in msgs if k == SYS_UNEXPECT]
    unexpect = [t for k, t in msgs if k == UNEXPECT]
    expect = [t for k, t in msgs if k == EXPECT]
    messages = [t for k, t in msgs if k == MESSAGE]
    # the first unexpected token of the input, when no `unexpected` message says more
    shown_sys = "" if unexpect or not sys_unexpect else "unexpected " + (sys_unexpect[0] or "end of input")
    parts = _clean([shown_sys, _show_many("unexpected", unexpect), _show_many("expecting", expect), _show_many("", messages)])
    return hs_strip(" ".join(parts))


def _clean(items: Sequence[str]) -> list[str]:
    """nub . filter (not . null)"""
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def _show_many(prefix: str, items: list[str]) -> str:
    shown = _clean(items)
    if not shown:
        return ""
    text = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    return f"{prefix} {text}" if prefix else text


_ASCII_NAMES = ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI",
                "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US")


def _lit_char(c: str, following: str) -> str:
    """Haskell's showLitChar, `following` being the next character shown (for `\\&`)."""
    code = ord(c)
    if code > 127:
        return f"\\{code}" + ("\\&" if following.isascii() and following.isdigit() else "")
    if code == 127:
        return "\\DEL"
    if c == "\\":
        return "\\\\"
    if code >= 32:
        return c
    if c == "\x0e":  # \SO followed by H would read as \SOH
        return "\\SO" + ("\\&" if following == "H" else "")
    return "\\" + _ASCII_NAMES[code]


@functools.lru_cache(maxsize=1024)
def show_string(s: str) -> str:
    """Haskell's `show` of a String."""
    out = []
    for k, c in enumerate(s):
        following = s[k + 1] if k + 1 < len(s) else ""
        out.append('\\"' if c == '"' else _lit_char(c, following))
    return '"' + "".join(out) + '"'


def show_char(c: str) -> str:
    """Haskell's `show` of a Char."""
    return "'\\''" if c == "'" else "'" + _lit_char(c, "") + "'"


def hs_isspace(c: str) -> bool:
    """Haskell's Data.Char.isSpace (which T.strip uses)."""
    code = ord(c)
    if code <= 0x377:
        return code == 32 or 9 <= code <= 13 or code == 0xA0
    return unicodedata.category(c) == "Zs"


def hs_strip(s: str) -> str:
    start, end = 0, len(s)
    while start < end and hs_isspace(s[start]):
        start += 1
    while end > start and hs_isspace(s[end - 1]):
        end -= 1
    return s[start:end]
