"""The `data` of a postgres_changes message: columns the role may select, old_record as
Realtime builds it from the replica identity, errors in place of the change."""

from __future__ import annotations

from server.realtime.changes import Change, change_data

COLS = [{"name": "id", "type": "int8"}, {"name": "owner", "type": "uuid"}, {"name": "body", "type": "text"}]
ROW = {"id": 1, "owner": "u", "body": "new", "secret": "x"}


def change(action: str, record: dict | None, old: dict | None) -> Change:
    return Change("public", "notes", action, record, old, "2024-01-01T00:00:00.000Z")


def test_update_carries_the_primary_key_as_old_record_by_default() -> None:
    data = change_data(change("UPDATE", ROW, {"id": 1}), COLS, None, True, ["id"])
    assert data["record"] == {"id": 1, "owner": "u", "body": "new"}  # `secret` is not selectable
    assert data["old_record"] == {"id": 1}


def test_update_with_replica_identity_full_carries_the_selectable_old_row() -> None:
    data = change_data(change("UPDATE", ROW, {**ROW, "body": "old"}), COLS, None, True, ["id"])
    assert data["old_record"] == {"id": 1, "owner": "u", "body": "old"}


def test_delete_under_rls_carries_the_primary_key_only() -> None:
    old = {**ROW, "body": "old"}
    assert change_data(change("DELETE", None, old), COLS, None, True, ["id"])["old_record"] == {"id": 1}
    assert "record" not in change_data(change("DELETE", None, old), COLS, None, True, ["id"])
    # Without RLS, the whole (selectable) identity.
    assert change_data(change("DELETE", None, old), COLS, None, False, ["id"])["old_record"] == {
        "id": 1, "owner": "u", "body": "old"}


def test_insert_has_no_old_record_and_an_error_replaces_the_change() -> None:
    data = change_data(change("INSERT", ROW, None), COLS, None, True, ["id"])
    assert "old_record" not in data and data["errors"] is None
    refused = change_data(change("INSERT", ROW, None), COLS, "Error 401: Unauthorized", True, ["id"])
    assert refused == {"schema": "public", "table": "notes", "type": "INSERT", "errors": ["Error 401: Unauthorized"]}
