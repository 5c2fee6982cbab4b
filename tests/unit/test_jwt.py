import time

import jwt as pyjwt
import pytest

from server.auth.jwt import MAX_TOKEN_BYTES, JwtError, JwtKeys, anon_key, request_claims, service_role_key
from server.config import load_settings

# The keys `supabase start` prints, which tools written for the CLI embed.
CLI_ANON = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9"
            ".CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0")
CLI_SERVICE = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0"
               ".EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU")


def test_demo_secret_gives_the_cli_keys() -> None:
    settings = load_settings({}, dotenv=None)
    assert anon_key(settings) == CLI_ANON
    assert service_role_key(settings) == CLI_SERVICE


def test_other_secret_gives_other_keys() -> None:
    settings = load_settings({"SUPALITE_JWT_SECRET": "x" * 40}, dotenv=None)
    assert anon_key(settings) != CLI_ANON
    assert JwtKeys("x" * 40).decode(anon_key(settings))["role"] == "anon"


keys = JwtKeys("s" * 40)


def test_no_token_is_anon() -> None:
    assert request_claims(keys, {}) == {"role": "anon"}


def test_bearer_wins_over_apikey() -> None:
    user = keys.sign({"sub": "u1", "role": "authenticated", "exp": int(time.time()) + 60})
    claims = request_claims(keys, {"authorization": f"Bearer {user}", "apikey": keys.sign({"role": "anon"})})
    assert claims["sub"] == "u1"


@pytest.mark.parametrize("token", [
    "garbage",
    pyjwt.encode({"role": "service_role"}, "wrong-secret-wrong-secret-wrong-secret", algorithm="HS256"),
    pyjwt.encode({"role": "service_role"}, None, algorithm="none"),
    pyjwt.encode({"role": "authenticated", "exp": int(time.time()) - 10}, "s" * 40, algorithm="HS256"),
])
def test_forged_expired_and_garbage_tokens_are_refused(token: str) -> None:
    with pytest.raises(JwtError):
        request_claims(keys, {"authorization": f"Bearer {token}"})


def test_a_token_over_the_size_bound_is_refused_before_decoding() -> None:
    huge = keys.sign({"sub": "u1", "role": "authenticated", "pad": "p" * MAX_TOKEN_BYTES})
    with pytest.raises(JwtError, match="larger than"):
        keys.decode(huge)
    with pytest.raises(JwtError, match="larger than"):
        keys.decode("x" * (MAX_TOKEN_BYTES + 1))  # not even parsed
