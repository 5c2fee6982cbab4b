"""POST /signup and /token as GoTrue answers them."""

from __future__ import annotations

import httpx
import jwt as pyjwt
import psycopg

from tests.auth.conftest import NEW_API, bearer, new_email, sign_up


def test_signup_autoconfirms_and_returns_a_session(api: httpx.Client) -> None:
    email = new_email("Signup")
    session = sign_up(api, email, data={"full_name": "Ada"})
    assert session["token_type"] == "bearer" and session["expires_in"] == 3600
    user = session["user"]
    assert user["email"] == email.lower()
    assert user["user_metadata"]["full_name"] == "Ada"
    assert user["user_metadata"]["email_verified"] is True
    assert user["app_metadata"] == {"provider": "email", "providers": ["email"]}
    assert user["identities"][0]["provider"] == "email"
    assert user["email_confirmed_at"] and user["last_sign_in_at"]
    claims = pyjwt.decode(session["access_token"], options={"verify_signature": False})
    assert claims["sub"] == user["id"] and claims["role"] == "authenticated" and claims["aud"] == "authenticated"
    assert claims["aal"] == "aal1" and claims["amr"][0]["method"] == "password"
    assert claims["is_anonymous"] is False and claims["session_id"]
    assert claims["exp"] - claims["iat"] == 3600 and claims["iss"].endswith("/auth/v1")


def test_repeated_signup_is_user_already_exists(api: httpx.Client) -> None:
    email = new_email()
    sign_up(api, email)
    response = api.post("/signup", json={"email": email, "password": "another-pass"}, headers=NEW_API)
    assert response.status_code == 422
    assert response.json() == {"code": "user_already_exists", "message": "User already registered"}
    assert response.headers["x-sb-error-code"] == "user_already_exists"
    assert response.headers["X-Supabase-Api-Version"] == "2024-01-01"


def test_legacy_error_shape_without_the_version_header(api: httpx.Client) -> None:
    response = api.post("/signup", json={"email": "not-an-email", "password": "secret-pass"})
    assert response.status_code == 400
    assert response.json() == {"code": 400, "error_code": "validation_failed",
                               "msg": "Unable to validate email address: invalid format"}


def test_weak_password_has_reasons(api: httpx.Client) -> None:
    response = api.post("/signup", json={"email": new_email(), "password": "abc"}, headers=NEW_API)
    assert response.status_code == 422
    assert response.json() == {"code": "weak_password", "message": "Password should be at least 6 characters.",
                               "weak_password": {"reasons": ["length"]}}


def test_bad_json_and_wrong_types(api: httpx.Client) -> None:
    for body in (b"{not json", b"[1, 2]", b'{"email": 5, "password": "secret-pass"}', b""):
        response = api.post("/signup", content=body, headers={**NEW_API, "content-type": "application/json"})
        assert response.status_code == 400, body
        assert response.json()["code"] == "bad_json"


def test_password_grant(api: httpx.Client) -> None:
    email = new_email()
    sign_up(api, email)
    ok = api.post("/token?grant_type=password", json={"email": email.upper(), "password": "secret-pass"})
    assert ok.status_code == 200 and ok.json()["user"]["email"] == email
    wrong = api.post("/token?grant_type=password", json={"email": email, "password": "wrong-pass"}, headers=NEW_API)
    assert wrong.status_code == 400
    assert wrong.json() == {"code": "invalid_credentials", "message": "Invalid login credentials"}
    unknown = api.post("/token?grant_type=password", json={"email": new_email(), "password": "x"}, headers=NEW_API)
    assert unknown.json()["code"] == "invalid_credentials"
    grant = api.post("/token?grant_type=nope", json={}, headers=NEW_API)
    assert grant.status_code == 400


def test_failing_trigger_fails_signup_cleanly(api: httpx.Client, live_server) -> None:
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("create or replace function public.reject_bad_user() returns trigger language plpgsql as $$"
                     " begin if new.raw_user_meta_data->>'full_name' = 'reject' then raise exception 'no'; end if;"
                     " return new; end $$")
        conn.execute("drop trigger if exists reject_bad_user on auth.users")
        conn.execute("create trigger reject_bad_user before insert on auth.users for each row"
                     " execute function public.reject_bad_user()")
    email = new_email("reject")
    response = api.post("/signup", json={"email": email, "password": "secret-pass", "data": {"full_name": "reject"}},
                        headers=NEW_API)
    assert response.status_code == 500
    assert response.json() == {"code": "unexpected_failure", "message": "Database error saving new user"}
    with psycopg.connect(live_server.database_url) as conn:
        assert conn.execute("select count(*) from auth.users where email = %s", [email]).fetchone() == (0,)
    sign_up(api, new_email("accepted"), data={"full_name": "fine"})


def test_anonymous_sign_in(api: httpx.Client) -> None:
    response = api.post("/signup", json={"data": {"nick": "anon"}})
    assert response.status_code == 200
    session = response.json()
    assert session["user"]["is_anonymous"] is True
    claims = pyjwt.decode(session["access_token"], options={"verify_signature": False})
    assert claims["is_anonymous"] is True and claims["amr"][0]["method"] == "anonymous"
    me = api.get("/user", headers=bearer(session))
    assert me.status_code == 200 and me.json()["user_metadata"] == {"nick": "anon"}
