"""The generator's parts that need no database: the collation, the node-tree reader, the
layout of types and the quoting of names."""

from __future__ import annotations

from server.typegen.collation import sort_by
from server.typegen.doc import render
from server.typegen.tstypes import Literal, Name, Object, Prop, Union_, key, string_literal, to_doc


def test_collation_is_upstreams_not_code_points() -> None:
    # The order Intl.Collator("en") gives (checked against node): case and accents only
    # break ties, punctuation before digits before letters.
    words = ["users", "Zeta", "user_sessions", "a_table", "t1", "t_1", "ABC", "abc_", "résumé", "resume", "zeta"]
    assert sort_by(words, lambda w: w) == [
        "a_table", "ABC", "abc_", "resume", "résumé", "t_1", "t1", "user_sessions", "users", "zeta", "Zeta"]


def test_keys_and_strings_quoted_as_prettier() -> None:
    assert key("title") == "title"
    assert key("$dollar") == "$dollar"
    assert key("display name") == '"display name"'
    assert key("123abc") == '"123abc"'
    assert key("") == '""'
    assert string_literal("it's") == '"it\'s"'
    assert string_literal('say "hi"') == "'say \"hi\"'"
    assert string_literal("back\\slash") == '"back\\\\slash"'
    assert string_literal("line\nbreak") == '"line\\nbreak"'


def test_unions_break_one_member_a_line_past_80_columns() -> None:
    short = Object([Prop("mood", Union_([Literal("happy"), Literal("sad")]))])
    assert render(to_doc(short)) == '{\n  mood: "happy" | "sad"\n}'
    long_name = Name('Database["public"]["Enums"]["extremely_long_status_enumeration_name"]')
    long = Object([Prop("status", Union_([long_name, Name("null")]))])
    assert render(to_doc(long)) == (
        '{\n  status:\n    | Database["public"]["Enums"]["extremely_long_status_enumeration_name"]\n'
        "    | null\n}")
    inline = Object([Prop("Args", Object([Prop("a", Name("number"))], expanded=False))], expanded=False)
    assert render(to_doc(inline)) == "{ Args: { a: number } }"
