"""postgres_changes bindings as current Realtime parses them (Extensions.PostgresCdcRls.
Subscriptions.parse_subscription_params): filters, select, and the messages it refuses with."""

from __future__ import annotations

import pytest

from server.realtime.filters import Filter, ParamsError, inspect, parse_filter, parse_params


@pytest.mark.parametrize("text,expected", [
    ("subject=eq.hey", [Filter("subject", "eq", "hey")]),
    ("subject=in.(hidee,ho)", [Filter("subject", "in", "{hidee,ho}")]),
    ("subject=not.like.hey%", [Filter("subject", "like", "hey%", True)]),
    ("id=gt.0,id=lt.100", [Filter("id", "gt", "0"), Filter("id", "lt", "100")]),
    ("", []),
    ("   ", []),
    ("deleted_at=is.null", [Filter("deleted_at", "is", "null")]),
    ("deleted_at=not.is.null", [Filter("deleted_at", "is", "null", True)]),
    ("done=is.true", [Filter("done", "is", "true")]),
    ("name=ilike.*A*", [Filter("name", "ilike", "*A*")]),  # no `*` for `%`: the pattern goes as given
    ("code=match.^a[0-9]+$", [Filter("code", "match", "^a[0-9]+$")]),
    ("code=imatch.^A", [Filter("code", "imatch", "^A")]),
    ("n=isdistinct.5", [Filter("n", "isdistinct", "5")]),
    ("n=not.isdistinct.5", [Filter("n", "isdistinct", "5", True)]),
    ("ts=gte.2024-01-01T10:00:00.5+00:00", [Filter("ts", "gte", "2024-01-01T10:00:00.5+00:00")]),
    # quoting: a comma inside a quoted value, or inside parentheses, does not split
    ('name=eq."a,b"', [Filter("name", "eq", "a,b")]),
    ('name=eq."say \\"hi\\", \\\\o/"', [Filter("name", "eq", 'say "hi", \\o/')]),
    ('room=in.("a,b",c)', [Filter("room", "in", '{"a,b",c}')]),
    ('name=eq."a"b"', [Filter("name", "eq", '"a"b"')]),  # not one quoted string: kept as written
    ('name=eq."a\\"', [Filter("name", "eq", '"a\\"')]),  # unterminated: the rest is the value, as written
])
def test_filters(text: str, expected: list[Filter]) -> None:
    assert parse_filter(text) == expected


def test_a_quote_opens_a_value_only_after_a_dot_a_parenthesis_or_a_comma() -> None:
    with pytest.raises(ParamsError, match=r'^Error parsing `filter` params: \["c"\]$'):
        parse_params({"schema": "public", "table": "t", "filter": 'name=eq.a"b,c'})


@pytest.mark.parametrize("text,message", [
    ("subject=foo.hey", 'Error parsing `filter` params: ["foo", "hey"]'),
    ("undefined", 'Error parsing `filter` params: ["undefined"]'),
    ("id=eq", 'Error parsing `filter` params: ["eq"]'),
    ("id=", 'Error parsing `filter` params: [""]'),
    ("id=not.not.eq.1", 'Error parsing `filter` params: ["not", "eq.1"]'),
    ("id=fts.x", 'Error parsing `filter` params: ["fts", "x"]'),
    ("id=gt.0,id=foo.1", 'Error parsing `filter` params: ["foo", "1"]'),
    ("id=in.1,2", "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"),
    ("id=eq.1,", "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"),
    ("id=eq.1,,b=eq.2",
     "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"),
])
def test_refused_filters(text: str, message: str) -> None:
    params = {"event": "*", "schema": "public", "table": "t", "filter": text}
    with pytest.raises(ParamsError) as exc:
        parse_params(params)
    assert str(exc.value) == message


def test_binding_shapes() -> None:
    assert parse_params({"schema": "public"}).table == "*"
    only_table = parse_params({"table": "messages"})
    assert (only_table.schema, only_table.table) == ("public", "messages")
    assert parse_params({"event": "insert", "schema": "public", "table": "t"}).event == "INSERT"
    assert parse_params({"event": "other", "schema": "public", "table": "t"}).event == "*"
    assert parse_params({"event": 5, "schema": "public", "table": "t"}).event == "*"
    with pytest.raises(ParamsError) as exc:
        parse_params({})
    assert str(exc.value) == ("No subscription params provided. Please provide at least a `schema` or `table`"
                              " to subscribe to: %{}")
    with pytest.raises(ParamsError) as exc:
        parse_params({"event": "*", "schema": "public", "filter": "id=eq.1"})  # a filter needs a table
    assert str(exc.value).endswith(': %{"event" => "*", "filter" => "id=eq.1", "schema" => "public"}')
    with pytest.raises(ParamsError) as exc:
        parse_params({"schema": "public", "table": "t", "filter": None, "user_token": "secret"})
    assert str(exc.value).endswith(": <redacted>")


def test_select() -> None:
    assert parse_params({"schema": "public", "table": "t"}).select is None
    assert parse_params({"schema": "public", "table": "t", "select": ["id", 3, "body"]}).select == ("id", "body")
    assert parse_params({"schema": "public", "table": "t", "select": []}).select == ()  # the primary key only
    assert parse_params({"schema": "public", "table": "t", "select": None}).select is None
    with pytest.raises(ParamsError, match=r"^Error parsing `select` params: expected a list of column name strings,"
                                          r' e.g. select: \["col1", "col2"\]$'):
        parse_params({"schema": "public", "table": "t", "select": "id,body"})
    for wildcard in ({"schema": "public", "select": ["id"]}, {"schema": "*", "table": "t", "select": ["id"]}):
        with pytest.raises(ParamsError) as exc:
            parse_params(wildcard)
        assert str(exc.value) == ("Column selection is not supported for wildcard subscriptions."
                                  " Provide an explicit schema and table name.")


def test_log_text_is_upstreams() -> None:
    p = parse_params({"event": "*", "schema": "public", "table": "test", "filter": "notacolumn=eq.123"})
    assert p.log_text() == ('event: *, schema: public, table: test, filters: [{"notacolumn", "eq", "123", false}],'
                            " select: nil")
    p = parse_params({"event": "DELETE", "schema": "public", "table": "t", "filter": "id=not.in.(1,2)",
                      "select": ["a", "b"]})
    assert p.log_text() == ('event: DELETE, schema: public, table: t, filters: [{"id", "in", "{1,2}", true}],'
                            ' select: ["a", "b"]')


def test_inspect_breaks_long_values_as_elixir_pretty_does() -> None:
    assert inspect(["a", 'q"', "#{x}", None, True, 1]) == '["a", "q\\"", "\\#{x}", nil, true, 1]'
    assert inspect("a\x01") == "<<97, 1>>"
    words = [f"column_{i}" for i in range(12)]
    assert inspect(words) == ('["column_0", "column_1", "column_2", "column_3", "column_4", "column_5",\n'
                              ' "column_6", "column_7", "column_8", "column_9", "column_10", "column_11"]')
    filters = parse_params({"schema": "public", "table": "t",
                            "filter": ",".join(f"c{i}=eq.value number {i}" for i in range(3))}).log_text()
    assert 'filters: [\n  {"c0", "eq", "value number 0", false},\n  {"c1", "eq", "value number 1", false},\n' in filters
