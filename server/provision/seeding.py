"""`supalite seed`: load a project's demo data (`<project>/seed/seed.py`, function `run(seeder)`).

Generic: the project's script decides what to create; the Seeder gives it what Supabase's
own seeding needs: the owner's connection, auth users with confirmed e-mail and a bcrypt
password (GoTrue's format; pgcrypto may be missing), and objects, uploaded through the
storage API in-process (service role, upsert) so they land wherever the backend keeps them.
Refused in production (a real JWT secret, not a dev machine). Scripts must be idempotent.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import bcrypt
import orjson
import psycopg

from server.core.config import ConfigError, Settings

log = logging.getLogger("supalite.seed")

BCRYPT_COST = 10  # GoTrue's default cost


@dataclass
class PendingObject:
    bucket: str
    name: str
    data: bytes
    content_type: str


@dataclass
class Seeder:
    """What a project's seed script receives."""

    settings: Settings
    conn: psycopg.Connection
    objects: list[PendingObject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def app_settings(self) -> dict[str, str]:
        return self.settings.app_settings

    def execute(self, query: Any, params: Any = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(query, params)
        return cur.fetchall() if cur.description else []

    def user(self, email: str, password: str, *, user_metadata: dict[str, Any] | None = None,
             user_id: uuid.UUID | None = None) -> uuid.UUID:
        """An e-mail/password auth user (confirmed); an existing one is kept as it is."""
        email = email.strip().lower()
        row = self.conn.execute("select id from auth.users where email = %s and not is_sso_user", [email]).fetchone()
        if row:
            existing: uuid.UUID = row[0]  # psycopg reads a uuid column as uuid.UUID
            return existing
        uid = user_id or uuid.uuid4()
        hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(BCRYPT_COST)).decode()
        metadata = orjson.dumps(user_metadata or {}).decode()
        app_metadata = orjson.dumps({"provider": "email", "providers": ["email"]}).decode()
        self.conn.execute(
            """insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                 raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
               values ('00000000-0000-0000-0000-000000000000', %s, 'authenticated', 'authenticated', %s, %s, now(),
                 %s, %s, now(), now())""",
            [uid, email, hashed, app_metadata, metadata],
        )
        identity = orjson.dumps({"sub": str(uid), "email": email, "email_verified": True}).decode()
        self.conn.execute(
            """insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
               values (%s, %s, %s, 'email', now(), now())""",
            [str(uid), uid, identity],
        )
        return uid

    def put_object(self, bucket: str, name: str, data: bytes, content_type: str) -> None:
        """Uploaded (upsert) once the script's rows are committed."""
        self.objects.append(PendingObject(bucket, name, data, content_type))

    def note(self, line: str) -> None:
        """A line printed when seeding is done (e.g. demo credentials)."""
        self.notes.append(line)


def check_seed_allowed(settings: Settings) -> None:
    if not (settings.uses_demo_secret or settings.dev):
        raise ConfigError("refusing to seed a production server (real JWT secret): demo data is for dev machines")


def load_script(project_dir: Path) -> Any | None:
    path = project_dir / "seed" / "seed.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("supalite_project_seed", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "run", None)):
        raise ConfigError(f"{path} must define run(seeder)")
    return module


def run_seed(settings: Settings, owner_url: str) -> list[str]:
    """Run the project's seed script in one transaction, then upload its objects."""
    check_seed_allowed(settings)
    module = load_script(settings.project_dir)
    if module is None:
        log.info("no seed/seed.py in %s: nothing to seed", settings.project_dir)
        return []
    with psycopg.connect(owner_url) as conn:
        seeder = Seeder(settings, conn)
        with conn.transaction():
            module.run(seeder)
    if seeder.objects:
        asyncio.run(upload_objects(settings.with_overrides(database_url=owner_url), seeder.objects))
    return seeder.notes


async def upload_objects(settings: Settings, objects: list[PendingObject]) -> None:
    """POST each object to the storage service as the service role, in-process."""
    from server import storage
    from server.core.context import build_context
    from server.core.jwt import service_role_key

    ctx = build_context(settings)
    app = storage.build(ctx, reap=False)
    key = service_role_key(settings)
    await ctx.api_pool.open(wait=True, timeout=30)
    await ctx.admin_pool.open(wait=True, timeout=30)
    try:
        for hook in ctx.on_startup:
            await hook()
        for obj in objects:
            path = f"/object/{quote(obj.bucket)}/{quote(obj.name)}"
            headers = {"authorization": f"Bearer {key}", "apikey": key, "x-upsert": "true",
                       "content-type": obj.content_type, "cache-control": "max-age=3600"}
            status, body = await asgi_call(app, "POST", path, headers, obj.data)
            if status >= 300:
                raise ConfigError(f"seed: upload of {obj.bucket}/{obj.name} failed ({status}): {body[:200]!r}")
    finally:
        for hook in reversed(ctx.on_shutdown):
            await hook()
        await ctx.admin_pool.close()
        await ctx.api_pool.close()


async def asgi_call(app: Any, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """One HTTP request straight into an ASGI app (no socket)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        + [(b"content-length", str(len(body)).encode()), (b"host", b"localhost")],
        "client": ("127.0.0.1", 0), "server": ("localhost", 80),
    }
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    status = 500
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)
