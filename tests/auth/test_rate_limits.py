"""Rate limits per kind with Supabase's names (SUPALITE_AUTH_RATE_LIMIT_*), one bucket per
GoTrue limiter: each test speaks from its own client IP (X-Forwarded-For, trusted from the
harness's 127.0.0.1), so buckets start full."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import httpx
import pytest

from tests.auth.conftest import NEW_API, auth_api, auth_server, new_email

_ips = (f"198.51.100.{i}" for i in itertools.count(1))


def client_ip() -> dict[str, str]:
    return {"X-Forwarded-For": next(_ips), **NEW_API}


@pytest.fixture(scope="module")
def defaults(database_url: str) -> Iterator[httpx.Client]:
    """Rate limits on, with config.toml's defaults."""
    with auth_server(database_url, {"SUPALITE_RATE_LIMITS": "true"}) as server, auth_api(server) as client:
        yield client


@pytest.fixture(scope="module")
def small(database_url: str) -> Iterator[httpx.Client]:
    with auth_server(database_url, {
        "SUPALITE_RATE_LIMITS": "true", "SUPALITE_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS": "3",
        "SUPALITE_AUTH_RATE_LIMIT_TOKEN_REFRESH": "4", "SUPALITE_AUTH_RATE_LIMIT_TOKEN_VERIFICATIONS": "2",
        "SUPALITE_AUTH_RATE_LIMIT_ANONYMOUS_USERS": "2", "SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT": "3",
        "GOTRUE_MAILER_AUTOCONFIRM": "true",
    }) as server, auth_api(server) as client:
        yield client


def refused(response: httpx.Response, code: str = "over_request_rate_limit") -> bool:
    return response.status_code == 429 and response.json()["code"] == code


def test_sign_ups_and_password_sign_ins_count_apart(defaults: httpx.Client) -> None:
    """The issue's case: 21 sign-ups then 10 sign-ins from one client, refused where GoTrue accepts
    when both shared one window of 30."""
    headers = client_ip()
    emails = [new_email("burst") for _ in range(21)]
    for email in emails:
        assert defaults.post("/signup", json={"email": email, "password": "secret-pass"}, headers=headers).status_code == 200
    for email in emails[:10]:
        response = defaults.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"},
                                 headers=headers)
        assert response.status_code == 200, response.text


def test_default_sign_up_bucket_is_30(defaults: httpx.Client) -> None:
    headers = client_ip()
    answers = [defaults.post("/signup", json={"email": "not-an-email", "password": "secret-pass"}, headers=headers)
               for _ in range(31)]
    assert {r.status_code for r in answers[:30]} == {400}
    assert refused(answers[30])
    assert answers[30].json()["message"] == "Request rate limit reached"


def test_a_small_sign_in_sign_ups_limit_still_holds_gotrue_burst_of_30(small: httpx.Client) -> None:
    """GoTrue's arithmetic: 3 per 5 minutes is a bucket of 30 (its fixed burst), per endpoint."""
    headers = client_ip()
    answers = [small.post("/signup", json={"email": "not-an-email", "password": "secret-pass"}, headers=headers)
               for _ in range(31)]
    assert {r.status_code for r in answers[:30]} == {400} and refused(answers[30])
    # /recover, /otp, /magiclink, /resend have buckets of their own, of the same size.
    for path, body in (("/recover", {"email": "bad"}), ("/otp", {"email": "bad"}),
                       ("/magiclink", {"email": "bad"}), ("/resend", {"type": "bad"})):
        answers = [small.post(path, json=body, headers=headers) for _ in range(31)]
        assert not any(refused(r) for r in answers[:30]), (path, [r.text for r in answers])
        assert refused(answers[30]), path
    # PUT /user too (after authentication, as GoTrue's route)
    session = small.post("/signup", json={"email": new_email(), "password": "secret-pass"}, headers=client_ip()).json()
    auth = {"Authorization": f"Bearer {session['access_token']}", **headers}
    answers = [small.put("/user", json={"data": {"n": i}}, headers=auth) for i in range(31)]
    assert {r.status_code for r in answers[:30]} == {200} and refused(answers[30])


