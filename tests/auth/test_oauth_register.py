"""POST /auth/v1/oauth/clients/register: GoTrue's OAuth 2.1 dynamic client registration (RFC 7591),
public (no caller), only with the OAuth server on and GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION,
rate limited per client. supabase-js has no call for it (its auth.admin.oauth.* are the admin API),
so it is driven with httpx as an MCP client or any RFC 7591 client would."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_server

REGISTER = "/auth/v1/oauth/clients/register"
GOOD = {"client_name": "An MCP client", "redirect_uris": ["https://app.example.com/cb"]}
ON = {"GOTRUE_OAUTH_SERVER_ENABLED": "true", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true"}


@pytest.fixture(scope="module")
def dcr_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, ON) as server:
        yield server


@pytest.fixture(scope="module")
def anyone(dcr_server: harness.LiveServer) -> Iterator[httpx.Client]:
    """No apikey, no Authorization: the endpoint is public, as GoTrue's (errors in the 2024-01-01 shape)."""
    with httpx.Client(base_url=dcr_server.url, headers=NEW_API, timeout=30) as client:
        yield client


def _error(response: httpx.Response, status: int, code: str, message: str | None = None) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    if message is not None:
        assert body["message"] == message, body


def _stored(server: harness.LiveServer, client_id: str) -> tuple[Any, ...] | None:
    with psycopg.connect(server.database_url) as conn:
        return conn.execute("select registration_type::text, client_type::text, client_secret_hash is not null"
                            " from auth.oauth_clients where id = %s", [client_id]).fetchone()


def test_without_the_oauth_server_the_path_is_gotrues_feature_disabled(live_server: harness.LiveServer) -> None:
    with httpx.Client(base_url=live_server.url, headers=NEW_API, timeout=30) as client:
        _error(client.post(REGISTER, json=GOOD), 404, "feature_disabled", "OAuth server is disabled")
        _error(client.post(REGISTER, json=GOOD, headers=admin_headers_of(live_server)), 404, "feature_disabled")


def test_refused_while_dynamic_registration_is_off(database_url: str) -> None:
    with auth_server(database_url, {"GOTRUE_OAUTH_SERVER_ENABLED": "true"}) as server, \
            httpx.Client(base_url=server.url, headers=NEW_API, timeout=30) as client:
        before = _count(server)
        for headers in ({}, admin_headers_of(server)):  # an admin cannot use it either: it is off
            _error(client.post(REGISTER, json=GOOD, headers=headers), 403,
                   "oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled")
        assert _count(server) == before


def _count(server: harness.LiveServer) -> int:
    with psycopg.connect(server.database_url) as conn:
        row = conn.execute("select count(*) from auth.oauth_clients").fetchone()
    assert row is not None
    return int(row[0])


