"""/admin/oauth/clients (GoTrue's OAuth 2.1 server administration): CRUD, secrets, validation,
the disabled error, and supabase-js's auth.admin.oauth.* (tests/js/auth-admin-oauth.suite.mjs)."""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_api, auth_server, sign_up
from tests.js.node_suite import needs_node, run_node_suite

CLIENTS = "/admin/oauth/clients"
GOOD = {"client_name": "Cli", "redirect_uris": ["https://app.example.com/cb"]}


@pytest.fixture(scope="module")
def oauth_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_OAUTH_SERVER_ENABLED": "true"}) as server:
        yield server


@pytest.fixture(scope="module")
def oapi(oauth_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(oauth_server, new_api=True, headers=admin_headers_of(oauth_server)) as client:
        yield client


def _create(oapi: httpx.Client, **fields: Any) -> dict[str, Any]:
    response = oapi.post(CLIENTS, json={**GOOD, **fields})
    assert response.status_code == 201, response.text
    return response.json()


def _error(response: httpx.Response, status: int, code: str, message: str | None = None) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    if message is not None:
        assert body["message"] == message, body


def test_disabled_by_default_with_gotrues_error(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    some_id = str(uuid.uuid4())
    for method, path in (("GET", CLIENTS), ("POST", CLIENTS), ("GET", f"{CLIENTS}/{some_id}"),
                         ("PUT", f"{CLIENTS}/{some_id}"), ("DELETE", f"{CLIENTS}/{some_id}"),
                         ("POST", f"{CLIENTS}/{some_id}/regenerate_secret")):
        response = api.request(method, path, json=GOOD, headers={**admin_headers, **NEW_API})
        _error(response, 404, "feature_disabled", "OAuth server is disabled")
    # the admin check comes first, as GoTrue's middleware order has it
    session = sign_up(api)
    _error(api.get(CLIENTS, headers={"Authorization": f"Bearer {session['access_token']}", **NEW_API}),
           403, "not_admin")


def test_create_confidential_shows_the_secret_once_and_stores_its_hash(oapi: httpx.Client,
                                                                       oauth_server: harness.LiveServer) -> None:
    created = _create(oapi, client_uri="https://app.example.com", logo_uri="https://app.example.com/logo.png")
    assert created["client_type"] == "confidential"
    assert created["token_endpoint_auth_method"] == "client_secret_basic"
    assert created["grant_types"] == ["authorization_code", "refresh_token"]
    assert created["response_types"] == ["code"] and created["registration_type"] == "manual"
    assert created["redirect_uris"] == GOOD["redirect_uris"] and created["client_name"] == "Cli"
    secret = created["client_secret"]
    assert len(base64.urlsafe_b64decode(secret + "=")) == 32
    with psycopg.connect(oauth_server.database_url) as conn:
        row = conn.execute("select client_secret_hash, redirect_uris, grant_types from auth.oauth_clients where id = %s",
                           [created["client_id"]]).fetchone()
    assert row is not None
    digest = base64.urlsafe_b64encode(hashlib.sha256(secret.encode()).digest()).rstrip(b"=").decode()
    assert row == (digest, "https://app.example.com/cb", "authorization_code,refresh_token")
    fetched = oapi.get(f"{CLIENTS}/{created['client_id']}").json()
    assert "client_secret" not in fetched
    assert fetched == {k: v for k, v in created.items() if k != "client_secret"}


def test_public_client_types_and_methods(oapi: httpx.Client) -> None:
    public = _create(oapi, client_type="public")
    assert public["token_endpoint_auth_method"] == "none" and "client_secret" not in public
    inferred = _create(oapi, token_endpoint_auth_method="none")
    assert inferred["client_type"] == "public"
    post = _create(oapi, token_endpoint_auth_method="client_secret_post", grant_types=["authorization_code"])
    assert post["client_type"] == "confidential" and post["grant_types"] == ["authorization_code"]
    assert post["client_secret"]
    no_name = _create(oapi, client_name=None)
    assert "client_name" not in no_name and "client_uri" not in no_name
    _error(oapi.post(f"{CLIENTS}/{public['client_id']}/regenerate_secret"), 400, "validation_failed",
           "Cannot regenerate secret for public client")


@pytest.mark.parametrize(("fields", "message"), [
    ({"redirect_uris": []}, "400: redirect_uris is required"),
    ({"redirect_uris": None}, "400: redirect_uris is required"),
    ({"redirect_uris": [f"https://a.example.com/{i}" for i in range(11)]}, "400: redirect_uris cannot exceed 10 items"),
    ({"redirect_uris": [""]}, "400: invalid redirect_uri '': redirect URI cannot be empty"),
    ({"redirect_uris": [None]}, "400: invalid redirect_uri '': redirect URI cannot be empty"),
    ({"redirect_uris": ["/relative"]}, "400: invalid redirect_uri '/relative': must have scheme and host"),
    ({"redirect_uris": ["http://evil.example.com/cb"]},
     "400: invalid redirect_uri 'http://evil.example.com/cb': HTTP scheme only allowed for localhost"),
    ({"redirect_uris": ["javascript://x/alert(1)"]},
     "400: invalid redirect_uri 'javascript://x/alert(1)': scheme 'javascript' is not allowed for security reasons"),
    ({"redirect_uris": ["https://a.example.com/cb#frag"]},
     "400: invalid redirect_uri 'https://a.example.com/cb#frag': fragment not allowed in redirect URI"),
    ({"redirect_uris": ["https://a.example.com:port/cb"]},
     "400: invalid redirect_uri 'https://a.example.com:port/cb': invalid URL format"),
    ({"redirect_uris": ["https://a.example.com/%zz"]},
     "400: invalid redirect_uri 'https://a.example.com/%zz': invalid URL format"),
    # Go's url.Parse (server/auth/gourl.py): the fragment is unescaped, a host may not escape ASCII
    ({"redirect_uris": ["https://a.example.com/cb#%zz"]},
     "400: invalid redirect_uri 'https://a.example.com/cb#%zz': invalid URL format"),
    ({"redirect_uris": ["https://%61.example.com/cb"]},
     "400: invalid redirect_uri 'https://%61.example.com/cb': invalid URL format"),
    ({"redirect_uris": ["https://user@/cb"]}, "400: invalid redirect_uri 'https://user@/cb': must have scheme and host"),
    # url.ParseRequestURI does not cut a fragment off: '#' is then a character of the host
    ({"client_uri": "https://app.example.com#about"}, "400: client_uri must be a valid URL"),
    ({"grant_types": ["password"]}, "400: grant_types must only contain 'authorization_code' and/or 'refresh_token'"),
    ({"client_name": "é" * 513}, "400: client_name cannot exceed 1024 characters"),
    ({"client_uri": "not a url"}, "400: client_uri must be a valid URL"),
    ({"logo_uri": "https://x.example.com/" + "a" * 2048}, "400: logo_uri cannot exceed 2048 characters"),
    ({"client_type": "secret"}, "400: client_type must be 'public' or 'confidential'"),
    ({"token_endpoint_auth_method": "private_key_jwt"},
     "400: token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]"),
    ({"client_type": "public", "token_endpoint_auth_method": "client_secret_basic"},
     "400: client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_basic'"
     " (expected client_type 'confidential')"),
])
def test_create_validation_as_gotrue(oapi: httpx.Client, fields: dict[str, Any], message: str) -> None:
    _error(oapi.post(CLIENTS, json={**GOOD, **fields}), 400, "validation_failed", message)


def test_loopback_and_custom_scheme_redirects(oapi: httpx.Client) -> None:
    uris = ["http://localhost:3000/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb", "myapp://callback"]
    assert _create(oapi, redirect_uris=uris)["redirect_uris"] == uris


def test_uris_go_accepts(oapi: httpx.Client) -> None:
    # Go's url.Parse keeps a query raw (a bad escape in it is no error), allows '<' '>' '"' in a host and
    # '@' in the user info; url.ParseRequestURI takes a '#' after the host as part of the path
    uris = ["https://a.example.com/cb?x=%zz", 'https://a<b>"c.example.com/cb', "https://us@er@a.example.com/cb",
            "https://ex%C3%A4mple.com/cb"]
    created = _create(oapi, redirect_uris=uris, client_uri="https://app.example.com/#about",
                      logo_uri="https://app.example.com/logo.png?v=%zz")
    assert created["redirect_uris"] == uris
    assert created["client_uri"] == "https://app.example.com/#about"


@pytest.mark.parametrize("body", [b"", b"[]", b"{", b'{"redirect_uris": "https://a.example.com"}',
                                  b'{"redirect_uris": [1]}', b'{"client_name": 5}', b'"text"'])
def test_malformed_bodies(oapi: httpx.Client, body: bytes) -> None:
    headers = {"Content-Type": "application/json"}
    _error(oapi.post(CLIENTS, content=body, headers=headers), 400, "bad_json", "Invalid JSON body")
    client_id = _create(oapi)["client_id"]
    _error(oapi.put(f"{CLIENTS}/{client_id}", content=body, headers=headers), 400, "bad_json", "Invalid JSON body")


def test_oversize_body_is_refused(oapi: httpx.Client) -> None:
    response = oapi.post(CLIENTS, json={**GOOD, "client_name": "x" * 200_000})
    assert response.status_code == 413


def test_update_fields_and_errors(oapi: httpx.Client) -> None:
    created = _create(oapi, client_uri="https://app.example.com")
    path = f"{CLIENTS}/{created['client_id']}"
    updated = oapi.put(path, json={"client_name": "Renamed", "redirect_uris": ["https://b.example.com/cb"],
                                   "logo_uri": "https://b.example.com/l.png", "client_uri": "",
                                   "token_endpoint_auth_method": "client_secret_post"})
    assert updated.status_code == 200, updated.text
    body = updated.json()
    assert body["client_name"] == "Renamed" and body["redirect_uris"] == ["https://b.example.com/cb"]
    assert body["logo_uri"] == "https://b.example.com/l.png" and "client_uri" not in body
    assert body["token_endpoint_auth_method"] == "client_secret_post" and "client_secret" not in body
    assert oapi.get(path).json() == body
    # errors of an update are not wrapped, unlike those of a creation
    _error(oapi.put(path, json={}), 400, "validation_failed", "No fields provided for update")
    _error(oapi.put(path, json={"client_name": None}), 400, "validation_failed", "No fields provided for update")
    _error(oapi.put(path, json={"redirect_uris": []}), 400, "validation_failed", "redirect_uris cannot be empty")
    _error(oapi.put(path, json={"grant_types": []}), 400, "validation_failed", "grant_types cannot be empty")
    _error(oapi.put(path, json={"token_endpoint_auth_method": "nope"}), 400, "validation_failed",
           "invalid token_endpoint_auth_method: must be one of [none client_secret_basic client_secret_post]")
    _error(oapi.put(path, json={"token_endpoint_auth_method": "none"}), 400, "validation_failed",
           "token_endpoint_auth_method 'none' is not valid for client_type 'confidential';"
           " valid methods: [client_secret_basic client_secret_post]")


def test_regenerate_secret_replaces_the_old_one(oapi: httpx.Client, oauth_server: harness.LiveServer) -> None:
    created = _create(oapi)
    response = oapi.post(f"{CLIENTS}/{created['client_id']}/regenerate_secret")
    assert response.status_code == 200, response.text
    secret = response.json()["client_secret"]
    assert secret != created["client_secret"]
    with psycopg.connect(oauth_server.database_url) as conn:
        row = conn.execute("select client_secret_hash from auth.oauth_clients where id = %s",
                           [created["client_id"]]).fetchone()
    assert row is not None
    from server.auth.oauth_clients import secret_matches
    assert secret_matches(secret, row[0]) and not secret_matches(created["client_secret"], row[0])


def test_unknown_malformed_and_deleted_ids(oapi: httpx.Client) -> None:
    created = _create(oapi)
    path = f"{CLIENTS}/{created['client_id']}"
    delete = oapi.delete(path)
    assert delete.status_code == 204 and delete.content == b""
    for client_id in (created["client_id"], str(uuid.uuid4())):
        for method, suffix in (("GET", ""), ("PUT", ""), ("DELETE", ""), ("POST", "/regenerate_secret")):
            response = oapi.request(method, f"{CLIENTS}/{client_id}{suffix}", json={"client_name": "x"})
            _error(response, 404, "oauth_client_not_found", "OAuth client not found")
    # an unknown client answers 404 before its body is read, as GoTrue's loader middleware does
    _error(oapi.put(f"{CLIENTS}/{uuid.uuid4()}", content=b"{", headers={"Content-Type": "application/json"}),
           404, "oauth_client_not_found")
    for bad in ("not-a-uuid", "1234"):
        _error(oapi.get(f"{CLIENTS}/{bad}"), 400, "validation_failed", "invalid client_id format")
    assert all(c["client_id"] != created["client_id"] for c in oapi.get(CLIENTS).json().get("clients", []))


def test_list_newest_first_and_paged(oapi: httpx.Client) -> None:
    ids = [_create(oapi, client_name=f"list-{i}")["client_id"] for i in range(3)]
    whole = oapi.get(CLIENTS)
    assert whole.status_code == 200 and "Link" not in whole.headers
    listed = [c["client_id"] for c in whole.json()["clients"]]
    assert listed[:3] == ids[::-1]
    page = oapi.get(CLIENTS, params={"page": 2, "per_page": 1})
    assert page.status_code == 200
    assert [c["client_id"] for c in page.json()["clients"]] == [listed[1]]
    total = int(page.headers["X-Total-Count"])
    assert total == len(listed)
    assert f'page={total}&per_page=1>; rel="last"' in page.headers["Link"]
    beyond = oapi.get(CLIENTS, params={"page": 10_000, "per_page": 1})
    assert beyond.status_code == 200 and beyond.json() == {}  # GoTrue's omitempty list
    for params in ({"page": -1}, {"per_page": "x"}, {"per_page": 1001}, {"page": 0}):
        response = oapi.get(CLIENTS, params=params)
        _error(response, 400, "validation_failed")
        assert response.json()["message"].startswith("Bad Pagination Parameters: ")


def test_non_admin_callers_are_refused(oapi: httpx.Client, oauth_server: harness.LiveServer) -> None:
    created = _create(oapi)
    anon = {"apikey": oauth_server.anon_key, "Authorization": f"Bearer {oauth_server.anon_key}", **NEW_API}
    with httpx.Client(base_url=f"{oauth_server.url}/auth/v1", timeout=30) as plain:
        for method, suffix in (("GET", ""), ("POST", ""), ("GET", f"/{created['client_id']}"),
                               ("PUT", f"/{created['client_id']}"), ("DELETE", f"/{created['client_id']}"),
                               ("POST", f"/{created['client_id']}/regenerate_secret")):
            _error(plain.request(method, CLIENTS + suffix, json=GOOD, headers=anon), 403, "not_admin")
            _error(plain.request(method, CLIENTS + suffix, json=GOOD, headers=NEW_API), 401, "no_authorization")
    assert oapi.get(f"{CLIENTS}/{created['client_id']}").status_code == 200


@needs_node
def test_supabase_js_admin_oauth(oauth_server: harness.LiveServer) -> None:
    counts = run_node_suite("auth-admin-oauth.suite.mjs", oauth_server)
    assert counts["fail"] == 0 and counts["skipped"] == 0