def test_password_sign_ins_and_refreshes_share_the_token_limiter(small: httpx.Client) -> None:
    email = new_email("token")
    session = small.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip()).json()
    headers = client_ip()
    login = {"email": email, "password": "secret-pass"}
    assert small.post("/token?grant_type=password", json=login, headers=headers).status_code == 200
    assert small.post("/token?grant_type=password", json={**login, "password": "wrong-pass"}, headers=headers).status_code == 400
    refreshed = small.post("/token?grant_type=refresh_token", json={"refresh_token": session["refresh_token"]},
                           headers=headers)
    assert refreshed.status_code == 200
    for _ in range(27):  # the bucket holds 30: 3 taken above, 27 more
        assert small.post("/token?grant_type=refresh_token", json={"refresh_token": "x"}, headers=headers).status_code == 400
    assert refused(small.post("/token?grant_type=password", json=login, headers=headers))
    assert refused(small.post("/token?grant_type=refresh_token", json={"refresh_token": refreshed.json()["refresh_token"]},
                              headers=headers))
    # an unsupported grant type is answered before the limiter, as GoTrue does
    assert small.post("/token?grant_type=nope", json={}, headers=headers).status_code == 400
    # another client is not affected
    assert small.post("/token?grant_type=password", json=login, headers=client_ip()).status_code == 200


def test_verifications_have_their_own_bucket(small: httpx.Client) -> None:
    headers = client_ip()
    body = {"type": "signup", "email": new_email(), "token": "123456"}
    assert {small.post("/verify", json=body, headers=headers).status_code for _ in range(30)} == {403}
    assert refused(small.post("/verify", json=body, headers=headers))
    assert refused(small.get("/verify", params={"type": "signup", "token": "x"}, headers=headers))


def test_anonymous_sign_ins_per_hour(small: httpx.Client) -> None:
    headers = client_ip()
    assert [small.post("/signup", json={}, headers=headers).status_code for _ in range(2)] == [200, 200]
    assert refused(small.post("/signup", json={}, headers=headers))
    # the e-mail sign-ups of the same client count in their own bucket
    assert small.post("/signup", json={"email": new_email(), "password": "secret-pass"}, headers=headers).status_code == 200


def test_mails_are_counted_for_the_whole_server(small: httpx.Client) -> None:
    """3 mails an hour: a reauthentication nonce, then recoveries; one nonce a minute per user."""
    session = small.post("/signup", json={"email": new_email("reauth"), "password": "secret-pass"},
                         headers=client_ip()).json()
    auth = {"Authorization": f"Bearer {session['access_token']}", **NEW_API}
    assert small.get("/reauthenticate", headers=auth).status_code == 200
    again = small.get("/reauthenticate", headers=auth)
    assert refused(again, "over_email_send_rate_limit")
    assert again.json()["message"].startswith("For security purposes, you can only request this after ")
    users = [new_email("mail") for _ in range(3)]
    for email in users:
        small.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip())
    assert small.post("/recover", json={"email": users[0]}, headers=client_ip()).status_code == 200
    assert small.post("/recover", json={"email": users[1]}, headers=client_ip()).status_code == 200
    over = small.post("/recover", json={"email": users[2]}, headers=client_ip())
    assert refused(over, "over_email_send_rate_limit") and over.json()["message"] == "email rate limit exceeded"


@pytest.mark.parametrize("value", ["abc", "1.5", ""])
def test_bad_limit_settings_stop_the_server(value: str) -> None:
    from server.core.config import ConfigError
    from server.provision.settings import load_settings

    with pytest.raises(ConfigError):
        load_settings({"SUPALITE_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS": value}, dotenv=None)


# What a per-client limit counts by (GOTRUE_RATE_LIMIT_HEADER, SUPALITE_AUTH_RATE_LIMIT_BY).

def sign_ups(client: httpx.Client, count: int, headers: dict[str, str]) -> list[httpx.Response]:
    return [client.post("/signup", json={"email": "not-an-email", "password": "secret-pass"}, headers=headers)
            for _ in range(count)]


