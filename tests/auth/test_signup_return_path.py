"""The site's sign-up with e-mail confirmations on (learning/web/src/features/auth/api/auth.ts signUp):
supabase-js sends emailRedirectTo as ?redirect_to=<origin><next>, and the confirmation link
brings the user back to that path of the site (a course page), signed in; another origin is
not followed (the site URL instead)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from tests import harness
from tests.auth.conftest import auth_api, auth_server, new_email


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_MAILER_AUTOCONFIRM": "false"}) as server:  # the site URL: the server's
        yield server


def _confirm(server: harness.LiveServer, redirect_to: str) -> str:
    email = new_email("next")
    with auth_api(server) as api:
        response = api.post(f"/signup?redirect_to={quote(redirect_to, safe='')}",
                            json={"email": email, "password": "secret-pass"})
        assert response.status_code == 200 and "access_token" not in response.json()
    (mail,) = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    redirected = httpx.get(mail["Link"], follow_redirects=False)
    assert redirected.status_code == 303
    target, _, fragment = redirected.headers["location"].partition("#")
    assert "access_token" in parse_qs(fragment)
    return target


def test_the_confirmation_link_comes_back_to_the_course_page(server: harness.LiveServer) -> None:
    assert _confirm(server, f"{server.url}/course/abc?x=1") == f"{server.url}/course/abc?x=1"


def test_another_origin_is_not_followed(server: harness.LiveServer) -> None:
    target = _confirm(server, "https://evil.example/course/abc")
    assert urlsplit(target).netloc == urlsplit(server.url).netloc
