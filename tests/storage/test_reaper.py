"""Stored bytes follow their rows: a storage.objects row deleted or re-keyed in SQL (by the
owner, or by an app trigger fired through /rest/v1 under an admin's RLS) takes its bytes
with it, on the file backend and on S3 (moto); replaced and still-referenced bytes stay."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg import sql

from server.core.jwt import keys_from_settings
from server.storage.backends.s3 import make_client
from tests import harness
from tests.storage.support import create_bucket, run_sql, service_headers, user_token

S3_BUCKET = "supalite-reaper"

DOCS_TABLE = """
create table public.reaper_docs (
  id bigint generated always as identity primary key, bucket text not null, path text not null);
alter table public.reaper_docs enable row level security;
grant select, delete on public.reaper_docs to authenticated;
create policy reaper_docs_admin on public.reaper_docs for all to authenticated
  using ((auth.jwt() -> 'app_metadata' ->> 'role') = 'admin');
create function public.reaper_docs_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from storage.objects where bucket_id = old.bucket and name = old.path;
  return old;
end
$$;
create trigger reaper_docs_deleted after delete on public.reaper_docs
  for each row execute function public.reaper_docs_deleted();
"""


@dataclass
class World:
    server: harness.LiveServer
    client: httpx.Client
    bucket: str
    keys: Callable[[str], list[str]]  # backend keys stored under a prefix

    def upload(self, name: str, data: bytes, upsert: bool = False) -> None:
        headers = {**service_headers(self.server), "content-type": "text/plain"}
        if upsert:
            headers["x-upsert"] = "true"
        response = self.client.post(f"/storage/v1/object/{self.bucket}/{name}", content=data, headers=headers)
        assert response.status_code == 200, response.text

    def sql(self, statement: str, params: list[object] | None = None) -> list[tuple]:
        with psycopg.connect(self.server.database_url, autocommit=True) as conn:
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else []

    def wait_keys(self, name: str, count: int) -> list[str]:
        """Wait for the reaper (it works after commit, in the background) to leave `count` keys."""
        deadline = time.monotonic() + 20
        while True:
            keys = self.keys(f"{self.bucket}/{name}/")
            if len(keys) == count or time.monotonic() > deadline:
                return keys
            time.sleep(0.05)

    def wait_queue_empty(self) -> int:
        deadline = time.monotonic() + 20
        while True:
            (left,), = self.sql("select count(*) from storage.deleted_objects")
            if left == 0 or time.monotonic() > deadline:
                return left
            time.sleep(0.05)


def file_keys(root: Path) -> Callable[[str], list[str]]:
    def keys(prefix: str) -> list[str]:
        # os.walk, not rglob: folders may vanish while walked (the reaper prunes them).
        found = [Path(top, name) for top, _, names in os.walk(root / prefix) for name in names]
        return sorted(str(p.relative_to(root)) for p in found if not p.name.startswith("."))

    return keys


def s3_keys(endpoint: str) -> Callable[[str], list[str]]:
    client = make_client(endpoint, "testing", "testing", "us-east-1")

    def keys(prefix: str) -> list[str]:
        return sorted(o.object_name for o in client.list_objects(S3_BUCKET, prefix=prefix, recursive=True))

    return keys


@pytest.fixture(scope="module", params=["file", "s3"])
def world(request: pytest.FixtureRequest, template_ready: str) -> Iterator[World]:
    # A database per backend: a server's reaper drains the whole queue of its database.
    db_name = harness.unique_name(f"t_reaper_{request.param}")
    database_url = harness.create_database_from_template(template_ready, db_name)
    data_dir = harness.scratch_dir("supalite-reaper-")
    env: dict[str, str] = {}
    if request.param == "s3":
        endpoint = request.getfixturevalue("s3_endpoint")
        env = {"STORAGE_BACKEND": "s3", "STORAGE_S3_ENDPOINT": endpoint, "STORAGE_S3_BUCKET": S3_BUCKET,
               "STORAGE_S3_ACCESS_KEY": "testing", "STORAGE_S3_SECRET_KEY": "testing"}
        keys = s3_keys(endpoint)
    else:
        keys = file_keys(data_dir / "storage")
    server = harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir, extra_env=env)
    run_sql(server, "drop table if exists public.reaper_docs cascade;"
                    " drop function if exists public.reaper_docs_deleted() cascade;" + DOCS_TABLE)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            bucket = f"reap-{uuid.uuid4().hex[:6]}"
            create_bucket(client, server, bucket)
            yield World(server, client, bucket, keys)
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        harness.drop_database(template_ready, db_name)


def admin_token(server: harness.LiveServer) -> str:
    now = int(time.time())
    return keys_from_settings(server.settings).sign(
        {"sub": str(uuid.uuid4()), "role": "authenticated", "aud": "authenticated", "iat": now, "exp": now + 3600,
         "app_metadata": {"role": "admin"}})


def rest_headers(server: harness.LiveServer, token: str) -> dict[str, str]:
    return {"apikey": server.anon_key, "Authorization": f"Bearer {token}"}


def test_owner_sql_delete_removes_the_bytes(world: World) -> None:
    world.upload("owner/a.txt", b"owned")
    assert len(world.keys(f"{world.bucket}/owner/a.txt/")) == 1
    world.sql("delete from storage.objects where bucket_id = %s and name = %s", [world.bucket, "owner/a.txt"])
    assert world.wait_keys("owner/a.txt", 0) == []
    assert world.wait_queue_empty() == 0


def test_admin_delete_through_rest_trigger_removes_the_bytes(world: World) -> None:
    world.upload("lessons/one.txt", b"lesson one")
    world.upload("lessons/two.txt", b"lesson two")
    rows = world.sql("insert into public.reaper_docs (bucket, path) values (%s, 'lessons/one.txt'), (%s, 'lessons/two.txt')"
                     " returning id", [world.bucket, world.bucket])
    first, second = rows[0][0], rows[1][0]
    admin = rest_headers(world.server, admin_token(world.server))
    deadline = time.monotonic() + 10  # the schema cache reloads after the DDL
    while world.client.get("/rest/v1/reaper_docs", headers=admin).status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.1)

    # A plain user's delete matches no row under RLS: nothing is queued.
    _, user = user_token(world.server)
    response = world.client.delete(f"/rest/v1/reaper_docs?id=eq.{first}", headers=rest_headers(world.server, user))
    assert response.status_code == 204, response.text
    assert world.sql("select count(*) from storage.deleted_objects")[0][0] == 0

    response = world.client.delete(f"/rest/v1/reaper_docs?id=eq.{first}", headers=admin)
    assert response.status_code == 204, response.text
    assert world.wait_keys("lessons/one.txt", 0) == []
    assert len(world.keys(f"{world.bucket}/lessons/two.txt/")) == 1
    got = world.client.get(f"/storage/v1/object/{world.bucket}/lessons/two.txt", headers=service_headers(world.server))
    assert got.content == b"lesson two"
    world.sql("delete from public.reaper_docs where id = %s", [second])
    assert world.wait_keys("lessons/two.txt", 0) == []
    assert world.wait_queue_empty() == 0


def test_rolled_back_delete_queues_nothing(world: World) -> None:
    world.upload("kept.txt", b"kept")
    with psycopg.connect(world.server.database_url) as conn:
        conn.execute("delete from storage.objects where bucket_id = %s and name = 'kept.txt'", [world.bucket])
        assert conn.execute("select count(*) from storage.deleted_objects").fetchone() == (1,)
        conn.rollback()
    assert world.sql("select count(*) from storage.deleted_objects")[0][0] == 0
    assert len(world.keys(f"{world.bucket}/kept.txt/")) == 1


def test_an_upsert_that_replaces_a_version_queues_the_old_key(world: World) -> None:
    world.upload("conflict.txt", b"v1")
    (version,), = world.sql("select version from storage.objects where bucket_id = %s and name = 'conflict.txt'",
                            [world.bucket])
    with psycopg.connect(world.server.database_url) as conn:
        conn.execute("insert into storage.objects (bucket_id, name, version) values (%s, 'conflict.txt', 'v2')"
                     " on conflict (bucket_id, name) do update set version = excluded.version", [world.bucket])
        queued = conn.execute("select bucket_id, name, version from storage.deleted_objects").fetchall()
        conn.rollback()
    assert queued == [(world.bucket, "conflict.txt", version)]


def test_sql_rename_reaps_the_old_key(world: World) -> None:
    world.upload("rename/before.txt", b"renamed")
    world.sql("update storage.objects set name = 'rename/after.txt' where bucket_id = %s and name = 'rename/before.txt'",
              [world.bucket])
    assert world.wait_keys("rename/before.txt", 0) == []
    assert world.wait_queue_empty() == 0
    # A change that keeps the key (metadata only) queues nothing.
    world.upload("rename/meta.txt", b"meta")
    world.sql("update storage.objects set user_metadata = '{\"a\": 1}' where bucket_id = %s and name = 'rename/meta.txt'",
              [world.bucket])
    assert world.sql("select count(*) from storage.deleted_objects")[0][0] == 0


def test_upsert_keeps_the_new_bytes(world: World) -> None:
    world.upload("up/file.txt", b"first")
    world.upload("up/file.txt", b"second", upsert=True)
    world.upload("up/file.txt", b"third", upsert=True)
    assert world.wait_queue_empty() == 0
    (version,), = world.sql("select version from storage.objects where bucket_id = %s and name = 'up/file.txt'",
                            [world.bucket])
    assert world.keys(f"{world.bucket}/up/file.txt/") == [f"{world.bucket}/up/file.txt/{version}"]
    got = world.client.get(f"/storage/v1/object/{world.bucket}/up/file.txt", headers=service_headers(world.server))
    assert got.content == b"third"


def test_api_delete_and_reaper_both_deleting_is_harmless(world: World) -> None:
    world.upload("twice/a.txt", b"a")
    world.upload("twice/b.txt", b"b")
    h = service_headers(world.server)
    assert world.client.delete(f"/storage/v1/object/{world.bucket}/twice/a.txt", headers=h).status_code == 200
    removed = world.client.request("DELETE", f"/storage/v1/object/{world.bucket}", headers=h,
                                   json={"prefixes": ["twice/b.txt"]})
    assert removed.status_code == 200 and len(removed.json()) == 1
    assert world.wait_queue_empty() == 0
    assert world.keys(f"{world.bucket}/twice/") == []
    assert "storage reaper" not in world.server.log()


def test_a_queued_key_still_referenced_is_not_reaped(world: World) -> None:
    world.upload("live.txt", b"still here")
    (version,), = world.sql("select version from storage.objects where bucket_id = %s and name = 'live.txt'",
                            [world.bucket])
    world.sql("insert into storage.deleted_objects (bucket_id, name, version) values (%s, 'live.txt', %s)",
              [world.bucket, version])
    world.sql("notify storage_deleted_objects")
    assert world.wait_queue_empty() == 0
    assert world.keys(f"{world.bucket}/live.txt/") == [f"{world.bucket}/live.txt/{version}"]


def test_the_queue_is_out_of_reach_of_the_api_roles(world: World) -> None:
    for role in ("anon", "authenticated", "service_role"):
        with psycopg.connect(world.server.database_url) as conn:
            conn.execute(sql.SQL("set role {}").format(sql.Identifier(role)))
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("select count(*) from storage.deleted_objects")


def test_several_processes_share_the_queue(database_url: str) -> None:
    """Two servers on one database and one data dir: each key is reaped, none errors."""
    data_dir = harness.scratch_dir("supalite-reaper-pair-")
    servers = [harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir) for _ in range(2)]
    try:
        with httpx.Client(base_url=servers[0].url, timeout=30) as client:
            bucket = f"pair-{uuid.uuid4().hex[:6]}"
            create_bucket(client, servers[0], bucket)
            pair = World(servers[0], client, bucket, file_keys(data_dir / "storage"))
            for i in range(40):
                pair.upload(f"many/{i:02d}.txt", b"x" * i)
            assert len(pair.keys(f"{bucket}/many/")) == 40
            pair.sql("delete from storage.objects where bucket_id = %s", [bucket])
            assert pair.wait_keys("many", 0) == []
            assert pair.wait_queue_empty() == 0
        for server in servers:
            assert "storage reaper" not in server.log()
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
