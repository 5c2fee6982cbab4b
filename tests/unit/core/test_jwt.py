import pytest

from server.core.jwt import MAX_TOKEN_BYTES, JwtError, JwtKeys, anon_key, service_role_key
from server.provision.settings import load_settings

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


def test_a_token_over_the_size_bound_is_refused_before_decoding() -> None:
    huge = keys.sign({"sub": "u1", "role": "authenticated", "pad": "p" * MAX_TOKEN_BYTES})
    with pytest.raises(JwtError, match="larger than"):
        keys.decode(huge)
    with pytest.raises(JwtError, match="larger than"):
        keys.decode("x" * (MAX_TOKEN_BYTES + 1))  # not even parsed
