"""/admin/users as GoTrue's admin.go: user_metadata exactly as sent (the identity's claims live
in identity_data), GoTrue's pagination errors, and malformed user ids."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.auth.conftest import NEW_API, new_email


def _create(api: httpx.Client, admin_headers: dict[str, str], **body: object) -> httpx.Response:
    return api.post("/admin/users", json={"email": new_email("admin-path"), **body}, headers={**admin_headers, **NEW_API})


def test_create_keeps_exactly_the_metadata_sent(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    sent = {"name": "Ada", "nested": {"a": [1, 2]}}
    response = _create(api, admin_headers, password="secret-pass", user_metadata=sent)
    assert response.status_code == 200, response.text
    user = response.json()
    assert user["user_metadata"] == sent
    [identity] = user["identities"]
    assert identity["identity_data"] == {"sub": user["id"], "email": user["email"], "email_verified": False,
                                         "phone_verified": False}
    fetched = api.get(f"/admin/users/{user['id']}", headers=admin_headers).json()
    assert fetched["user_metadata"] == sent
    listed = api.get("/admin/users", params={"per_page": 1000}, headers=admin_headers).json()["users"]
    assert next(u for u in listed if u["id"] == user["id"])["user_metadata"] == sent
    empty = _create(api, admin_headers).json()
    assert empty["user_metadata"] == {}


def test_email_confirm_adds_email_verified_as_gotrues_confirm(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    user = _create(api, admin_headers, email_confirm=True, user_metadata={"plan": "pro"}).json()
    assert user["email_confirmed_at"]
    assert user["user_metadata"] == {"plan": "pro", "email_verified": True}


def test_update_merges_exactly(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    user = _create(api, admin_headers, user_metadata={"keep": 1, "drop": 2}).json()
    response = api.put(f"/admin/users/{user['id']}", json={"user_metadata": {"drop": None, "new": "x"},
                                                           "email": new_email("admin-path-moved")},
                       headers={**admin_headers, **NEW_API})
    assert response.status_code == 200, response.text
    assert response.json()["user_metadata"] == {"keep": 1, "new": "x"}


@pytest.mark.parametrize(("params", "message"), [
    ({"page": "-1"}, 'Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax'),
    ({"per_page": "-1"}, 'Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax'),
    ({"page": "abc"}, 'Bad Pagination Parameters: strconv.ParseUint: parsing "abc": invalid syntax'),
    ({"page": "1.5"}, 'Bad Pagination Parameters: strconv.ParseUint: parsing "1.5": invalid syntax'),
    ({"page": "+2"}, 'Bad Pagination Parameters: strconv.ParseUint: parsing "+2": invalid syntax'),
    ({"page": "0"}, "Bad Pagination Parameters: page must be greater than 0"),
    ({"per_page": "0"}, "Bad Pagination Parameters: per_page must be greater than 0"),
    ({"per_page": "1001"}, "Bad Pagination Parameters: per_page must not exceed 1000"),
    ({"page": "2147483648"}, "Bad Pagination Parameters: page exceeds maximum allowed value"),
    ({"page": "18446744073709551616"},
     'Bad Pagination Parameters: strconv.ParseUint: parsing "18446744073709551616": value out of range'),
    ({"page": "9" * 5000}, f'Bad Pagination Parameters: strconv.ParseUint: parsing "{"9" * 5000}": value out of range'),
])
def test_bad_pagination_is_gotrues_400(api: httpx.Client, admin_headers: dict[str, str], params: dict[str, str],
                                       message: str) -> None:
    response = api.get("/admin/users", params=params, headers={**admin_headers, **NEW_API})
    assert response.status_code == 400
    assert response.json() == {"code": "validation_failed", "message": message}


def test_good_pagination_edges(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    _create(api, admin_headers)
    for params in ({"page": "1", "per_page": "1000"}, {"page": "2147483647"}, {"page": "", "per_page": ""},
                   {"page": "007"}):
        response = api.get("/admin/users", params=params, headers=admin_headers)
        assert response.status_code == 200, (params, response.text)
    far = api.get("/admin/users", params={"page": "2147483647", "per_page": "1000"}, headers=admin_headers)
    assert far.json()["users"] == []
    first = api.get("/admin/users?page=1&page=-1", headers=admin_headers)  # Go reads the first value
    assert first.status_code == 200


@pytest.mark.parametrize("user_id", ["not-a-uuid", "1234", "00000000-0000-0000-0000-00000000000g"])
def test_malformed_user_id(api: httpx.Client, admin_headers: dict[str, str], user_id: str) -> None:
    for method in ("GET", "PUT", "DELETE"):
        response = api.request(method, f"/admin/users/{user_id}", json={}, headers={**admin_headers, **NEW_API})
        assert response.status_code == 404
        assert response.json() == {"code": "validation_failed", "message": "user_id must be an UUID"}
    unknown = api.get(f"/admin/users/{uuid.uuid4()}", headers={**admin_headers, **NEW_API})
    assert unknown.status_code == 404 and unknown.json()["code"] == "user_not_found"


def test_generate_link_names_an_unknown_type(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    response = api.post("/admin/generate_link", json={"type": "teleport", "email": new_email()},
                        headers={**admin_headers, **NEW_API})
    assert response.status_code == 400
    assert response.json() == {"code": "validation_failed", "message": "Invalid email action link type requested: teleport"}
    no_email = api.post("/admin/generate_link", json={"type": "teleport"}, headers={**admin_headers, **NEW_API})
    assert no_email.json()["message"] == "An email address is required"


def test_generate_link_signup_keeps_exact_metadata(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    email = new_email("gen-signup")
    link = api.post("/admin/generate_link", json={"type": "signup", "email": email, "password": "secret-pass",
                                                  "data": {"a": 1}}, headers=admin_headers).json()
    assert link["user_metadata"] == {"a": 1}
    again = api.post("/admin/generate_link", json={"type": "signup", "email": email, "password": "secret-pass",
                                                   "data": {"b": 2}}, headers=admin_headers).json()
    assert again["id"] == link["id"] and again["user_metadata"] == {"a": 1, "b": 2}
