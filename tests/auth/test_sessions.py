"""Refresh-token rotation, reuse detection, logout scopes and ended sessions."""

from __future__ import annotations

import httpx
import psycopg

from tests.auth.conftest import NEW_API, bearer, new_email, sign_up


def refresh(api: httpx.Client, token: str) -> httpx.Response:
    return api.post("/token?grant_type=refresh_token", json={"refresh_token": token}, headers=NEW_API)


def test_rotation_returns_a_new_token(api: httpx.Client) -> None:
    session = sign_up(api)
    first = refresh(api, session["refresh_token"])
    assert first.status_code == 200
    child = first.json()
    assert child["refresh_token"] != session["refresh_token"]
    assert child["user"]["id"] == session["user"]["id"]
    assert refresh(api, child["refresh_token"]).status_code == 200


def test_parent_reuse_returns_the_current_child(api: httpx.Client) -> None:
    session = sign_up(api)
    child = refresh(api, session["refresh_token"]).json()
    again = refresh(api, session["refresh_token"])
    assert again.status_code == 200
    assert again.json()["refresh_token"] == child["refresh_token"]


def test_reuse_after_the_window_revokes_the_session(api: httpx.Client, live_server) -> None:
    session = sign_up(api)
    child = refresh(api, session["refresh_token"]).json()
    grandchild = refresh(api, child["refresh_token"]).json()
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = %s",
                     [session["refresh_token"]])
    reused = refresh(api, session["refresh_token"])
    assert reused.status_code == 400
    assert reused.json() == {"code": "refresh_token_already_used", "message": "Invalid Refresh Token: Already Used"}
    assert refresh(api, grandchild["refresh_token"]).status_code == 400


def test_unknown_and_missing_refresh_token(api: httpx.Client) -> None:
    unknown = refresh(api, "nosuchtoken1")
    assert unknown.status_code == 400
    assert unknown.json() == {"code": "refresh_token_not_found",
                              "message": "Invalid Refresh Token: Refresh Token Not Found"}
    missing = api.post("/token?grant_type=refresh_token", json={})
    assert missing.status_code == 400
    assert missing.json() == {"error": "invalid_request", "error_description": "refresh_token required"}


def test_deleted_session_is_signed_out(api: httpx.Client, live_server) -> None:
    session = sign_up(api)
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("delete from auth.sessions where user_id = %s", [session["user"]["id"]])
    me = api.get("/user", headers={**bearer(session), **NEW_API})
    assert me.status_code == 403
    assert me.json()["code"] == "session_not_found"
    assert refresh(api, session["refresh_token"]).json()["code"] == "refresh_token_not_found"


def test_logout_scopes(api: httpx.Client) -> None:
    email = new_email()
    first = sign_up(api, email)
    password = {"email": email, "password": "secret-pass"}
    second = api.post("/token?grant_type=password", json=password).json()
    third = api.post("/token?grant_type=password", json=password).json()
    assert api.post("/logout?scope=others", headers=bearer(third)).status_code == 204
    assert api.get("/user", headers=bearer(first)).status_code == 403
    assert api.get("/user", headers=bearer(second)).status_code == 403
    assert api.get("/user", headers=bearer(third)).status_code == 200
    assert api.post("/logout?scope=local", headers=bearer(third)).status_code == 204
    assert refresh(api, third["refresh_token"]).status_code == 400
    bad = api.post("/logout?scope=everything", headers={**bearer(third), **NEW_API})
    assert bad.status_code == 400 and bad.json()["code"] == "validation_failed"


def test_global_logout_ends_every_session(api: httpx.Client) -> None:
    email = new_email()
    first = sign_up(api, email)
    second = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).json()
    assert api.post("/logout", headers=bearer(first)).status_code == 204
    assert refresh(api, second["refresh_token"]).status_code == 400


def test_bad_tokens_on_user(api: httpx.Client, live_server) -> None:
    import time

    import jwt as pyjwt

    session = sign_up(api)
    claims = pyjwt.decode(session["access_token"], options={"verify_signature": False})
    forged = [
        "garbage",
        pyjwt.encode(claims, None, algorithm="none"),
        pyjwt.encode(claims, "wrong-secret-wrong-secret-wrong-secret!", algorithm="HS256"),
        pyjwt.encode({**claims, "exp": int(time.time()) - 5}, live_server.settings.jwt_secret, algorithm="HS256"),
    ]
    for token in forged:
        response = api.get("/user", headers={"Authorization": f"Bearer {token}", **NEW_API})
        assert response.status_code == 403, token
        assert response.json()["code"] == "bad_jwt"
    none = api.get("/user", headers=NEW_API)
    assert none.status_code == 401 and none.json()["code"] == "no_authorization"
    anon = api.get("/user", headers={"Authorization": f"Bearer {live_server.anon_key}", **NEW_API})
    assert anon.status_code == 403 and anon.json()["code"] == "bad_jwt"


def test_only_the_authorization_header_as_gotrue_reads_it(api: httpx.Client) -> None:
    """GoTrue's bearerRegexp: `Bearer` or `bearer`, one space, the token; never the apikey header."""
    token = sign_up(api)["access_token"]
    assert api.get("/user", headers={"Authorization": f"bearer {token}"}).status_code == 200
    for headers in ({"Authorization": f"BEARER {token}"}, {"Authorization": f"Bearer  {token}"},
                    {"Authorization": f"Token {token}"}, {"apikey": token}):
        response = api.get("/user", headers={**headers, **NEW_API})
        assert response.status_code == 401 and response.json()["code"] == "no_authorization", headers
        assert response.json()["message"] == "This endpoint requires a valid Bearer token"
