"""PUT /user of a user with a verified MFA factor: changing the password, the e-mail address or
the phone number needs an aal2 session (GoTrue's UserUpdate: 401 insufficient_aal)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pyotp
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, auth_api, auth_server, new_email, sign_up
from tests.auth.test_mfa import auth, challenge, enroll_totp, error, verify

AAL2_NEEDED = (401, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled.")


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_AUTOCONFIRM": "true"}) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


def user_with_factor(api: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """A user with a verified TOTP factor: (an aal1 password session, an aal2 session)."""
    email = new_email("aal")
    session = sign_up(api, email)
    factor = enroll_totp(api, session).json()
    chal = challenge(api, session, factor["id"]).json()
    upgraded = verify(api, session, factor["id"], chal["id"], pyotp.TOTP(factor["totp"]["secret"]).at(time.time() - 30))
    assert upgraded.status_code == 200, upgraded.text
    fresh = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"})
    assert fresh.status_code == 200, fresh.text
    return fresh.json(), upgraded.json()


def put_user(api: httpx.Client, session: dict[str, Any], body: dict[str, Any]) -> httpx.Response:
    return api.put("/user", json=body, headers={**auth(session), **NEW_API})


def test_an_aal1_session_cannot_change_the_password_email_or_phone(api: httpx.Client) -> None:
    aal1, _ = user_with_factor(api)
    email = aal1["user"]["email"]
    for body in ({"password": "another-pass"}, {"email": new_email("moved")}, {"phone": "+15555550199"},
                 {"email": email, "password": "another-pass"}, {"data": {"a": 1}, "email": new_email("moved")}):
        assert error(put_user(api, aal1, body)) == AAL2_NEEDED, body
    # Nothing changed: the old password still signs in, the address and metadata are the same.
    assert api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).status_code == 200
    me = api.get("/user", headers=auth(aal1)).json()
    assert me["email"] == email and "new_email" not in me and me["phone"] == "" and "a" not in me["user_metadata"]


def test_an_aal1_session_may_change_the_rest(api: httpx.Client) -> None:
    aal1, _ = user_with_factor(api)
    # Metadata, and the address or number the user already has, are not guarded (as GoTrue).
    same = put_user(api, aal1, {"data": {"theme": "dark"}, "email": aal1["user"]["email"].upper()})
    assert same.status_code == 200, same.text
    assert same.json()["user_metadata"]["theme"] == "dark"


def test_an_aal2_session_changes_the_password(api: httpx.Client) -> None:
    _, aal2 = user_with_factor(api)
    changed = put_user(api, aal2, {"password": "another-pass"})
    assert changed.status_code == 200, changed.text
    email = aal2["user"]["email"]
    assert api.post("/token?grant_type=password", json={"email": email, "password": "another-pass"}).status_code == 200


def test_an_unverified_factor_does_not_guard(api: httpx.Client) -> None:
    session = sign_up(api)
    assert enroll_totp(api, session).status_code == 200  # enrolled, never verified
    assert put_user(api, session, {"password": "another-pass"}).status_code == 200


def test_a_user_without_factors_is_not_guarded(api: httpx.Client) -> None:
    session = sign_up(api)
    assert put_user(api, session, {"password": "another-pass", "phone": "+15555550198"}).status_code == 200
