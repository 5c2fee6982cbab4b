"""GOTRUE_PASSWORD_MIN_LENGTH and GOTRUE_PASSWORD_REQUIRED_CHARACTERS: GoTrue's weak_password
answers on sign-up, PUT /user and the admin endpoints, and the weak_password note on sign-in."""

from __future__ import annotations

from collections.abc import Iterator

import bcrypt
import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_api, auth_server, bearer, new_email

STRONG = "Strong-pass-42"
MESSAGE = ("Password should be at least 10 characters. Password should contain at least one character of each:"
           " abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789.")


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_PASSWORD_MIN_LENGTH": "10",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server) as client:
        yield client


@pytest.fixture(scope="module")
def admin(server: harness.LiveServer) -> dict[str, str]:
    return {**admin_headers_of(server), **NEW_API}


def test_sign_up_names_every_rule_broken(api: httpx.Client) -> None:
    weak = api.post("/signup", json={"email": new_email(), "password": "short"}, headers=NEW_API)
    assert weak.status_code == 422
    assert weak.json() == {"code": "weak_password", "message": MESSAGE,
                           "weak_password": {"reasons": ["length", "characters"]}}
    assert weak.headers["x-sb-error-code"] == "weak_password"
    legacy = api.post("/signup", json={"email": new_email(), "password": "alllowercaseletters"})
    assert legacy.json() == {"code": 422, "error_code": "weak_password",
                             "msg": MESSAGE.removeprefix("Password should be at least 10 characters. "),
                             "weak_password": {"reasons": ["characters"]}}
    assert api.post("/signup", json={"email": new_email(), "password": STRONG}).status_code == 200


@pytest.mark.parametrize(("password", "status", "code"), [
    (5, 400, "bad_json"), (["Strong-pass-42"], 400, "bad_json"), ("x" * 73, 400, "validation_failed"),
    ("", 400, "validation_failed"), ("Ab1", 422, "weak_password")])
def test_bad_passwords_on_sign_up(api: httpx.Client, password: object, status: int, code: str) -> None:
    response = api.post("/signup", json={"email": new_email(), "password": password}, headers=NEW_API)
    assert (response.status_code, response.json()["code"]) == (status, code)


def test_put_user_checks_the_new_password(api: httpx.Client) -> None:
    session = api.post("/signup", json={"email": new_email(), "password": STRONG}).json()
    weak = api.put("/user", json={"password": "Short1"}, headers={**bearer(session), **NEW_API})
    assert weak.status_code == 422 and weak.json()["weak_password"] == {"reasons": ["length"]}
    assert api.put("/user", json={"password": "Another-pass-7"}, headers=bearer(session)).status_code == 200


def test_admin_endpoints_check_a_given_password(api: httpx.Client, admin: dict[str, str]) -> None:
    weak = api.post("/admin/users", json={"email": new_email(), "password": "weakpassword"}, headers=admin)
    assert weak.status_code == 422 and weak.json()["weak_password"] == {"reasons": ["characters"]}
    created = api.post("/admin/users", json={"email": new_email(), "password": STRONG}, headers=admin)
    assert created.status_code == 200
    no_password = api.post("/admin/users", json={"email": new_email(), "password": ""}, headers=admin)
    assert no_password.status_code == 200  # GoTrue checks only a password given
    user_id = created.json()["id"]
    weak_update = api.put(f"/admin/users/{user_id}", json={"password": "x"}, headers=admin)
    assert weak_update.status_code == 422 and weak_update.json()["weak_password"]["reasons"] == ["length", "characters"]
    link = api.post("/admin/generate_link", json={"type": "signup", "email": new_email(), "password": "tiny"},
                    headers=admin)
    assert link.status_code == 422 and link.json()["code"] == "weak_password"


def test_sign_in_with_a_password_the_rules_now_refuse_notes_it(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("legacy")
    assert api.post("/signup", json={"email": email, "password": STRONG}).status_code == 200
    with psycopg.connect(server.database_url, autocommit=True) as conn:  # set before the rules were tightened
        conn.execute("update auth.users set encrypted_password = %s where email = %s",
                     [bcrypt.hashpw(b"oldpass", bcrypt.gensalt(10)).decode(), email])
    response = api.post("/token?grant_type=password", json={"email": email, "password": "oldpass"})
    assert response.status_code == 200
    assert response.json()["weak_password"] == {"message": MESSAGE, "reasons": ["length", "characters"]}
    assert "access_token" in response.json()
