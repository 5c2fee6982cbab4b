"""postgrest-py (the client supabase-py uses) against /rest/v1 over the REST fixture schema."""

from __future__ import annotations

import pytest
from postgrest import APIError, SyncPostgrestClient

from tests.rest.conftest import rest_database, rest_server  # noqa: F401  (module fixtures)


@pytest.fixture(scope="module")
def db(rest_server):  # noqa: F811
    key = rest_server.service_key
    with SyncPostgrestClient(f"{rest_server.url}/rest/v1", headers={"apikey": key, "Authorization": f"Bearer {key}"}) as client:
        yield client


def test_select_filters_embeds_and_count(db) -> None:
    r = db.from_("fx_books").select("title, fx_authors!author_id(name)", count="exact").gt("pages", 250).order("id").execute()
    assert r.count == 2
    assert r.data == [{"title": "The Dispossessed", "fx_authors": {"name": "Ursula"}},
                      {"title": "Guards! Guards!", "fx_authors": {"name": "Terry"}}]
    one = db.from_("fx_books").select("id").eq("title", "Mort").single().execute()
    assert one.data == {"id": 3}


def test_insert_upsert_update_delete_and_rpc(db) -> None:
    assert db.from_("fx_genres").insert({"name": "py-1"}).execute().data[0]["name"] == "py-1"
    r = db.from_("fx_genres").upsert({"name": "py-1"}, on_conflict="name", ignore_duplicates=True).execute()
    assert r.data == []
    assert db.from_("fx_genres").update({"name": "py-2"}).eq("name", "py-1").execute().data[0]["name"] == "py-2"
    assert [g["name"] for g in db.from_("fx_genres").delete().eq("name", "py-2").execute().data] == ["py-2"]
    assert db.rpc("fx_add", {"a": 20, "b": 22}).execute().data == 42


def test_errors_are_api_errors(db) -> None:
    with pytest.raises(APIError) as exc:
        db.from_("fx_genres").insert({"name": "fantasy"}).execute()
    assert exc.value.code == "23505"
    with pytest.raises(APIError) as exc:
        db.from_("fx_nope").select("*").execute()
    assert exc.value.code == "PGRST205"
