"""/rest/v1 against hostile requests, on a server with its own (non-demo) JWT secret.

Bodies are bounded (413 in PostgREST's error shape, before they cost memory) and read only
once the token is known good; caches fed by callers' tokens and URLs stay within their byte
budgets; numbers and nesting beyond sane bounds are 4xx (never 500); a PATCH of profile
columns the caller may not change is refused and changes nothing.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
import psycopg
import pytest

from server.core.conninfo import authenticator_password
from server.core.jwt import keys_from_settings
from server.rest.api_request.bounds import MAX_JSON_PATH, MAX_NESTING
from tests import harness
from tests.app.personas import create_user, owner

MAX_BODY = 10 * 1024 * 1024  # the default SUPALITE_REST_MAX_BODY_BYTES
MB = 1024 * 1024


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("""
            create or replace function public.cancelled_for_test() returns text language plpgsql as $$
            begin raise exception 'canceling statement due to statement timeout' using errcode = '57014'; end $$;
            grant execute on function public.cancelled_for_test() to anon, authenticated;
            notify pgrst, 'reload schema';
        """)
    # a secret of its own; the database's authenticator keeps the password it was migrated with
    env = {"SUPALITE_JWT_SECRET": secrets.token_urlsafe(48),
           "SUPALITE_AUTHENTICATOR_PASSWORD": authenticator_password(harness.base_settings(database_url))}
    live = harness.start_server(database_url, args=["--no-migrate"], extra_env=env)
    yield live
    live.stop()


@pytest.fixture(scope="module")
def db(database_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url) as conn:
        yield conn


def sign(server: harness.LiveServer, sub: uuid.UUID | str, **claims: Any) -> str:
    body = {"sub": str(sub), "role": "authenticated", "aud": "authenticated", "exp": int(time.time()) + 3600, **claims}
    return keys_from_settings(server.settings).sign(body)


def headers(server: harness.LiveServer, token: str | None = None, **extra: str) -> dict[str, str]:
    return {"apikey": server.anon_key, "authorization": f"Bearer {token or server.anon_key}", **extra}


def assert_postgrest_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text[:500]
    body = response.json()
    assert set(body) == {"code", "message", "details", "hint"}, body
    if code is not None:
        assert body["code"] == code, body
    return body


def count_courses(db: psycopg.Connection) -> int:
    return owner(db, "select count(*) as n from public.courses")[0]["n"]


# -- raw HTTP, for bodies a client library would not send --------------------------------

def exchange(server: harness.LiveServer, head: bytes, body_chunks: Iterable[bytes] = ()) -> bytes:
    """Send `head`, then the body chunks while another thread collects the answer; return
    the first complete response (the server does not wait for a refused body to end)."""
    port = int(server.url.rsplit(":", 1)[1])
    answer = bytearray()
    done = threading.Event()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        def read() -> None:
            try:
                while not _complete(answer):
                    data = sock.recv(65536)
                    if not data:
                        break
                    answer.extend(data)
            except OSError:
                pass
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            sock.sendall(head)
            for chunk in body_chunks:
                if done.is_set():
                    break
                sock.sendall(chunk)
        except OSError:
            pass
        reader.join(30)
    return bytes(answer)


def _complete(answer: bytearray) -> bool:
    head, sep, rest = bytes(answer).partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(rest) >= int(value)
    return False


def parse_answer(answer: bytes) -> tuple[int, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def post_head(server: harness.LiveServer, token: str, extra: str) -> bytes:
    return (f"POST /rest/v1/courses HTTP/1.1\r\nHost: x\r\napikey: {server.anon_key}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n{extra}\r\n").encode()


# -- 1. bodies: bounded, read only after the token ----------------------------------------

def test_a_declared_body_over_the_bound_is_refused_before_it_is_sent(server, db) -> None:
    before = count_courses(db)
    # only the head goes out: the answer comes without the server waiting for 200 MB
    answer = exchange(server, post_head(server, server.anon_key, f"Content-Length: {200 * MB}\r\n"))
    status, body = parse_answer(answer)
    assert status == 413, answer[:300]
    error = httpx.Response(413, content=body).json()
    assert error["code"] == "PGRST413" and set(error) == {"code", "message", "details", "hint"}
    assert str(MAX_BODY) in error["details"]
    assert count_courses(db) == before


def test_a_chunked_body_is_counted_while_read_and_memory_stays_flat(server, db) -> None:
    before_rows = count_courses(db)
    rss = harness.process_tree_rss(server.process.pid)
    chunk = b"%x\r\n%s\r\n" % (MB, b" " * MB)
    for _ in range(3):
        # 60 MB offered in chunks: refused once past 10 MiB, the rest discarded as it comes
        answer = exchange(server, post_head(server, server.anon_key, "Transfer-Encoding: chunked\r\n"),
                          iter([chunk] * 60))
        status, body = parse_answer(answer)
        assert status == 413 and b"PGRST413" in body, answer[:300]
    grown = harness.process_tree_rss(server.process.pid) - rss
    assert grown < 40 * MB, f"RSS grew by {grown / MB:.0f} MB"
    assert count_courses(db) == before_rows
    assert httpx.get(f"{server.url}/rest/v1/courses?select=id", headers=headers(server)).status_code == 200


def test_an_invalid_token_is_refused_before_the_body_is_read(server) -> None:
    # the body is announced and never sent: the 401 cannot wait for it
    answer = exchange(server, post_head(server, "not-a-jwt", f"Content-Length: {5 * MB}\r\n"))
    status, body = parse_answer(answer)
    assert status == 401, answer[:300]
    assert httpx.Response(401, content=body).json()["code"] == "PGRST301"


def test_a_body_within_the_bound_is_served(server, db) -> None:
    # a large (parsed in a worker thread) but legitimate request reaches the database as usual
    rows = [{"title": f"Course {i} " + "x" * 100} for i in range(20_000)]
    response = httpx.post(f"{server.url}/rest/v1/courses", json=rows, headers=headers(server), timeout=60)
    assert_postgrest_error(response, 401, "42501")  # anon may not create courses: RLS decides


def test_large_csv_and_json_bodies_are_parsed_correctly(server) -> None:
    # over the inline threshold: parsed in a worker thread, with the same answers
    csv_body = "title\n" + "".join(f"Course {i}\n" for i in range(50_000))
    response = httpx.post(f"{server.url}/rest/v1/courses", content=csv_body.encode(), timeout=60,
                          headers=headers(server, server.service_key, **{"content-type": "text/csv", "prefer": "tx=rollback, count=exact"}))
    assert response.status_code == 201, response.text[:300]
    assert response.headers["content-range"] == "*/50000"


def test_csv_field_over_the_csv_limit_is_a_400(server) -> None:
    body = b"title\n" + b"x" * 200_000 + b"\n"
    response = httpx.post(f"{server.url}/rest/v1/courses", content=body,
                          headers=headers(server, server.service_key, **{"content-type": "text/csv"}))
    assert_postgrest_error(response, 400, "PGRST102")


def test_json_nested_deeper_than_the_encoder_takes_is_a_400(server, db) -> None:
    admin = create_user(db, "deep-admin", admin=True)
    before = owner(db, "select * from app_private.profiles where id = %s", [admin])
    deep = "[" * 600 + "]" * 600
    response = httpx.patch(f"{server.url}/rest/v1/profiles?id=eq.{admin}", content=f'{{"full_name": {deep}}}'.encode(),
                           headers=headers(server, sign(server, admin), **{"content-type": "application/json"}))
    assert_postgrest_error(response, 400, "PGRST102")
    assert owner(db, "select * from app_private.profiles where id = %s", [admin]) == before


# -- 3. caches bounded in bytes -----------------------------------------------------------

def test_many_large_valid_tokens_do_not_grow_memory(server) -> None:
    big = "x" * 20_000  # a token carrying 20 KB of metadata, under the 32 KiB token bound
    url = f"{server.url}/rest/v1/courses?select=id&limit=1"
    with httpx.Client(timeout=30) as client:
        for i in range(20):  # warm up allocator and caches
            client.get(url, headers=headers(server, sign(server, uuid.uuid4(), user_metadata={"pad": big, "i": i})))
        rss = harness.process_tree_rss(server.process.pid)
        for i in range(1000):
            token = sign(server, uuid.uuid4(), user_metadata={"pad": big, "i": i})
            assert client.get(url, headers=headers(server, token)).status_code == 200
    grown = harness.process_tree_rss(server.process.pid) - rss
    # unbounded, 1000 tokens of ~27 KB with their claims held ~80 MB
    print(f"tokens: RSS grew by {grown / MB:.1f} MB")
    assert grown < 30 * MB, f"RSS grew by {grown / MB:.0f} MB"


def test_many_large_distinct_urls_do_not_grow_memory(server) -> None:
    ids = ",".join(str(uuid.UUID(int=i)) for i in range(1_200))  # ~44 KB of query string
    with httpx.Client(timeout=30) as client:
        def get(i: int) -> None:
            response = client.get(f"{server.url}/rest/v1/courses?select=id&limit={i}&id=in.({ids})", headers=headers(server))
            assert response.status_code == 200, response.text[:300]

        for i in range(20):
            get(i)
        rss = harness.process_tree_rss(server.process.pid)
        for i in range(20, 620):
            get(i)
    grown = harness.process_tree_rss(server.process.pid) - rss
    # unbounded, each cached plan held its 44 KB key and 44 KB of bound values
    print(f"urls: RSS grew by {grown / MB:.1f} MB")
    assert grown < 30 * MB, f"RSS grew by {grown / MB:.0f} MB"


# -- 4. numbers and nesting: 4xx, never 500 -----------------------------------------------

HUGE = "9" * 5000

HOSTILE_QUERIES = {
    "limit with thousands of digits": f"select=id&limit={HUGE}",
    "offset with thousands of digits": f"select=id&offset={HUGE}",
    "limit past bigint": "select=id&limit=9223372036854775808",
    "embed limit with thousands of digits": f"select=id,course_content(id)&course_content.limit={HUGE}",
    "embed offset past bigint": "select=id,course_content(id)&course_content.offset=99999999999999999999",
    "or nested hundreds deep": "or=(" + "or(" * 1000 + "title.eq.x" + ")" * 1001,
    "and/or nested one level too deep": "or=(" + "and(" * MAX_NESTING + "title.eq.x" + ")" * (MAX_NESTING + 1),
    "select embeds hundreds deep": "select=" + "course_content(" * 1000 + "id" + ")" * 1000,
    "select embeds one level too deep": "select=" + "course_content(" * (MAX_NESTING + 1) + "id" + ")" * (MAX_NESTING + 1),
    "JSON path hundreds deep in select": "select=id,title" + "->a" * 500,
    "JSON path hundreds deep in a filter": "title" + "->a" * 500 + "=eq.1",
    "JSON path one step too long": "title" + "->a" * (MAX_JSON_PATH + 1) + "=eq.1",
    "JSON array index with thousands of digits": f"title->{HUGE}=eq.1",
}


@pytest.mark.parametrize("query", HOSTILE_QUERIES.values(), ids=HOSTILE_QUERIES.keys())
def test_hostile_query_strings_are_400(server, query: str) -> None:
    response = httpx.get(f"{server.url}/rest/v1/courses?{query}", headers=headers(server))
    body = assert_postgrest_error(response, 400, "PGRST100")
    assert "failed to parse" in body["message"]


@pytest.mark.parametrize("value", [f"0-{HUGE}", f"{HUGE}-", "0-99999999999999999999"])
def test_range_header_numbers_out_of_range_are_416(server, value: str) -> None:
    response = httpx.get(f"{server.url}/rest/v1/courses?select=id", headers=headers(server, range=value))
    assert_postgrest_error(response, 416, "PGRST103")


@pytest.mark.parametrize("prefer", [f"max-affected={HUGE}", "max-affected=²", "max-affected=99999999999999999999"])
def test_out_of_range_max_affected_is_an_invalid_preference(server, db, prefer: str) -> None:
    admin = create_user(db, "prefer-admin", admin=True)
    before = count_courses(db)
    response = httpx.post(f"{server.url}/rest/v1/courses", json={"title": "Never created"},
                          headers={**headers(server, sign(server, admin)),
                                   "prefer": f"handling=strict, {prefer}".encode("latin-1")})
    assert_postgrest_error(response, 400, "PGRST122")
    assert count_courses(db) == before


def test_nesting_within_the_bounds_is_served(server) -> None:
    within = {
        "or": "or=(" + "or(" * (MAX_NESTING - 1) + "title.eq.x" + ")" * MAX_NESTING,
        "json path": "select=id&title" + "->>a" * 1 + "=eq.x",
        "limit at bigint": "select=id&limit=9223372036854775807&offset=0",
    }
    for name, query in within.items():
        response = httpx.get(f"{server.url}/rest/v1/courses?{query}", headers=headers(server))
        assert response.status_code < 500, (name, response.text[:300])
    response = httpx.get(f"{server.url}/rest/v1/courses?select=id&limit=9223372036854775807", headers=headers(server))
    assert response.status_code == 200


# -- 5. profiles: a write reports what the database did -----------------------------------

@pytest.mark.parametrize("column", ["email", "id", "created_at"])
def test_learner_patching_a_column_they_may_not_change_is_refused(server, db, column: str) -> None:
    learner = create_user(db, "patcher")
    other = create_user(db, "other")
    before = owner(db, "select * from app_private.profiles where id in (%s, %s) order by id", [learner, other])
    value = {"email": "attacker@example.com", "id": str(other), "created_at": "2000-01-01T00:00:00Z"}[column]
    response = httpx.patch(f"{server.url}/rest/v1/profiles?id=eq.{learner}", json={column: value},
                           headers=headers(server, sign(server, learner), prefer="return=representation"))
    body = assert_postgrest_error(response, 403, "42501")
    assert "attacker" not in body["message"]
    assert owner(db, "select * from app_private.profiles where id in (%s, %s) order by id", [learner, other]) == before


def test_allowed_changes_answer_the_stored_row(server, db) -> None:
    admin = create_user(db, "patch-admin", admin=True)
    learner = create_user(db, "patched")
    response = httpx.patch(f"{server.url}/rest/v1/profiles?id=eq.{learner}",
                           json={"full_name": "Renamed", "paid": True, "expire_date": "2030-01-01T00:00:00+00:00"},
                           headers=headers(server, sign(server, admin), prefer="return=representation"))
    assert response.status_code == 200, response.text
    [row] = response.json()
    stored = owner(db, "select full_name, paid, email from app_private.profiles where id = %s", [learner])[0]
    assert (row["full_name"], row["paid"], row["email"]) == (stored["full_name"], stored["paid"], stored["email"])
    assert stored["full_name"] == "Renamed" and stored["paid"] is True


def test_learner_renaming_themselves_still_works(server, db) -> None:
    learner = create_user(db, "renamer")
    response = httpx.patch(f"{server.url}/rest/v1/profiles?id=eq.{learner}", json={"full_name": "New"},
                           headers=headers(server, sign(server, learner), prefer="return=representation"))
    assert response.status_code == 200 and response.json()[0]["full_name"] == "New"


# -- 6. a cancelled statement maps as in PostgREST ------------------------------------------

def test_query_canceled_maps_to_500_with_its_sqlstate(server) -> None:
    response = httpx.post(f"{server.url}/rest/v1/rpc/cancelled_for_test", json={}, headers=headers(server))
    body = assert_postgrest_error(response, 500, "57014")  # PostgREST: SQLSTATE class 57 is a 500
    assert "statement timeout" in body["message"]


# -- 7. a deadlock between two writes: one answered 40P01, nothing half-applied ------------

DEADLOCK_SCHEMA = """
create table public.deadlock_accounts (id int primary key, balance int not null);
create table public.deadlock_ledger (id bigint generated always as identity primary key, note text not null);
insert into public.deadlock_accounts values (1, 100), (2, 100);
-- a transfer locks its source row, waits, then its target: two in opposite directions deadlock
create function public.deadlock_transfer(source int, target int, amount int) returns int
language plpgsql as $$
begin
  insert into public.deadlock_ledger (note) values (format('%s -> %s: %s', source, target, amount));
  update public.deadlock_accounts set balance = balance - amount where id = source;
  perform pg_sleep(0.5);
  update public.deadlock_accounts set balance = balance + amount where id = target;
  return amount;
