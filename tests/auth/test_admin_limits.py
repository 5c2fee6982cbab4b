"""Admin user listing (pagination headers), bans, generate_link, and rate limits."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.auth.conftest import NEW_API, auth_api, auth_server, new_email, sign_up


def test_list_users_paginates_like_gotrue(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    for _ in range(3):
        sign_up(api)
    page = api.get("/admin/users", params={"page": 2, "per_page": 1}, headers=admin_headers)
    assert page.status_code == 200
    body = page.json()
    assert body["aud"] == "authenticated" and len(body["users"]) == 1
    total = int(page.headers["X-Total-Count"])
    assert total >= 3
    assert 'rel="next"' in page.headers["Link"] and f"page={total}&per_page=1>; rel=\"last\"" in page.headers["Link"]


def test_admin_needs_the_service_role(api: httpx.Client) -> None:
    session = sign_up(api)
    for headers in ({"Authorization": f"Bearer {session['access_token']}"}, {}):
        response = api.get("/admin/users", headers={**headers, **NEW_API})
        assert response.status_code in (401, 403)
    user = api.get("/admin/users", headers={"Authorization": f"Bearer {session['access_token']}", **NEW_API})
    assert user.json() == {"code": "not_admin", "message": "User not allowed"}


def test_ban_ends_sessions_and_blocks_sign_in(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    email = new_email("ban")
    session = sign_up(api, email)
    user_id = session["user"]["id"]
    bad = api.put(f"/admin/users/{user_id}", json={"ban_duration": "forever"}, headers={**admin_headers, **NEW_API})
    assert bad.status_code == 400 and bad.json()["code"] == "validation_failed"
    banned = api.put(f"/admin/users/{user_id}", json={"ban_duration": "1h30m"}, headers=admin_headers)
    assert banned.status_code == 200 and banned.json()["banned_until"]
    login = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}, headers=NEW_API)
    assert login.json() == {"code": "user_banned", "message": "User is banned"}
    refresh = api.post("/token?grant_type=refresh_token", json={"refresh_token": session["refresh_token"]})
    assert refresh.status_code == 400
    api.put(f"/admin/users/{user_id}", json={"ban_duration": "none"}, headers=admin_headers)
    assert api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).status_code == 200


def test_generate_link_returns_link_and_code(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    email = new_email("link")
    response = api.post("/admin/generate_link", json={"type": "signup", "email": email, "password": "secret-pass"},
                        headers=admin_headers)
    assert response.status_code == 200
    body = response.json()
    assert body["email"] == email and body["verification_type"] == "signup"
    assert "/auth/v1/verify?token=" in body["action_link"] and len(body["email_otp"]) == 6
    verified = api.post("/verify", json={"type": "signup", "token_hash": body["hashed_token"]})
    assert verified.status_code == 200
    missing = api.post("/admin/generate_link", json={"type": "recovery", "email": new_email()},
                       headers={**admin_headers, **NEW_API})
    assert missing.status_code == 404 and missing.json()["code"] == "user_not_found"


def test_unknown_user_id(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    response = api.get("/admin/users/00000000-0000-0000-0000-000000000001", headers={**admin_headers, **NEW_API})
    assert response.status_code == 404 and response.json()["code"] == "user_not_found"
    malformed = api.get("/admin/users/not-a-uuid", headers={**admin_headers, **NEW_API})  # GoTrue's loadUser
    assert malformed.status_code == 404 and malformed.json()["code"] == "validation_failed"


@pytest.fixture(scope="module")
def limited(database_url: str) -> Iterator[httpx.Client]:
    with auth_server(database_url, {"SUPALITE_RATE_LIMITS": "true"}) as server, auth_api(server, new_api=True) as client:
        yield client


def test_sign_in_rate_limit(limited: httpx.Client) -> None:
    answers = [limited.post("/token?grant_type=password", json={"email": new_email(), "password": "x-x-x-x"})
               for _ in range(31)]
    assert {r.status_code for r in answers[:30]} == {400}
    assert answers[30].status_code == 429
    assert answers[30].json() == {"code": "over_request_rate_limit", "message": "Request rate limit reached"}


def test_recovery_mail_frequency(limited: httpx.Client) -> None:
    email = new_email("freq")
    limited.post("/signup", json={"email": email, "password": "secret-pass"}, headers={"X-Forwarded-For": "10.0.0.9"})
    assert limited.post("/recover", json={"email": email}).status_code == 200
    again = limited.post("/recover", json={"email": email})
    assert again.status_code == 429 and again.json()["code"] == "over_email_send_rate_limit"


def test_forwarded_for_is_ignored_from_untrusted_peers(database_url: str) -> None:
    with auth_server(database_url, {"SUPALITE_RATE_LIMITS": "true", "SUPALITE_FORWARDED_ALLOW_IPS": "192.0.2.1"}) as server, \
            auth_api(server, new_api=True) as client:
        answers = [client.post("/token?grant_type=password", json={"email": new_email(), "password": "x-x-x-x"},
                               headers={"X-Forwarded-For": f"198.51.100.{i}"}) for i in range(31)]
    assert answers[30].status_code == 429, "a spoofed X-Forwarded-For must not reset the per-IP limit"
