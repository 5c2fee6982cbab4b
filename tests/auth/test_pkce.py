"""PKCE (code_challenge on mailed links, POST /token?grant_type=pkce) against a live server
with mail confirmations on, as GoTrue's flow_state model and pkce.go behave."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import auth_api, auth_server, bearer, new_email

SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_SITE_URL": SITE}) as live:
        yield live


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


def pair(method: str = "s256") -> tuple[str, dict[str, str]]:
    verifier = secrets.token_urlsafe(48)
    if method == "plain":
        challenge = verifier
    else:
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, {"code_challenge": challenge, "code_challenge_method": method}


def last_mail(server: harness.LiveServer, email: str) -> dict[str, Any]:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    assert messages, f"no mail for {email}"
    return messages[0]


def open_link(link: str) -> httpx.Response:
    response = httpx.get(link, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response


def code_of(response: httpx.Response) -> str:
    query = parse_qs(urlsplit(response.headers["location"]).query)
    return query["code"][0]


def exchange(api: httpx.Client, code: str, verifier: str) -> httpx.Response:
    return api.post("/token", params={"grant_type": "pkce"}, json={"auth_code": code, "code_verifier": verifier})


def confirmed_user(api: httpx.Client, server: harness.LiveServer, email: str) -> None:
    assert api.post("/signup", json={"email": email, "password": "secret-pass"}).status_code == 200
    token_link = last_mail(server, email)["Link"]
    open_link(token_link)


def test_signup_confirmation_link_redirects_with_a_code_exchanged_once(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("pkce-signup")
    verifier, challenge = pair()
    signed_up = api.post("/signup", params={"redirect_to": f"{SITE}/welcome?x=1"},
                         json={"email": email, "password": "secret-pass", **challenge})
    assert signed_up.status_code == 200, signed_up.text
    assert "access_token" not in signed_up.json()
    link = last_mail(server, email)["Link"]
    assert "token=pkce_" in link
    redirected = open_link(link)
    location = urlsplit(redirected.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{SITE}/welcome"
    assert parse_qs(location.query)["x"] == ["1"] and not location.fragment
    code = code_of(redirected)
    session = exchange(api, code, verifier)
    assert session.status_code == 200, session.text
    body = session.json()
    assert body["user"]["email"] == email and body["user"]["email_confirmed_at"]
    assert "provider_token" not in body
    claims = api.get("/user", headers=bearer(body)).json()
    assert claims["email"] == email
    again = exchange(api, code, verifier)
    assert again.status_code == 404 and again.json()["code"] == "flow_state_not_found"
    assert again.json()["message"] == "invalid flow state, no valid flow state found"


def test_recovery_with_a_wrong_verifier_then_the_right_one(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("pkce-recover")
    confirmed_user(api, server, email)
    verifier, challenge = pair("plain")
    assert api.post("/recover", json={"email": email, **challenge}).status_code == 200
    code = code_of(open_link(last_mail(server, email)["Link"]))
    wrong = exchange(api, code, verifier + "x")
    assert wrong.status_code == 400 and wrong.json() == {
        "code": "bad_code_verifier", "message": "code challenge does not match previously saved code verifier"}
    session = exchange(api, code, verifier)
    assert session.status_code == 200
    amr = session.json()["access_token"]
    payload = amr.split(".")[1]
    claims = httpx.Response(200, content=base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).json()
    assert claims["amr"][0]["method"] == "recovery"


def test_magic_link_of_a_confirmed_user_and_the_typed_code(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("pkce-magic")
    confirmed_user(api, server, email)
    verifier, challenge = pair()
    assert api.post("/otp", json={"email": email, **challenge}).status_code == 200
    mail = last_mail(server, email)
    assert mail["Kind"] == "magiclink"
    code = code_of(open_link(mail["Link"]))
    assert exchange(api, code, verifier).status_code == 200
    # The typed code of a PKCE mail is a plain OTP: POST /verify signs in directly (isOtpValid).
    assert api.post("/magiclink", json={"email": email, **pair()[1]}).status_code == 200
    typed = last_mail(server, email)["OTP"]
    verified = api.post("/verify", json={"type": "magiclink", "email": email, "token": typed})
    assert verified.status_code == 200, verified.text
    assert verified.json()["user"]["email"] == email


def test_an_expired_flow_and_a_used_link(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("pkce-expired")
    confirmed_user(api, server, email)
    verifier, challenge = pair()
    assert api.post("/recover", json={"email": email, **challenge}).status_code == 200
    link = last_mail(server, email)["Link"]
    code = code_of(open_link(link))
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.flow_state set created_at = now() - interval '301 seconds' where auth_code = %s", [code])
    expired = exchange(api, code, verifier)
    assert expired.status_code == 422 and expired.json() == {
        "code": "flow_state_expired", "message": "invalid flow state, flow state has expired"}
    used = open_link(link)
    location = urlsplit(used.headers["location"])
    assert parse_qs(location.query)["error_code"] == ["otp_expired"]
    fragment = parse_qs(location.fragment, keep_blank_values=True)
    assert fragment["error"] == ["access_denied"] and fragment["error_code"] == ["otp_expired"]
    assert fragment["error_description"] == ["Email link is invalid or has expired"] and fragment["sb"] == [""]


def test_resend_and_email_change_start_flows(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("pkce-resend")
    assert api.post("/signup", json={"email": email, "password": "secret-pass"}).status_code == 200
    verifier, challenge = pair()
    assert api.post("/resend", json={"type": "signup", "email": email, **challenge}).status_code == 200
    session = exchange(api, code_of(open_link(last_mail(server, email)["Link"])), verifier).json()
    new = new_email("pkce-changed")
    verifier, challenge = pair()
    changed = api.put("/user", headers=bearer(session), json={"email": new, **challenge})
    assert changed.status_code == 200 and changed.json()["new_email"] == new
    code = code_of(open_link(last_mail(server, new)["Link"]))
    after = exchange(api, code, verifier)
    assert after.status_code == 200 and after.json()["user"]["email"] == new


@pytest.mark.parametrize(("params", "message"), [
    ({"code_challenge": "a" * 43}, "PKCE flow requires code_challenge_method and code_challenge"),
    ({"code_challenge_method": "s256"}, "PKCE flow requires code_challenge_method and code_challenge"),
    ({"code_challenge": "a" * 42, "code_challenge_method": "s256"}, "code challenge has to be between 43 and 128 characters"),
    ({"code_challenge": "a" * 129, "code_challenge_method": "s256"}, "code challenge has to be between 43 and 128 characters"),
    ({"code_challenge": "a" * 42 + "%", "code_challenge_method": "s256"},
     "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"),
    ({"code_challenge": "a" * 43, "code_challenge_method": "sha1"}, "Invalid code_challenge_method"),
])
def test_bad_challenges(api: httpx.Client, params: dict[str, str], message: str) -> None:
    for path in ("/signup", "/recover", "/otp"):
        response = api.post(path, json={"email": new_email("pkce-bad"), "password": "secret-pass", **params})
        assert response.status_code == 400 and response.json() == {"code": "validation_failed", "message": message}, path


def test_bad_exchanges(api: httpx.Client) -> None:
    missing = api.post("/token", params={"grant_type": "pkce"}, json={"auth_code": "x"})
    assert missing.status_code == 400 and missing.json()["message"] == (
        "invalid request: both auth code and code verifier should be non-empty")
    wrong_type = api.post("/token", params={"grant_type": "pkce"}, json={"auth_code": 1, "code_verifier": "v"})
    assert wrong_type.status_code == 400 and wrong_type.json()["code"] == "bad_json"
    for code in ("not-a-code", "9" * 100_000):
        unknown = exchange(api, code, "v" * 43)
        assert unknown.status_code == 404 and unknown.json()["code"] == "flow_state_not_found"
    web3 = api.post("/token", params={"grant_type": "web3"}, json={})
    assert web3.status_code == 422 and web3.json() == {"code": "web3_provider_disabled", "message": "Web3 provider is disabled"}
