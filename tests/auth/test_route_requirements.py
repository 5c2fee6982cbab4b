"""Every /auth/v1 route answers each kind of caller as its requirement says: no token, the anon
key, a user's token and the service-role key, against the route table (server/auth/routes.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server.auth.authn import Auth
from server.auth.routes import ROUTES
from tests import harness
from tests.auth.conftest import auth_api, auth_server, bearer, sign_up

PUBLIC, USER, ADMIN = Auth.PUBLIC, Auth.USER, Auth.ADMIN

# What each route requires, written out again: a route added to the table without a row here,
# or with another requirement, fails test_every_route_has_its_expectation.
EXPECTED: dict[tuple[str, str], Auth] = {
    ("GET", "/health"): PUBLIC,
    ("GET", "/.well-known/jwks.json"): PUBLIC,
    ("GET", "/callback"): PUBLIC,
    ("POST", "/callback"): PUBLIC,
    ("GET", "/settings"): PUBLIC,
    ("GET", "/authorize"): PUBLIC,
    ("POST", "/invite"): ADMIN,
    ("POST", "/signup"): PUBLIC,
    ("POST", "/recover"): PUBLIC,
    ("POST", "/resend"): PUBLIC,
    ("POST", "/magiclink"): PUBLIC,
    ("POST", "/otp"): PUBLIC,
    ("POST", "/token"): PUBLIC,
    ("GET", "/verify"): PUBLIC,
    ("POST", "/verify"): PUBLIC,
    ("POST", "/logout"): USER,
    ("GET", "/reauthenticate"): USER,
    ("GET", "/user"): USER,
    ("PUT", "/user"): USER,
    ("GET", "/user/identities/authorize"): USER,
    ("DELETE", "/user/identities/{identity_id}"): USER,
    ("POST", "/factors"): USER,
    ("POST", "/factors/{factor_id}/verify"): USER,
    ("POST", "/factors/{factor_id}/challenge"): USER,
    ("DELETE", "/factors/{factor_id}"): USER,
    ("POST", "/passkeys/authentication/options"): PUBLIC,
    ("POST", "/passkeys/authentication/verify"): PUBLIC,
    ("POST", "/passkeys/registration/options"): USER,
    ("POST", "/passkeys/registration/verify"): USER,
    ("GET", "/passkeys"): USER,
    ("PATCH", "/passkeys/{passkey_id}"): USER,
    ("DELETE", "/passkeys/{passkey_id}"): USER,
    ("POST", "/sso"): PUBLIC,
    ("GET", "/sso/saml/metadata"): PUBLIC,
    ("POST", "/sso/saml/acs"): PUBLIC,
    ("GET", "/admin/users"): ADMIN,
    ("POST", "/admin/users"): ADMIN,
    ("GET", "/admin/users/{user_id}/factors"): ADMIN,
    ("DELETE", "/admin/users/{user_id}/factors/{factor_id}"): ADMIN,
    ("PUT", "/admin/users/{user_id}/factors/{factor_id}"): ADMIN,
    ("GET", "/admin/users/{user_id}/passkeys"): ADMIN,
    ("DELETE", "/admin/users/{user_id}/passkeys/{passkey_id}"): ADMIN,
    ("GET", "/admin/users/{user_id}"): ADMIN,
    ("PUT", "/admin/users/{user_id}"): ADMIN,
    ("DELETE", "/admin/users/{user_id}"): ADMIN,
    ("POST", "/admin/generate_link"): ADMIN,
    ("GET", "/admin/sso/providers"): ADMIN,
    ("POST", "/admin/sso/providers"): ADMIN,
    ("GET", "/admin/sso/providers/{idp_id}"): ADMIN,
    ("PUT", "/admin/sso/providers/{idp_id}"): ADMIN,
    ("DELETE", "/admin/sso/providers/{idp_id}"): ADMIN,
    ("POST", "/admin/oauth/clients"): ADMIN,
    ("GET", "/admin/oauth/clients"): ADMIN,
    ("GET", "/admin/oauth/clients/{client_id}"): ADMIN,
    ("PUT", "/admin/oauth/clients/{client_id}"): ADMIN,
    ("DELETE", "/admin/oauth/clients/{client_id}"): ADMIN,
    ("POST", "/admin/oauth/clients/{client_id}/regenerate_secret"): ADMIN,
    ("POST", "/oauth/clients/register"): PUBLIC,
    ("GET", "/{path:path}"): PUBLIC,
    ("POST", "/{path:path}"): PUBLIC,
    ("PUT", "/{path:path}"): PUBLIC,
    ("PATCH", "/{path:path}"): PUBLIC,
    ("DELETE", "/{path:path}"): PUBLIC,
}

# The error codes of a refused caller (GoTrue's requireAuthentication / requireAdminCredentials).
AUTH_ERRORS = {"no_authorization", "bad_jwt", "not_admin", "user_not_found", "session_not_found", "unexpected_audience"}

# Every route switched on, so that no setting answers before the requirement is tested.
ENV = {"GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
       "GOTRUE_OAUTH_SERVER_ENABLED": "true", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true"}


def _table() -> dict[tuple[str, str], Auth]:
    return {(method, row.path): row.auth for row in ROUTES for method in row.methods}


def test_every_route_has_its_expectation() -> None:
    assert _table() == EXPECTED


def _url(path: str) -> str:
    """The path with each parameter filled (a fresh UUID; the catch-all, an unknown path)."""
    filled = path.replace("{path:path}", "no-such-route")
    while "{" in filled:
        start, end = filled.index("{"), filled.index("}")
        filled = filled[:start] + str(uuid.uuid4()) + filled[end + 1:]
    return filled


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, ENV) as running:
        yield running


@pytest.fixture
def credentials(server: harness.LiveServer) -> dict[str, dict[str, str]]:
    """The Authorization header of each kind of caller (the apikey header is always the anon key);
    a new user each time, as POST /logout ends its sessions."""
    with auth_api(server) as api:
        session = sign_up(api)
    return {"none": {}, "anon": {"Authorization": f"Bearer {server.anon_key}"}, "user": bearer(session),
            "service_role": {"Authorization": f"Bearer {server.service_key}"}}


def _answer(api: httpx.Client, method: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """The answer's status and GoTrue error code (its x-sb-error-code header; "" on a success)."""
    body: dict[str, Any] = {} if method == "GET" else {"json": {}}
    response = api.request(method, _url(path), headers=headers, follow_redirects=False, **body)
    return response.status_code, response.headers.get("x-sb-error-code", "")


@pytest.mark.parametrize(("method", "path"), sorted(EXPECTED))
def test_route_answers_each_caller(server: harness.LiveServer, credentials: dict[str, dict[str, str]],
                                   method: str, path: str) -> None:
    requirement = EXPECTED[(method, path)]
    with auth_api(server, new_api=True) as api:
        answers = {who: _answer(api, method, path, headers) for who, headers in credentials.items()}
    refused = {who for who, (status, code) in answers.items() if status in (401, 403) and code in AUTH_ERRORS}
    if requirement is ADMIN:
        assert answers["none"] == (401, "no_authorization"), answers
        assert answers["anon"] == (403, "not_admin"), answers
        assert answers["user"] == (403, "not_admin"), answers
        assert refused == {"none", "anon", "user"}, answers
    elif requirement is USER:
        assert answers["none"] == (401, "no_authorization"), answers
        assert refused == {"none", "anon", "service_role"}, answers  # neither key names a user
    else:
        assert refused == set(), answers
