"""Settings that gate sign-up: GOTRUE_DISABLE_SIGNUP, GOTRUE_EXTERNAL_EMAIL_ENABLED=false and
anonymous sign-ins (off unless enabled); GoTrue's statuses, codes and messages."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.auth.conftest import admin_headers_of, auth_api, auth_server, new_email


@pytest.fixture(scope="module")
def closed(database_url: str) -> Iterator[tuple[httpx.Client, dict[str, str]]]:
    """Sign-ups off; anonymous sign-ins enabled (they are refused all the same)."""
    with auth_server(database_url, {"GOTRUE_DISABLE_SIGNUP": "true"}) as server, auth_api(server, new_api=True) as client:
        yield client, admin_headers_of(server)


@pytest.fixture(scope="module")
def no_email(database_url: str) -> Iterator[tuple[httpx.Client, dict[str, str]]]:
    with auth_server(database_url, {"GOTRUE_EXTERNAL_EMAIL_ENABLED": "false",
                                    "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "false"}) as server, \
            auth_api(server, new_api=True) as client:
        yield client, admin_headers_of(server)


def error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["code"], body["message"]


SIGNUP_DISABLED = (422, "signup_disabled", "Signups not allowed for this instance")


def test_disabled_sign_up_refuses_new_users(closed: tuple[httpx.Client, dict[str, str]]) -> None:
    api, _ = closed
    assert error(api.post("/signup", json={"email": new_email(), "password": "secret-pass"})) == SIGNUP_DISABLED
    assert error(api.post("/signup", json={})) == SIGNUP_DISABLED  # anonymous too
    # GoTrue's /signup route reads the body first (to tell anonymous sign-ins apart)
    assert error(api.post("/signup", json={"email": 5, "password": "x"}))[:2] == (400, "bad_json")
    # an OTP or magic link for an address without an account would sign it up
    assert error(api.post("/otp", json={"email": new_email()})) == SIGNUP_DISABLED
    assert error(api.post("/magiclink", json={"email": new_email()})) == SIGNUP_DISABLED
    assert error(api.post("/otp", json={"email": new_email(), "create_user": False})) == (
        422, "otp_disabled", "Signups not allowed for otp")
    settings = api.get("/settings").json()
    assert settings["disable_signup"] is True


def test_admins_still_create_users_who_then_sign_in(closed: tuple[httpx.Client, dict[str, str]]) -> None:
    api, admin = closed
    email = new_email("admin-made")
    created = api.post("/admin/users", json={"email": email, "password": "secret-pass", "email_confirm": True},
                       headers=admin)
    assert created.status_code == 200, created.text
    assert api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).status_code == 200
    assert api.post("/otp", json={"email": email}).status_code == 200  # an existing account gets its code
    # signing up again with it answers as for any sign-up: refused
    assert error(api.post("/signup", json={"email": email, "password": "secret-pass"})) == SIGNUP_DISABLED
    # an invited but unconfirmed user is not signed up by an OTP either (GoTrue's MagicLink)
    pending = new_email("pending")
    api.post("/admin/users", json={"email": pending, "password": "secret-pass"}, headers=admin)
    assert error(api.post("/otp", json={"email": pending})) == SIGNUP_DISABLED


def test_email_provider_disabled(no_email: tuple[httpx.Client, dict[str, str]]) -> None:
    api, admin = no_email
    assert error(api.post("/signup", json={"email": new_email(), "password": "secret-pass"})) == (
        400, "email_provider_disabled", "Email signups are disabled")
    email = new_email("existing")
    assert api.post("/admin/users", json={"email": email, "password": "secret-pass", "email_confirm": True},
                    headers=admin).status_code == 200
    assert error(api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"})) == (
        422, "email_provider_disabled", "Email logins are disabled")
    assert error(api.post("/otp", json={"email": email})) == (422, "email_provider_disabled", "Email logins are disabled")
    assert error(api.post("/magiclink", json={"email": email}))[1] == "email_provider_disabled"
    assert error(api.post("/recover", json={"email": email})) == (400, "email_provider_disabled", "Email logins are disabled")
    for kind in ("signup", "email_change"):  # GoTrue's ResendConfirmationParams.Validate
        assert error(api.post("/resend", json={"type": kind, "email": email})) == (
            400, "email_provider_disabled", "Email logins are disabled")
    assert api.get("/settings").json()["external"]["email"] is False


def test_anonymous_sign_ins_are_off_unless_enabled(no_email: tuple[httpx.Client, dict[str, str]]) -> None:
    api, _ = no_email
    for body in ({}, {"data": {"x": 1}}, {"email": "", "phone": ""}):
        assert error(api.post("/signup", json=body)) == (422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled")
    assert api.get("/settings").json()["external"]["anonymous_users"] is False


def test_the_defaults_leave_anonymous_sign_ins_off(database_url: str) -> None:
    from server.provision.settings import load_settings

    assert load_settings({}, dotenv=None).anonymous_users_enabled is False


REAL_SECRET = "a-real-secret-of-at-least-32-characters-for-signup"


def test_confirmations_are_on_by_default_outside_a_dev_server() -> None:
    """Hosted Supabase's default: GOTRUE_MAILER_AUTOCONFIRM unset is false, except on a dev
    server (the demo secret, or --dev / SUPALITE_DEV) where it is true."""
    from server.provision.settings import load_settings

    def autoconfirm(env: dict[str, str]) -> bool:
        return load_settings(env, dotenv=None).mailer_autoconfirm

    assert autoconfirm({}) is True  # the demo secret
    assert autoconfirm({"SUPALITE_JWT_SECRET": REAL_SECRET}) is False
    assert autoconfirm({"SUPALITE_JWT_SECRET": REAL_SECRET, "SUPALITE_DEV": "true"}) is True
    assert autoconfirm({"SUPALITE_JWT_SECRET": REAL_SECRET, "GOTRUE_MAILER_AUTOCONFIRM": "true"}) is True
    assert autoconfirm({"GOTRUE_MAILER_AUTOCONFIRM": "false"}) is False


def _real_secret_env() -> dict[str, str]:
    from server.core.conninfo import authenticator_password
    from tests import harness

    # The authenticator role is the cluster's: keep the password the other servers use.
    return {"SUPALITE_JWT_SECRET": REAL_SECRET,
            "SUPALITE_AUTHENTICATOR_PASSWORD": authenticator_password(harness.base_settings(""))}


def test_a_production_server_confirms_sign_ups(database_url: str) -> None:
    """No session at sign-up: without SMTP, no mail can confirm it, so the sign-up is refused."""
    with auth_server(database_url, _real_secret_env()) as server, auth_api(server, new_api=True) as api:
        refused = api.post("/signup", json={"email": new_email("prod"), "password": "secret-pass"})
        assert refused.status_code == 400 and refused.json()["code"] == "email_address_not_authorized"
        assert api.get("/settings").json()["mailer_autoconfirm"] is False


def test_dev_flag_autoconfirms_with_a_real_secret(database_url: str) -> None:
    from tests import harness

    server = harness.start_server(database_url, args=["--no-migrate", "--dev"], extra_env=_real_secret_env())
    try:
        with auth_api(server, new_api=True) as api:
            signed_up = api.post("/signup", json={"email": new_email("dev"), "password": "secret-pass"})
            assert signed_up.status_code == 200 and signed_up.json()["access_token"]
    finally:
        server.stop()
