"""What the storage tests share: headers for the API keys, user tokens, owner SQL."""

from __future__ import annotations

import time
import uuid

import httpx
import psycopg

from server.core.jwt import keys_from_settings
from tests.harness import LiveServer


def user_token(server: LiveServer, user_id: str | None = None) -> tuple[str, str]:
    """(user id, access token) of an authenticated user, signed like GoTrue signs them."""
    user_id = user_id or str(uuid.uuid4())
    now = int(time.time())
    token = keys_from_settings(server.settings).sign(
        {"sub": user_id, "role": "authenticated", "aud": "authenticated", "iat": now, "exp": now + 3600})
    return user_id, token


def headers(server: LiveServer, token: str | None = None) -> dict[str, str]:
    return {"apikey": server.anon_key, "Authorization": f"Bearer {token or server.anon_key}"}


def service_headers(server: LiveServer) -> dict[str, str]:
    return {"apikey": server.service_key, "Authorization": f"Bearer {server.service_key}"}


def run_sql(server: LiveServer, statement: str) -> None:
    """Owner SQL (policies), as a project's policies/*.sql would run it."""
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute(statement.encode())


def own_folder_policies(server: LiveServer, bucket: str) -> None:
    """Authenticated users read and write only `<their id>/...` in `bucket`."""
    check = (f"bucket_id = '{bucket}' and (storage.foldername(name))[1] = (select auth.uid()::text)")
    for action, clause in (("select", "using"), ("insert", "with check"), ("update", "using"), ("delete", "using")):
        run_sql(server, f"create policy \"{bucket} own {action}\" on storage.objects for {action} "
                        f"to authenticated {clause} ({check})")


def create_bucket(client: httpx.Client, server: LiveServer, name: str, **options: object) -> None:
    response = client.post("/storage/v1/bucket", json={"name": name, **options}, headers=service_headers(server))
    assert response.status_code == 200, response.text
