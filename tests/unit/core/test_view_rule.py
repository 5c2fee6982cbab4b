"""server/core/view_rule.py: a view's select list read from its rule's pg_node_tree text."""

from __future__ import annotations

import pytest

from server.core.view_rule import TargetEntry, parse, target_entries


def test_target_entries_of_a_view_rule() -> None:
    action = (
        "({QUERY :commandType 1 :rtable ({RANGETBLENTRY :eref {ALIAS :aliasname a :colnames "
        '("id" "display\\ name")} :relid 16404}) :targetList ({TARGETENTRY :expr {VAR :varno 1 '
        ":varattno 1} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 16404 :resorigcol 1 "
        ":resjunk false} {TARGETENTRY :expr {CONST :consttype 25 :constvalue 4 [ 1 0 0 0 ]} :resno 2 "
        ":resname odd\\)\\ name :ressortgroupref 0 :resorigtbl 0 :resorigcol 0 :resjunk false} "
        "{TARGETENTRY :expr {SUBLINK :subselect {QUERY :targetList ({TARGETENTRY :resno 9 :resorigtbl 1 "
        ":resorigcol 1})}} :resno 3 :resname sub :resorigtbl 0 :resorigcol 0 :resjunk false}) :sortClause <>})"
    )
    entries = [(e.resno, e.origin_table, e.origin_column) for e in target_entries(action)]
    assert entries == [(1, 16404, 1), (2, 0, 0), (3, 0, 0)]


def test_junk_entries_are_left_out() -> None:
    # ORDER BY on a column the view does not show: a resjunk entry after the view's columns
    action = ("({QUERY :targetList ({TARGETENTRY :resno 1 :resname id :resorigtbl 7 :resorigcol 1 :resjunk false}"
              " {TARGETENTRY :resno 2 :resname <> :resorigtbl 7 :resorigcol 3 :resjunk true})})")
    assert target_entries(action) == [TargetEntry(1, 7, 1)]


def test_target_entries_tolerate_garbage() -> None:
    assert target_entries("") == []
    assert target_entries(")}}({") == []
    assert target_entries("(" * 100_000) == []  # deep nesting: no recursion to exhaust


def test_node_tree_reader_unescapes_tokens_and_keeps_structure() -> None:
    tree = parse(r'({QUERY :targetList ({TARGETENTRY :resno 1 :resname Writer\ Id :x <> :y \<> :z ("a" "b\)")})})')
    entry = tree[0]["targetList"][0][0]
    assert entry[""] == ["TARGETENTRY"] and entry["resno"] == ["1"] and entry["resname"] == ["Writer Id"]
    assert entry["x"] == [None] and entry["y"] == ["<>"] and entry["z"] == [['"a"', '"b)"']]
    deep = "(" + "{A :b " * 50_000 + "1" + "}" * 50_000 + ")"
    assert parse(deep)[0][""] == ["A"]


@pytest.mark.parametrize("text", ["", "({QUERY", "({QUERY})}", "({A :b (1})", "{A} {B}", ")"])
def test_node_tree_reader_refuses_unbalanced_text(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)
    assert target_entries(text) == []
