"""GOTRUE_URI_ALLOW_LIST: redirect_to is kept wherever it is read (mail links, generate_link,
GET /verify) when GoTrue's rules allow it, else the site URL."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests import harness
from tests.auth.conftest import admin_headers_of, auth_api, auth_server, new_email

SITE = "https://app.example.com"
ALLOW = "https://*.example.org/**,myapp://**,http://localhost:3000/auth/*"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_SITE_URL": SITE, "GOTRUE_URI_ALLOW_LIST": ALLOW, "GOTRUE_MAILER_AUTOCONFIRM": "false",
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


@pytest.fixture(scope="module")
def admin(server: harness.LiveServer) -> dict[str, str]:
    return admin_headers_of(server)


@pytest.mark.parametrize(("requested", "kept"), [
    ("https://app.example.com/welcome", True),
    ("https://shop.example.org/a/b?c=d", True),
    ("https://a.shop.example.org/", False),  # * stops at a dot
    ("myapp://callback", True),
    ("http://localhost:3000/auth/cb", True),
    ("http://localhost:3000/auth/cb/deeper", False),
    ("http://127.0.0.1:4000/anything", True),  # loopback addresses are always allowed
    ("https://evil.com/", False),
    ("https://app.example.com.evil.com/", False),
    ("https://2130706433/", False),
    ("javascript:alert(1)", False),
    ("x" * 5000, False),
    ("https://app.example.com/welcome?next=%zz", True),  # Go's url.Parse keeps the query raw
    ("https://app.example.com/welcome#%zz", False),  # but unescapes the fragment
])
def test_generate_link_keeps_only_allowed_redirects(api: httpx.Client, admin: dict[str, str],
                                                    requested: str, kept: bool) -> None:
    email = new_email("redir")
    body = {"type": "signup", "email": email, "password": "secret-pass", "redirect_to": requested}
    response = api.post("/admin/generate_link", json=body, headers=admin)
    assert response.status_code == 200, response.text
    expected = requested if kept else SITE
    assert response.json()["redirect_to"] == expected
    link = urlsplit(response.json()["action_link"])
    assert parse_qs(link.query)["redirect_to"] == [expected]


def inbox_link(server: harness.LiveServer, email: str) -> str:
    (mail, *_) = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    return str(mail["Link"])


def test_sign_up_and_recovery_mails_carry_the_checked_redirect(api: httpx.Client, server: harness.LiveServer) -> None:
    allowed, denied = new_email("ok"), new_email("no")
    assert api.post("/signup", params={"redirect_to": "https://shop.example.org/welcome"},
                    json={"email": allowed, "password": "secret-pass"}).status_code == 200
    assert api.post("/signup", params={"redirect_to": "https://evil.com/steal"},
                    json={"email": denied, "password": "secret-pass"}).status_code == 200
    ok_link, denied_link = inbox_link(server, allowed), inbox_link(server, denied)
    assert parse_qs(urlsplit(ok_link).query)["redirect_to"] == ["https://shop.example.org/welcome"]
    assert parse_qs(urlsplit(denied_link).query)["redirect_to"] == [SITE]
    # GET /verify reads redirect_to again: a link edited to point elsewhere lands on the site
    token = parse_qs(urlsplit(ok_link).query)["token"][0]
    edited = httpx.get(f"{server.url}/auth/v1/verify", params={"token": token, "type": "signup",
                                                               "redirect_to": "https://evil.com/"},
                       follow_redirects=False)
    assert edited.status_code == 303 and edited.headers["location"].startswith(SITE + "#")
    # a confirmed account's recovery
    assert api.post("/recover", params={"redirect_to": "myapp://reset"}, json={"email": allowed}).status_code == 200
    recovery = inbox_link(server, allowed)
    assert parse_qs(urlsplit(recovery).query)["redirect_to"] == ["myapp://reset"]