end $$;
grant select, update on public.deadlock_accounts to authenticated;
grant select, insert on public.deadlock_ledger to authenticated;
grant execute on function public.deadlock_transfer(int, int, int) to authenticated;
notify pgrst, 'reload schema';
"""


def test_a_deadlock_answers_40p01_to_one_write_and_applies_only_the_other(server, db) -> None:
    """PostgREST's answer (500, SQLSTATE 40P01 with PostgreSQL's details and hint); the
    losing transaction is rolled back whole (its ledger row too) and not run again: the
    tables hold exactly the winner's transfer."""
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute(DEADLOCK_SCHEMA)
    user = headers(server, sign(server, uuid.uuid4()))
    deadline = time.monotonic() + 10
    while httpx.get(f"{server.url}/rest/v1/deadlock_ledger", headers=user).status_code != 200:
        assert time.monotonic() < deadline, "the schema cache never saw the tables"
        time.sleep(0.05)
    transfers = [(1, 2, 10), (2, 1, 20)]
    start = threading.Barrier(len(transfers))
    answers: dict[int, httpx.Response] = {}

    def transfer(source: int, target: int, amount: int) -> None:
        start.wait()
        answers[amount] = httpx.post(f"{server.url}/rest/v1/rpc/deadlock_transfer", headers=user, timeout=30,
                                     json={"source": source, "target": target, "amount": amount})

    threads = [threading.Thread(target=transfer, args=args) for args in transfers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = {amount: r.status_code for amount, r in answers.items()}
    assert sorted(statuses.values()) == [200, 500], {a: r.text for a, r in answers.items()}
    winner = next(amount for amount, status in statuses.items() if status == 200)
    loser = next(amount for amount, status in statuses.items() if status == 500)
    assert answers[winner].json() == winner
    body = assert_postgrest_error(answers[loser], 500, "40P01")
    assert body["message"] == "deadlock detected"
    assert "waits for ShareLock on transaction" in body["details"]
    assert body["hint"] == "See server log for query details."
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        balances = dict(conn.execute("select id, balance from public.deadlock_accounts order by id").fetchall())
        ledger = [note for (note,) in conn.execute("select note from public.deadlock_ledger")]
    source, target, _ = next(t for t in transfers if t[2] == winner)
    assert balances == {source: 100 - winner, target: 100 + winner}
    assert ledger == [f"{source} -> {target}: {winner}"]
