"""Devices are the auth sessions: every way in appears in public.user_sessions and can be
ended by the user or an admin; sessions end by time box and inactivity; a recovery or magic
link at the device limit ends the least recently used session instead of refusing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_server, new_email

PASSWORD = "secret-pass"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
# The site's settings: two devices, sessions end after 30 days, or after a week unused.
SITE_ENV = {"SUPALITE_AUTH_MAX_SESSIONS": "2", "SUPALITE_AUTH_SESSIONS_TIMEBOX": "720h",
            "SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT": "168h"}


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, SITE_ENV) as live:
        yield live


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def admin(server: harness.LiveServer, api: httpx.Client) -> dict[str, Any]:
    session = sign_up(api, new_email("admin"))
    db(server, "update app_private.profiles set role = 'admin' where id = %s", session["user"]["id"])
    return session


def sign_up(api: httpx.Client, email: str, agent: str = FIREFOX) -> dict[str, Any]:
    response = api.post("/auth/v1/signup", json={"email": email, "password": PASSWORD}, headers={"user-agent": agent})
    assert response.status_code == 200, response.text
    return response.json()


def db(server: harness.LiveServer, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def headers(session: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}


def password_sign_in(api: httpx.Client, email: str, agent: str = FIREFOX) -> httpx.Response:
    return api.post("/auth/v1/token?grant_type=password", json={"email": email, "password": PASSWORD},
                    headers={"user-agent": agent, **NEW_API})


def refresh(api: httpx.Client, session: dict[str, Any]) -> httpx.Response:
    return api.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": session["refresh_token"]},
                    headers=NEW_API)


def devices(api: httpx.Client, session: dict[str, Any], *, current_only: bool = True) -> list[dict[str, Any]]:
    params = {"select": "*", "order": "last_active.desc"}
    if current_only:
        params["is_current"] = "eq.true"
    response = api.get("/rest/v1/user_sessions", params=params, headers=headers(session))
    assert response.status_code == 200, response.text
    return response.json()


def device(api: httpx.Client, session: dict[str, Any], session_id: str) -> list[dict[str, Any]]:
    response = api.get("/rest/v1/user_sessions", params={"id": f"eq.{session_id}", "select": "is_current,end_reason"},
                       headers=headers(session))
    assert response.status_code == 200, response.text
    return response.json()


def end(api: httpx.Client, by: dict[str, Any], session_id: str) -> httpx.Response:
    return api.patch("/rest/v1/user_sessions", params={"id": f"eq.{session_id}"}, json={"is_current": False},
                     headers={**headers(by), "Prefer": "return=representation"})


def session_id(session: dict[str, Any]) -> str:
    import jwt as pyjwt

    return str(pyjwt.decode(session["access_token"], options={"verify_signature": False})["session_id"])


def mail_link(api: httpx.Client, server: harness.LiveServer, kind: str, email: str) -> httpx.Response:
    """Opens the link of a recovery or magic-link mail (made by generate_link, as the mailer would)."""
    admin_headers = admin_headers_of(server)
    link = api.post("/auth/v1/admin/generate_link", json={"type": kind, "email": email}, headers=admin_headers)
    assert link.status_code == 200, link.text
    query = parse_qs(urlsplit(link.json()["action_link"]).query)
    return api.get("/auth/v1/verify", params={"token": query["token"][0], "type": query["type"][0],
                                               "redirect_to": f"{server.url}/mot-de-passe-oublie"},
                   headers={"user-agent": IPHONE})


def fragment(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 303, response.text
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["location"]).fragment).items()}


def test_every_way_in_is_a_device_the_user_and_an_admin_can_end(api: httpx.Client, server: harness.LiveServer,
                                                                   admin: dict[str, Any]) -> None:
    email = new_email("ways")
    signed_up = sign_up(api, email)
    listed = devices(api, signed_up)
    assert [(d["id"], d["device_name"], d["is_this_device"]) for d in listed] == \
        [(session_id(signed_up), "Firefox on Linux", True)]
    assert listed[0]["ip_address"] == "127.0.0.1" and listed[0]["user_email"] == email

    recovered = fragment(mail_link(api, server, "recovery", email))
    assert recovered["type"] == "recovery" and "sessions_ended" not in recovered
    mine = {d["id"]: d for d in devices(api, recovered)}
    assert set(mine) == {session_id(signed_up), session_id(recovered)}
    assert mine[session_id(recovered)]["device_name"] == "Safari on iOS"
    assert mine[session_id(recovered)]["is_this_device"] and not mine[session_id(signed_up)]["is_this_device"]

    # The user ends the sign-up device from the recovered one: exactly that session ends.
    ended = end(api, recovered, session_id(signed_up))
    assert ended.status_code == 200 and ended.json()[0]["is_current"] is False
    assert refresh(api, signed_up).json()["code"] == "refresh_token_not_found"
    assert refresh(api, recovered).status_code == 200
    assert device(api, signed_up, session_id(signed_up)) == [{"is_current": False, "end_reason": "user"}]

    # A magic link is a device too; an admin sees it with the user's e-mail and ends it.
    magic = fragment(mail_link(api, server, "magiclink", email))
    everyone = {d["id"]: d for d in devices(api, admin)}
    assert everyone[session_id(magic)]["user_email"] == email
    assert end(api, admin, session_id(magic)).status_code == 200
    assert device(api, magic, session_id(magic)) == [{"is_current": False, "end_reason": "admin"}]
    assert refresh(api, magic).json()["code"] == "refresh_token_not_found"
    assert [d["id"] for d in devices(api, recovered)] == [session_id(recovered)]


def test_a_user_neither_sees_nor_ends_another_users_devices(api: httpx.Client) -> None:
    alice = sign_up(api, new_email("alice"))
    bob = sign_up(api, new_email("bob"))
    assert [d["id"] for d in devices(api, bob)] == [session_id(bob)]
    assert end(api, bob, session_id(alice)).json() == []
    assert refresh(api, alice).status_code == 200
    anonymous = api.get("/rest/v1/user_sessions", params={"select": "id"})
    assert anonymous.status_code == 401


def test_the_device_names_itself_and_beats(api: httpx.Client) -> None:
    session = sign_up(api, new_email("names"))
    named = api.post("/rest/v1/user_sessions", json={"device_name": "Tablette du salon", "ip_address": "6.6.6.6"},
                     headers={**headers(session), "Prefer": "return=representation"})
    assert named.status_code == 201, named.text
    assert named.json()[0]["id"] == session_id(session)
    assert named.json()[0]["device_name"] == "Tablette du salon" and named.json()[0]["ip_address"] == "127.0.0.1"
    beat = api.patch("/rest/v1/user_sessions", params={"id": f"eq.{session_id(session)}"},
                     json={"last_active": "2099-01-01T00:00:00Z"}, headers={**headers(session), "Prefer": "return=representation"})
    assert beat.status_code == 200 and not beat.json()[0]["last_active"].startswith("2099")
    too_long = api.post("/rest/v1/user_sessions", json={"device_name": "x" * 101}, headers=headers(session))
    assert too_long.status_code == 400
    moved = api.patch("/rest/v1/user_sessions", params={"id": f"eq.{session_id(session)}"}, json={"user_id": session["user"]["id"]},
                      headers=headers(session))
    assert moved.status_code in (401, 403)


def test_the_device_keeps_the_address_a_trusted_proxy_forwarded(api: httpx.Client, server: harness.LiveServer) -> None:
    # The tests speak from 127.0.0.1, a trusted proxy by default: X-Forwarded-For names the client.
    # An inet has no zone: a link-local address is kept without its own; what is no address is not kept.
    email = new_email("proxied")
    sign_up(api, email)
    signed_in = api.post("/auth/v1/token?grant_type=password", json={"email": email, "password": PASSWORD},
                         headers={"X-Forwarded-For": "fe80::1%eth0", **NEW_API})
    assert signed_in.status_code == 200, signed_in.text
    session = signed_in.json()
    assert db(server, "select host(ip) from auth.sessions where id = %s", session_id(session)) == [("fe80::1",)]
    for forwarded, kept in (("2001:DB8::7", "2001:db8::7"), ("unknown", None)):
        refreshed = api.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": session["refresh_token"]},
                             headers={"X-Forwarded-For": forwarded, **NEW_API})
        assert refreshed.status_code == 200, refreshed.text
        session = refreshed.json()
        assert db(server, "select host(ip) from auth.sessions where id = %s", session_id(session)) == [(kept,)]


def test_logout_is_local_or_global(api: httpx.Client) -> None:
    email = new_email("logout")
    first = sign_up(api, email)
    second = password_sign_in(api, email).json()
    assert api.post("/auth/v1/logout?scope=local", headers=headers(first)).status_code == 204
    assert refresh(api, first).json()["code"] == "refresh_token_not_found"
    still = refresh(api, second)
    assert still.status_code == 200
    assert [d["id"] for d in devices(api, still.json())] == [session_id(second)]
    third = password_sign_in(api, email).json()
    assert api.post("/auth/v1/logout", headers=headers(third)).status_code == 204  # GoTrue's default: global
    assert refresh(api, still.json()).json()["code"] == "refresh_token_not_found"


def test_sessions_end_after_the_time_box_and_inactivity(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("expiry")
    boxed = sign_up(api, email)
    idle = password_sign_in(api, email).json()
    assert password_sign_in(api, email).json()["code"] == "session_limit_reached"
    # Time passes: the first session was opened 31 days ago, the second last refreshed 8 days ago.
    db(server, "update auth.sessions set created_at = now() - interval '31 days', refreshed_at = now() at time zone 'utc'"
       " where id = %s", session_id(boxed))
    db(server, "update auth.sessions set created_at = now() - interval '9 days',"
       " refreshed_at = (now() - interval '8 days') at time zone 'utc' where id = %s", session_id(idle))
    assert refresh(api, boxed).json() == {"code": "session_expired", "message": "Invalid Refresh Token: Session Expired"}
    assert refresh(api, idle).json() == {"code": "session_expired",
                                         "message": "Invalid Refresh Token: Session Expired (Inactivity)"}
    # Ended sessions no longer count toward the limit, and show as ended (expired).
    fresh = password_sign_in(api, email)
    assert fresh.status_code == 200, fresh.text
    assert [d["id"] for d in devices(api, fresh.json())] == [session_id(fresh.json())]
    assert device(api, fresh.json(), session_id(idle)) == [{"is_current": False, "end_reason": "expired"}]
    # A day later they are swept away, the record of why staying for the ended device.
    db(server, "update auth.sessions set not_after = now() - interval '25 hours' where id in (%s, %s)",
       session_id(boxed), session_id(idle))
    assert password_sign_in(api, email).status_code == 200
    assert db(server, "select count(*) from auth.sessions where id in (%s, %s)", session_id(boxed), session_id(idle)) == [(0,)]
    assert device(api, fresh.json(), session_id(boxed)) == [{"is_current": False, "end_reason": "expired"}]


def test_a_live_session_is_refreshed_and_its_end_moves(api: httpx.Client, server: harness.LiveServer) -> None:
    session = sign_up(api, new_email("moves"))
    db(server, "update auth.sessions set refreshed_at = (now() - interval '6 days') at time zone 'utc',"
       " not_after = now() + interval '1 day' where id = %s", session_id(session))
    assert refresh(api, session).status_code == 200
    [(days,)] = db(server, "select extract(day from not_after - now())::int from auth.sessions where id = %s",
                   session_id(session))
    assert days == 6  # a week after this refresh (168 h), just under 7 whole days from now


def test_recovery_at_the_limit_ends_the_least_recently_used_session(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("evict")
    old = sign_up(api, email)
    recent = password_sign_in(api, email).json()
    db(server, "update auth.sessions set refreshed_at = (now() - interval '2 days') at time zone 'utc' where id = %s",
       session_id(old))
    assert refresh(api, recent).status_code == 200
    # A password sign-in at the limit keeps the spec's refusal...
    refused = password_sign_in(api, email)
    assert refused.status_code == 403 and refused.json()["code"] == "session_limit_reached"
    # ...but the recovery link lets the user in and says a session was ended for it.
    recovered = fragment(mail_link(api, server, "recovery", email))
    assert recovered["sessions_ended"] == "1" and recovered["type"] == "recovery"
    assert refresh(api, old).json()["code"] == "refresh_token_not_found"
    assert refresh(api, recent).status_code == 200
    assert device(api, recovered, session_id(old)) == [{"is_current": False, "end_reason": "evicted"}]
    assert {d["id"] for d in devices(api, recovered)} == {session_id(recent), session_id(recovered)}
    # A magic link at the limit does the same.
    magic = fragment(mail_link(api, server, "magiclink", email))
    assert magic["sessions_ended"] == "1"


def test_a_new_password_ends_the_other_devices_and_says_so(api: httpx.Client) -> None:
    email = new_email("newpass")
    first = sign_up(api, email)
    second = password_sign_in(api, email).json()
    changed = api.put("/auth/v1/user", json={"password": "another-pass"}, headers=headers(second))
    assert changed.status_code == 200, changed.text
    assert device(api, second, session_id(first)) == [{"is_current": False, "end_reason": "password_changed"}]


def test_sessions_opened_before_the_settings_end_too(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("before")
    forgotten = sign_up(api, email)
    # Opened (and last used) seven and a half days ago, when there was no inactivity timeout yet.
    db(server, "update auth.sessions set not_after = null, created_at = now() - interval '7 days 12 hours' where id = %s",
       session_id(forgotten))
    sign_up(api, new_email("other"))  # any new session sweeps a batch
    [(ended,)] = db(server, "select not_after < now() from auth.sessions where id = %s", session_id(forgotten))
    assert ended is True
