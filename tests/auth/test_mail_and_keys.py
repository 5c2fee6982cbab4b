"""A server with confirmations on (GOTRUE_MAILER_AUTOCONFIRM=false) and ES256 signing keys:
mails in the dev inbox, links that verify and redirect, and the published JWKS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from tests import harness
from tests.auth.conftest import NEW_API, auth_api, auth_server, bearer, new_email

SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    keys_file = harness.scratch_dir("supalite-keys-") / "jwks.json"
    jwk = {**json.loads(ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()))), "kid": "test-es256"}
    keys_file.write_text(json.dumps([jwk]))
    with auth_server(database_url, {
        "GOTRUE_MAILER_AUTOCONFIRM": "false", "SUPALITE_JWT_KEYS_FILE": str(keys_file), "GOTRUE_SITE_URL": SITE,
        "SUPALITE_MAIL_TEMPLATES_DIR": str(harness.scratch_dir("supalite-mail-")),  # GoTrue's own mails
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server) as client:
        yield client


def inbox(server: harness.LiveServer, email: str) -> list[dict]:
    return httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]


def test_signup_waits_for_the_confirmation_link(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("confirm")
    response = api.post("/signup", json={"email": email, "password": "secret-pass"})
    assert response.status_code == 200
    user = response.json()
    assert "access_token" not in user and user["confirmation_sent_at"] and "email_confirmed_at" not in user
    refused = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}, headers=NEW_API)
    assert refused.status_code == 400 and refused.json()["code"] == "email_not_confirmed"
    (mail,) = inbox(server, email)
    assert mail["Subject"] == "Confirm Your Signup" and mail["OTP"] in mail["Text"]
    link = urlsplit(mail["Link"])
    assert f"{link.scheme}://{link.netloc}" == server.url
    redirected = httpx.get(mail["Link"], follow_redirects=False)
    assert redirected.status_code == 303
    target, _, fragment = redirected.headers["location"].partition("#")
    assert target == SITE
    params = parse_qs(fragment)
    assert params["type"] == ["signup"] and params["token_type"] == ["bearer"]
    me = api.get("/user", headers={"Authorization": f"Bearer {params['access_token'][0]}"})
    assert me.status_code == 200 and me.json()["email_confirmed_at"]
    again = httpx.get(mail["Link"], follow_redirects=False)
    assert parse_qs(again.headers["location"].partition("#")[2])["error_code"] == ["otp_expired"]
    assert api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).status_code == 200


def test_inbox_page_lists_mails(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("page")
    api.post("/signup", json={"email": email, "password": "secret-pass"})
    page = httpx.get(f"{server.url}/inbox/", params={"email": email})
    assert page.status_code == 200 and "Confirm Your Signup" in page.text and email in page.text
    found = httpx.get(f"{server.url}/inbox/api/v1/search", params={"query": f"to:{email}"}).json()
    one = httpx.get(f"{server.url}/inbox/api/v1/message/{found['messages'][0]['ID']}").json()
    assert one["HTML"].startswith("<h2>")


def test_tokens_are_es256_and_published(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("keys")
    api.post("/signup", json={"email": email, "password": "secret-pass"})
    otp = inbox(server, email)[0]["OTP"]
    session = api.post("/verify", json={"type": "signup", "email": email, "token": otp}).json()
    header = pyjwt.get_unverified_header(session["access_token"])
    assert header["alg"] == "ES256" and header["kid"] == "test-es256"
    jwks = api.get("/.well-known/jwks.json").json()
    (key,) = jwks["keys"]
    assert key["kid"] == "test-es256" and "d" not in key
    public = ECAlgorithm.from_jwk(json.dumps(key))
    claims = pyjwt.decode(session["access_token"], public, algorithms=["ES256"], audience="authenticated")
    assert claims["email"] == email
    assert api.get("/user", headers=bearer(session)).status_code == 200


def test_email_change_needs_the_mailed_code(api: httpx.Client, server: harness.LiveServer) -> None:
    email, new = new_email("old"), new_email("new")
    api.post("/signup", json={"email": email, "password": "secret-pass"})
    session = api.post("/verify", json={"type": "signup", "email": email,
                                        "token": inbox(server, email)[0]["OTP"]}).json()
    pending = api.put("/user", json={"email": new}, headers=bearer(session)).json()
    assert pending["email"] == email and pending["new_email"] == new
    changed = api.post("/verify", json={"type": "email_change", "email": new, "token": inbox(server, new)[0]["OTP"]})
    assert changed.status_code == 200 and changed.json()["user"]["email"] == new


def test_verify_errors(api: httpx.Client) -> None:
    wrong = api.post("/verify", json={"type": "signup", "email": new_email(), "token": "123456"}, headers=NEW_API)
    assert wrong.status_code == 403
    assert wrong.json() == {"code": "otp_expired", "message": "Token has expired or is invalid"}
    kind = api.post("/verify", json={"type": "bogus", "token_hash": "x"}, headers=NEW_API)
    assert kind.status_code == 400 and kind.json()["code"] == "validation_failed"