def test_a_stranger_registers_a_confidential_client(anyone: httpx.Client, dcr_server: harness.LiveServer) -> None:
    response = anyone.post(REGISTER, json={**GOOD, "client_uri": "https://app.example.com"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["registration_type"] == "dynamic" and body["client_type"] == "confidential"
    assert body["token_endpoint_auth_method"] == "client_secret_basic" and body["client_secret"]
    assert body["grant_types"] == ["authorization_code", "refresh_token"] and body["response_types"] == ["code"]
    assert body["redirect_uris"] == GOOD["redirect_uris"] and body["client_name"] == GOOD["client_name"]
    assert _stored(dcr_server, body["client_id"]) == ("dynamic", "confidential", True)
    # the admin API sees it, secret not shown again
    admin = httpx.get(f"{dcr_server.url}/auth/v1/admin/oauth/clients/{body['client_id']}",
                      headers=admin_headers_of(dcr_server), timeout=30)
    assert admin.status_code == 200 and admin.json() == {k: v for k, v in body.items() if k != "client_secret"}


def test_a_public_client_gets_no_secret(anyone: httpx.Client, dcr_server: harness.LiveServer) -> None:
    response = anyone.post(REGISTER, json={**GOOD, "token_endpoint_auth_method": "none",
                                           "redirect_uris": ["http://localhost:3000/cb", "myapp://callback"]})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["client_type"] == "public" and body["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in body
    assert _stored(dcr_server, body["client_id"]) == ("dynamic", "public", False)


def test_the_caller_cannot_pick_what_the_server_decides(anyone: httpx.Client, dcr_server: harness.LiveServer) -> None:
    chosen_id = str(uuid.uuid4())
    response = anyone.post(REGISTER, json={**GOOD, "registration_type": "manual", "client_id": chosen_id,
                                           "client_secret": "mine", "response_types": ["token"]})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["registration_type"] == "dynamic" and body["client_id"] != chosen_id
    assert body["client_secret"] != "mine" and body["response_types"] == ["code"]
    assert _stored(dcr_server, chosen_id) is None


@pytest.mark.parametrize(("fields", "message"), [
    ({"redirect_uris": []}, "400: redirect_uris is required"),
    ({"redirect_uris": None}, "400: redirect_uris is required"),
    ({"redirect_uris": [f"https://a.example.com/{i}" for i in range(11)]}, "400: redirect_uris cannot exceed 10 items"),
    ({"redirect_uris": ["http://evil.example.com/cb"]},
     "400: invalid redirect_uri 'http://evil.example.com/cb': HTTP scheme only allowed for localhost"),
    ({"redirect_uris": ["javascript://x/alert(1)"]},
     "400: invalid redirect_uri 'javascript://x/alert(1)': scheme 'javascript' is not allowed for security reasons"),
    ({"redirect_uris": ["https://a.example.com/cb#frag"]},
     "400: invalid redirect_uri 'https://a.example.com/cb#frag': fragment not allowed in redirect URI"),
    # GoTrue bounds client_uri and logo_uri only; a redirect URI is bounded the same way here
    ({"redirect_uris": ["https://a.example.com/" + "a" * 2048]},
     "400: invalid redirect_uri: cannot exceed 2048 characters"),
    ({"grant_types": ["client_credentials"]},
     "400: grant_types must only contain 'authorization_code' and/or 'refresh_token'"),
    ({"client_name": "x" * 1025}, "400: client_name cannot exceed 1024 characters"),
    ({"logo_uri": "not a url"}, "400: logo_uri must be a valid URL"),
    ({"token_endpoint_auth_method": "private_key_jwt"},
     "400: token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]"),
    ({"client_type": "public", "token_endpoint_auth_method": "client_secret_post"},
     "400: client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_post'"
     " (expected client_type 'confidential')"),
])
def test_validation_is_the_admin_creations(anyone: httpx.Client, fields: dict[str, Any], message: str) -> None:
    _error(anyone.post(REGISTER, json={**GOOD, **fields}), 400, "validation_failed", message)


@pytest.mark.parametrize("body", [b"", b"[]", b"{", b"null x", b'{"redirect_uris": "https://a.example.com"}',
                                  b'{"redirect_uris": [1]}', b'{"client_name": {}}', b'"text"', b"\xff\xfe"])
def test_malformed_bodies(anyone: httpx.Client, body: bytes) -> None:
    response = anyone.post(REGISTER, content=body, headers={"Content-Type": "application/json"})
    _error(response, 400, "bad_json", "Invalid JSON body")


def test_an_oversize_body_is_refused_before_it_is_read(anyone: httpx.Client) -> None:
    response = anyone.post(REGISTER, json={**GOOD, "client_name": "x" * 200_000})
    assert response.status_code == 413 and response.json()["code"] == "validation_failed"


def test_only_post(anyone: httpx.Client) -> None:
    assert anyone.get(REGISTER).status_code in (404, 405)


def test_registrations_are_rate_limited_per_client(database_url: str) -> None:
    # GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER's bucket (server/auth/ratelimit.py): a burst, then refused
    with auth_server(database_url, {**ON, "SUPALITE_RATE_LIMITS": "true"}) as server, \
            httpx.Client(base_url=server.url, headers=NEW_API, timeout=30) as client:
        statuses = [client.post(REGISTER, json=GOOD).status_code for _ in range(45)]
        assert statuses[:10] == [201] * 10 and statuses[-1] == 429, statuses
        assert set(statuses) == {201, 429}
        _error(client.post(REGISTER, json=GOOD), 429, "over_request_rate_limit", "Request rate limit reached")
