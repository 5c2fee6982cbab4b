from server.core.sql_split import split_statements


def test_splits_on_semicolons_outside_quotes_comments_and_bodies() -> None:
    script = (
        "-- header; not a statement\n"
        "create table t (a text default 'x;y');\n"
        "\n"
        "create function f() returns int language plpgsql as $body$\n"
        "begin return 1; end;\n"
        "$body$;\n"
        "/* a; /* nested; */ comment */ select $$;$$, \"we;ird\", E'it\\'s;';\n"
        "select 1"
    )
    statements = split_statements(script)
    assert [s.line for s in statements] == [2, 4, 7, 8]
    assert statements[1].text.endswith("$body$;")
    assert statements[2].text.endswith("E'it\\'s;';")
    assert statements[3].text == "select 1"


def test_comment_only_script_has_no_statements() -> None:
    assert split_statements("-- nothing\n/* here; */\n;\n") == []


def test_semicolons_in_parentheses_and_begin_atomic_bodies_do_not_split() -> None:
    # pg_dump (and so supabase db dump/diff) writes SQL-standard function bodies this way.
    script = (
        "create function one() returns int language sql\n"
        "BEGIN /* body */ ATOMIC\n"
        "  select case when true then 1 else 2 end;\n"
        "  select 1;\n"
        "END;\n"
        "create rule r as on insert to t do also (insert into u values (1); insert into u values (2));\n"
        "select 1 as ñame; select 'begin atomic;'"
    )
    statements = split_statements(script)
    assert [s.line for s in statements] == [1, 6, 7, 7]
    assert statements[0].text.endswith("select 1;\nEND;")
    assert statements[1].text.endswith("insert into u values (2));")
    assert statements[3].text == "select 'begin atomic;'"