def test_gotrue_rule_counts_only_requests_carrying_the_header(database_url: str) -> None:
    """SUPALITE_AUTH_RATE_LIMIT_BY=header, as a CLI project sets it: without a rate-limit header
    (as under `supabase start`) nothing is counted per client; with one, its value is the key."""
    with auth_server(database_url, {"SUPALITE_RATE_LIMITS": "true", "SUPALITE_AUTH_RATE_LIMIT_BY": "header"}) as server, \
            auth_api(server) as client:
        assert not any(refused(r) for r in sign_ups(client, 40, client_ip()))
    env = {"SUPALITE_RATE_LIMITS": "true", "SUPALITE_AUTH_RATE_LIMIT_BY": "header",
           "GOTRUE_RATE_LIMIT_HEADER": "X-Client-Key"}
    with auth_server(database_url, env) as server, auth_api(server) as client:
        keyed = {"X-Client-Key": "tenant-a", **client_ip()}
        answers = sign_ups(client, 31, keyed)
        assert not any(refused(r) for r in answers[:30]) and refused(answers[30])
        # the header's value is the key, whatever address sends it
        assert refused(sign_ups(client, 1, {"X-Client-Key": "tenant-a", **client_ip()})[0])
        assert not refused(sign_ups(client, 1, {"X-Client-Key": "tenant-b", **client_ip()})[0])
        assert not any(refused(r) for r in sign_ups(client, 40, client_ip()))  # no header: not counted


def test_by_default_a_request_without_the_header_is_counted_by_its_address(database_url: str) -> None:
    env = {"SUPALITE_RATE_LIMITS": "true", "GOTRUE_RATE_LIMIT_HEADER": "X-Client-Key"}
    with auth_server(database_url, env) as server, auth_api(server) as client:
        headers = client_ip()
        answers = sign_ups(client, 31, headers)
        assert not any(refused(r) for r in answers[:30]) and refused(answers[30])
        assert not refused(sign_ups(client, 1, {"X-Client-Key": "tenant-c", **headers})[0])


# Wrong passwords per account and client.

def test_guessers_on_many_addresses_do_not_lock_the_owner_out(defaults: httpx.Client) -> None:
    email = new_email("owner")
    assert defaults.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip()).status_code == 200
    for _ in range(11):  # 11 wrong passwords, each from an address of its own
        wrong = defaults.post("/token?grant_type=password", json={"email": email, "password": "guess"},
                              headers=client_ip())
        assert wrong.status_code == 400 and wrong.json()["code"] == "invalid_credentials", wrong.text
    owner = defaults.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"},
                          headers=client_ip())
    assert owner.status_code == 200, owner.text


def test_one_address_guessing_one_account_is_refused_after_ten(defaults: httpx.Client) -> None:
    email = new_email("guessed")
    assert defaults.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip()).status_code == 200
    guesser = client_ip()
    answers = [defaults.post("/token?grant_type=password", json={"email": email, "password": f"guess-{i}"},
                             headers=guesser) for i in range(11)]
    assert {r.status_code for r in answers[:10]} == {400} and refused(answers[10])
    # even the right password, from that address, until its window ends; the owner elsewhere passes
    assert refused(defaults.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"},
                                 headers=guesser))
    assert defaults.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"},
                         headers=client_ip()).status_code == 200


def test_right_passwords_are_never_refused_by_the_account_count(defaults: httpx.Client) -> None:
    email = new_email("busy")
    assert defaults.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip()).status_code == 200
    headers = client_ip()
    for _ in range(25):  # within the /token bucket of 30
        ok = defaults.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}, headers=headers)
        assert ok.status_code == 200, ok.text


def test_mail_frequency_follows_the_setting(database_url: str) -> None:
    """GOTRUE_SMTP_MAX_FREQUENCY ([auth.email] max_frequency): 1s lets the next mail go a second later."""
    import time

    env = {"SUPALITE_RATE_LIMITS": "true", "GOTRUE_SMTP_MAX_FREQUENCY": "1s", "GOTRUE_MAILER_AUTOCONFIRM": "true"}
    with auth_server(database_url, env) as server, auth_api(server) as client:
        email = new_email("often")
        assert client.post("/signup", json={"email": email, "password": "secret-pass"}, headers=client_ip()).status_code == 200
        assert client.post("/recover", json={"email": email}, headers=client_ip()).status_code == 200
        again = client.post("/recover", json={"email": email}, headers=client_ip())
        assert refused(again, "over_email_send_rate_limit"), again.text
        time.sleep(1.1)
        assert client.post("/recover", json={"email": email}, headers=client_ip()).status_code == 200
