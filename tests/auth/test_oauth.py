"""External OIDC providers against a local provider process (tests/auth/oidc_provider.py):
/authorize and /callback (implicit and PKCE), grant_type=id_token, manual identity linking,
GoTrue's errors for unknown, disabled and misbehaving providers, SAML's refusal."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import auth_api, auth_server, bearer, new_email

SITE = "http://localhost:3000"


def _start(database_url: str, provider: oidc_provider.RunningProvider, **env: str) -> AbstractContextManager[harness.LiveServer]:
    return auth_server(database_url, {
        **provider.server_env("keycloak"), **provider.server_env("acme"), "GOTRUE_SITE_URL": SITE,
        "GOTRUE_EXTERNAL_GITHUB_ENABLED": "false", "GOTRUE_EXTERNAL_GITHUB_CLIENT_ID": "x",
        "GOTRUE_EXTERNAL_GITHUB_SECRET": "y", **env})


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with _start(database_url, provider, GOTRUE_SECURITY_MANUAL_LINKING_ENABLED="true") as live:
        yield live


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


def fragment(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).fragment, keep_blank_values=True).items()}


def query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query, keep_blank_values=True).items()}


def through_provider(authorize: httpx.Response) -> httpx.Response:
    """Follow /authorize's 302 to the provider, its 302 back to /callback, and answer /callback's."""
    assert authorize.status_code == 302, authorize.text
    at_provider = httpx.get(authorize.headers["location"], follow_redirects=False)
    assert at_provider.status_code == 302, at_provider.text
    return httpx.get(at_provider.headers["location"], follow_redirects=False)


def sign_in(api: httpx.Client, email: str, provider: str = "keycloak", **params: str) -> httpx.Response:
    return through_provider(api.get("/authorize", params={
        "provider": provider, "redirect_to": f"{SITE}/cb", "login_hint": email, **params}))


def pkce_pair() -> tuple[str, dict[str, str]]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, {"code_challenge": challenge, "code_challenge_method": "s256"}


def test_unknown_and_disabled_providers(api: httpx.Client) -> None:
    for name, message in (("nope", "Unsupported provider: Provider nope could not be found"),
                          ("google", "Unsupported provider: provider is not enabled"),
                          ("github", "Unsupported provider: provider is not enabled"),
                          ("", "Unsupported provider: Provider  could not be found")):
        response = api.get("/authorize", params={"provider": name})
        assert response.status_code == 400 and response.json() == {"code": "validation_failed", "message": message}
    legacy = httpx.get(str(api.base_url).rstrip("/") + "/authorize", params={"provider": "google"})
    assert legacy.json() == {"code": 400, "error_code": "validation_failed",
                             "msg": "Unsupported provider: provider is not enabled"}
    assert api.get("/authorize", params={"provider": "keycloak", "scopes": "x" * 5000}).status_code == 400


def test_authorize_redirects_to_the_provider_with_a_state(api: httpx.Client, provider: oidc_provider.RunningProvider) -> None:
    response = api.get("/authorize", params={"provider": "keycloak", "scopes": "groups", "login_hint": "a@b.c",
                                             "state": "forged", "client_id": "forged"})
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(f"{provider.issuer}/authorize?")
    params = query(location)
    assert params["client_id"] == provider.client_id and params["response_type"] == "code"
    assert params["redirect_uri"].endswith("/auth/v1/callback") and params["scope"] == "openid profile email groups"
    assert uuid.UUID(params["state"]) and params["nonce"] and params["login_hint"] == "a@b.c"


def test_implicit_sign_in_creates_the_user_and_its_identity(api: httpx.Client) -> None:
    email = new_email("oidc")
    done = sign_in(api, email, test_name="Ada Lovelace")
    assert done.status_code == 302
    location = done.headers["location"]
    assert location.startswith(f"{SITE}/cb#")
    tokens = fragment(location)
    assert tokens["token_type"] == "bearer" and tokens["provider_token"] and tokens["provider_refresh_token"]
    assert int(tokens["expires_at"]) > time.time() and tokens["refresh_token"]
    user = api.get("/user", headers=bearer(tokens)).json()
    assert user["email"] == email and user["email_confirmed_at"]
    assert user["app_metadata"] == {"provider": "keycloak", "providers": ["keycloak"]}
    identity = user["identities"][0]
    assert identity["provider"] == "keycloak" and identity["identity_data"]["email"] == email
    data = identity["identity_data"]
    assert data["sub"] == identity["id"] and data["provider_id"] == data["sub"] and data["full_name"] == "Ada Lovelace"
    assert data["email_verified"] is True and data["phone_verified"] is False and data["iss"].startswith("http")
    assert user["user_metadata"]["name"] == "Ada Lovelace" and user["user_metadata"]["email_verified"] is True
    # The same person again: the same user, signed in.
    again = fragment(sign_in(api, email).headers["location"])
    assert api.get("/user", headers=bearer(again)).json()["id"] == user["id"]


def test_a_generic_provider_takes_the_id_token_claims(api: httpx.Client) -> None:
    email = new_email("acme")
    tokens = fragment(sign_in(api, email, provider="acme").headers["location"])
    user = api.get("/user", headers=bearer(tokens)).json()
    data = user["identities"][0]["identity_data"]
    assert user["identities"][0]["provider"] == "acme" and data["picture"] == "https://example.com/avatar.png"
    assert data["aud"] and data["exp"] and "nonce" not in data and "at_hash" not in data


def test_pkce_sign_in_redirects_with_a_code(api: httpx.Client) -> None:
    verifier, challenge = pkce_pair()
    done = sign_in(api, new_email("oidc-pkce"), **challenge)
    location = done.headers["location"]
    assert location.startswith(f"{SITE}/cb?code=") and "#" not in location
    code = query(location)["code"]
    session = api.post("/token", params={"grant_type": "pkce"}, json={"auth_code": code, "code_verifier": verifier})
    assert session.status_code == 200, session.text
    body = session.json()
    assert body["provider_token"] and body["provider_refresh_token"]
    assert body["user"]["app_metadata"]["provider"] == "keycloak"


def test_a_verified_provider_email_links_to_the_existing_user(api: httpx.Client) -> None:
    email = new_email("oidc-link")
    created = api.post("/signup", json={"email": email, "password": "secret-pass"}).json()
    tokens = fragment(sign_in(api, email).headers["location"])
    user = api.get("/user", headers=bearer(tokens)).json()
    assert user["id"] == created["user"]["id"]
    assert [i["provider"] for i in user["identities"]] == ["email", "keycloak"]
    assert user["app_metadata"]["providers"] == ["email", "keycloak"]
    # The password still works: the user was confirmed, nothing was removed.
    assert api.post("/token", params={"grant_type": "password"},
                    json={"email": email, "password": "secret-pass"}).status_code == 200


def test_callback_errors_redirect(api: httpx.Client, server: harness.LiveServer) -> None:
    denied = sign_in(api, new_email("denied"), test_deny="1")
    assert denied.status_code == 302
    assert query(denied.headers["location"])["error"] == "access_denied"
    assert fragment(denied.headers["location"]) == {"error": "access_denied", "sb": "",
                                                    "error_description": "The user denied the request"}
    callback = f"{server.url}/auth/v1/callback"
    for params, code, message in (({}, "bad_oauth_callback", "OAuth state parameter missing"),
                                  ({"state": "junk"}, "bad_oauth_state", "OAuth state parameter is invalid"),
                                  ({"state": str(uuid.uuid4())}, "bad_oauth_state", "OAuth state not found or expired")):
        response = httpx.get(callback, params={"code": "c", **params})
        assert response.status_code == 303
        assert response.headers["location"].startswith(SITE)
        assert query(response.headers["location"]) == {"error": "invalid_request", "error_code": code,
                                                       "error_description": message}
    # A replayed callback: the state is spent.
    authorize = api.get("/authorize", params={"provider": "keycloak", "login_hint": new_email("replay")})
    back = httpx.get(authorize.headers["location"], follow_redirects=False).headers["location"]
    first = httpx.get(back, follow_redirects=False)
    assert "access_token" in fragment(first.headers["location"])
    replay = httpx.get(back, follow_redirects=False)
    assert query(replay.headers["location"])["error_code"] == "bad_oauth_state"
    # An expired state.
    authorize = api.get("/authorize", params={"provider": "keycloak", "login_hint": new_email("late")})
    state = query(authorize.headers["location"])["state"]
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.flow_state set created_at = now() - interval '1 hour' where id = %s", [state])
    late = httpx.get(callback, params={"code": "c", "state": state})
    assert query(late.headers["location"])["error_description"] == "OAuth state has expired"
    # No code.
    authorize = api.get("/authorize", params={"provider": "keycloak", "redirect_to": f"{SITE}/x"})
    state = query(authorize.headers["location"])["state"]
    missing = httpx.get(callback, params={"state": state}, follow_redirects=False)
    assert missing.status_code == 302 and missing.headers["location"].startswith(f"{SITE}/x?")
    assert query(missing.headers["location"])["error_code"] == "bad_oauth_callback"
    # A code the provider never issued: the exchange fails.
    authorize = api.get("/authorize", params={"provider": "keycloak"})
    state = query(authorize.headers["location"])["state"]
    bad = httpx.get(callback, params={"state": state, "code": "forged"}, follow_redirects=False)
    assert query(bad.headers["location"])["error"] == "server_error"
    assert query(bad.headers["location"])["error_description"] == "Unable to exchange external code: forged"


def id_token(provider: oidc_provider.RunningProvider, **claims: Any) -> str:
    return provider.mint(claims={"sub": "sub-" + secrets.token_hex(6), "email": new_email("idt"),
                                 "email_verified": True, **claims})["id_token"]


def grant(api: httpx.Client, **body: Any) -> httpx.Response:
    return api.post("/token", params={"grant_type": "id_token"}, json=body)


def test_id_token_sign_in(api: httpx.Client, provider: oidc_provider.RunningProvider) -> None:
    nonce = secrets.token_hex(8)
    token = id_token(provider, nonce=hashlib.sha256(nonce.encode()).hexdigest(), name="Grace")
    session = grant(api, provider="keycloak", id_token=token, nonce=nonce)
    assert session.status_code == 200, session.text
    user = session.json()["user"]
    assert user["app_metadata"]["provider"] == "keycloak" and user["user_metadata"]["name"] == "Grace"
    # by issuer + client_id, for the configured provider whose URL is the issuer
    by_issuer = grant(api, issuer=provider.issuer, client_id="ignored", id_token=id_token(provider))
    assert by_issuer.status_code == 200, by_issuer.text
    minted = provider.mint(claims={"sub": "s-" + secrets.token_hex(4), "email": new_email("at")}, at_hash=True)
    assert grant(api, provider="acme", id_token=minted["id_token"], access_token=minted["access_token"]).status_code == 200
    assert grant(api, provider="acme", id_token=minted["id_token"], access_token="other").json() == {
        "error": "invalid request", "error_description": "Bad ID token"}


@pytest.mark.parametrize(("body", "status", "expected"), [
    ({"provider": "keycloak"}, 400, {"error": "invalid request", "error_description": "id_token required"}),
    ({"id_token": "x"}, 400, {"error": "invalid request", "error_description": "provider or client_id and issuer required"}),
    ({"id_token": "x", "provider": "nope"}, 400, {"code": "validation_failed", "message": 'Custom OIDC provider "nope" not allowed'}),
    ({"id_token": "x", "provider": "google"}, 400,
     {"code": "provider_disabled", "message": 'Provider (issuer "https://accounts.google.com") is not enabled'}),
    ({"id_token": "x.y.z", "provider": "keycloak"}, 400, {"error": "invalid request", "error_description": "Bad ID token"}),
    ({"id_token": 5, "provider": "keycloak"}, 400, None),
    ({"id_token": "x", "provider": "keycloak", "link_identity": True}, 400,
     {"error": "invalid request", "error_description": "Linking requires a valid user access token in Authorization"}),
])
def test_id_token_bad_requests(api: httpx.Client, body: dict[str, Any], status: int, expected: dict[str, Any] | None) -> None:
    response = grant(api, **body)
    assert response.status_code == status
    if expected is not None:
        assert response.json() == expected
    else:
        assert response.json()["code"] == "bad_json"


def test_id_tokens_that_do_not_verify(api: httpx.Client, provider: oidc_provider.RunningProvider) -> None:
    bad_id = {"error": "invalid request", "error_description": "Bad ID token"}
    foreign = provider.mint(claims={"sub": "s", "email": new_email()}, foreign=True)["id_token"]
    assert grant(api, provider="keycloak", id_token=foreign).json() == bad_id
    forged = provider.mint(claims={"sub": "s", "email": new_email()}, alg="HS256")["id_token"]
    assert grant(api, provider="keycloak", id_token=forged).json() == bad_id
    expired = id_token(provider, exp=int(time.time()) - 10)
    assert grant(api, provider="keycloak", id_token=expired).json() == bad_id
    other_issuer = id_token(provider, iss="https://evil.example")
    assert grant(api, provider="keycloak", id_token=other_issuer).json() == bad_id
    no_email = provider.mint(claims={"sub": "s"})["id_token"]
    assert grant(api, provider="keycloak", id_token=no_email).json() == bad_id
    assert grant(api, provider="keycloak", id_token="a" * 20_000).json() == bad_id
    audience = grant(api, provider="keycloak", id_token=id_token(provider, aud="someone-else"))
    assert audience.json() == {"error": "invalid request",
                               "error_description": "Unacceptable audience in id_token: [someone-else]"}
    with_nonce = id_token(provider, nonce=hashlib.sha256(b"n1").hexdigest())
    assert grant(api, provider="keycloak", id_token=with_nonce).json() == {
        "error": "invalid request", "error_description": "Passed nonce and nonce in id_token should either both exist or not."}
    assert grant(api, provider="keycloak", id_token=with_nonce, nonce="n2").json() == {
        "error": "invalid nonce", "error_description": "Nonces mismatch"}
    assert grant(api, provider="keycloak", id_token=id_token(provider), nonce="n").status_code == 400


def test_manual_linking_and_unlinking(api: httpx.Client, server: harness.LiveServer) -> None:
    owner = api.post("/signup", json={"email": new_email("owner"), "password": "secret-pass"}).json()
    linked_email = new_email("linked")
    start = api.get("/user/identities/authorize", headers=bearer(owner),
                    params={"provider": "keycloak", "skip_http_redirect": "true", "login_hint": linked_email,
                            "redirect_to": f"{SITE}/linked"})
    assert start.status_code == 200, start.text
    url = start.json()["url"]
    done = through_provider(httpx.Response(302, headers={"location": url}))
    assert done.headers["location"].startswith(f"{SITE}/linked#access_token=")
    user = api.get("/user", headers=bearer(owner)).json()
    assert [i["provider"] for i in user["identities"]] == ["email", "keycloak"]
    assert user["email"] == owner["user"]["email"]  # the user's address stays
    # Linking the same identity again, by the owner and by someone else.
    again_url = api.get("/user/identities/authorize", headers=bearer(owner), params={
        "provider": "keycloak", "skip_http_redirect": "true", "login_hint": linked_email}).json()["url"]
    again = through_provider(httpx.Response(302, headers={"location": again_url}))
    assert query(again.headers["location"])["error_description"] == "Identity is already linked"
    stranger = api.post("/signup", json={"email": new_email("stranger"), "password": "secret-pass"}).json()
    theirs = api.get("/user/identities/authorize", headers=bearer(stranger), params={
        "provider": "keycloak", "login_hint": linked_email})
    taken = through_provider(theirs)
    assert query(taken.headers["location"])["error_code"] == "identity_already_exists"
    assert query(taken.headers["location"])["error_description"] == "Identity is already linked to another user"
    # Unlinking: bad ids, another user's identity, then the real one, then the last one.
    keycloak_id = next(i["identity_id"] for i in user["identities"] if i["provider"] == "keycloak")
    stranger_identity = stranger["user"]["identities"][0]["identity_id"]
    bad = api.delete("/user/identities/not-a-uuid", headers=bearer(owner))
    assert bad.status_code == 404 and bad.json() == {"code": "validation_failed", "message": "identity_id must be an UUID"}
    for other in (str(uuid.uuid4()), stranger_identity):
        missing = api.delete(f"/user/identities/{other}", headers=bearer(owner))
        assert missing.status_code == 422 and missing.json() == {"code": "identity_not_found",
                                                                 "message": "Identity doesn't exist"}
    assert api.delete(f"/user/identities/{keycloak_id}").status_code == 401
    assert api.delete(f"/user/identities/{keycloak_id}", headers=bearer(owner)).json() == {}
    after = api.get("/user", headers=bearer(owner)).json()
    assert [i["provider"] for i in after["identities"]] == ["email"] and after["app_metadata"]["providers"] == ["email"]
    last = api.delete(f"/user/identities/{after['identities'][0]['identity_id']}", headers=bearer(owner))
    assert last.status_code == 422 and last.json() == {
        "code": "single_identity_not_deletable", "message": "User must have at least 1 identity after unlinking"}
    assert api.get("/user/identities/authorize", params={"provider": "keycloak"}).status_code == 401


def test_an_anonymous_user_links_an_id_token_and_becomes_permanent(api: httpx.Client,
                                                                   provider: oidc_provider.RunningProvider) -> None:
    anonymous = api.post("/signup", json={}).json()
    email = new_email("anon-link")
    as_anon_key = api.post("/token", params={"grant_type": "id_token"},
                           headers={"Authorization": f"Bearer {api.headers['apikey']}"},
                           json={"provider": "keycloak", "id_token": id_token(provider, email=email), "link_identity": True})
    assert as_anon_key.status_code == 403 and as_anon_key.json()["code"] == "bad_jwt"  # the anon key is no user
    linked = api.post("/token", params={"grant_type": "id_token"}, headers=bearer(anonymous),
                      json={"provider": "keycloak", "id_token": id_token(provider, email=email), "link_identity": True})
    assert linked.status_code == 200, linked.text
    user = linked.json()["user"]
    assert user["id"] == anonymous["user"]["id"] and user["email"] == email and user["is_anonymous"] is False
    assert user["app_metadata"]["providers"] == ["keycloak"]


def test_saml_is_disabled(api: httpx.Client, server: harness.LiveServer) -> None:
    disabled = {"code": "saml_provider_disabled", "message": "SAML 2.0 is disabled"}
    assert api.post("/sso", json={"domain": "example.com"}).json() == disabled
    assert api.get("/sso/saml/metadata").status_code == 404
    assert api.post("/sso/saml/acs").json() == disabled
    admin = {"Authorization": f"Bearer {server.service_key}"}
    assert api.get("/admin/sso/providers").status_code == 401
    assert api.get("/admin/sso/providers", headers=admin).json() == disabled


@pytest.fixture(scope="module")
def strict_server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with _start(database_url, provider, GOTRUE_MAILER_AUTOCONFIRM="false") as live:
        yield live


def test_unverified_provider_emails_and_manual_linking_off(strict_server: harness.LiveServer,
                                                           provider: oidc_provider.RunningProvider) -> None:
    with auth_api(strict_server, new_api=True) as api:
        email = new_email("unverified")
        done = sign_in(api, email, test_email_verified="false")
        assert query(done.headers["location"])["error"] == "access_denied"
        assert query(done.headers["location"])["error_code"] == "provider_email_needs_verification"
        assert query(done.headers["location"])["error_description"] == (
            "Unverified email with keycloak. A confirmation email has been sent to your keycloak email")
        mails = httpx.get(f"{strict_server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
        assert mails and mails[0]["Kind"] == "signup"
        anonymous = api.post("/signup", json={}).json()
        off = api.get("/user/identities/authorize", headers=bearer(anonymous), params={"provider": "keycloak"})
        assert off.status_code == 404 and off.json() == {"code": "manual_linking_disabled",
                                                         "message": "Manual linking is disabled"}
        assert api.delete(f"/user/identities/{uuid.uuid4()}", headers=bearer(anonymous)).json()["code"] == (
            "manual_linking_disabled")


@pytest.fixture(scope="module")
def closed_server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with _start(database_url, provider, GOTRUE_DISABLE_SIGNUP="true") as live:
        yield live


def test_disabled_signup_refuses_new_provider_users(closed_server: harness.LiveServer,
                                                    provider: oidc_provider.RunningProvider) -> None:
    with auth_api(closed_server, new_api=True) as api:
        refused = grant(api, provider="keycloak", id_token=id_token(provider))
        assert refused.status_code == 422 and refused.json() == {
            "code": "signup_disabled", "message": "Signups not allowed for this instance"}
        done = sign_in(api, new_email("closed"))
        assert query(done.headers["location"])["error"] == "access_denied"
        assert query(done.headers["location"])["error_code"] == "signup_disabled"
