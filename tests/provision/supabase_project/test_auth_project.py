"""A Supabase CLI project whose config.toml enables what supabase-js's own auth test project enables
(tests/provision/supabase_project/auth_project: [auth.passkey], [auth.webauthn], every [auth.mfa.*] factor,
signing_keys_path, [auth.oauth_server] with dynamic registration, [auth.rate_limit] at 100,
[auth.sms.test_otp]), started by `supalite start` and driven by the unmodified supabase-js
(tests/js/auth-project.suite.mjs): everything comes from config.toml, nothing from the environment."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.js.node_suite import needs_node, run_node_suite
from tests.provision.supabase_project.projects import Project, started_project

AUTH_PROJECT = Path(__file__).parent / "auth_project"
KID = f"project-key-{uuid.uuid4().hex[:8]}"


def write_signing_keys(workdir: Path) -> None:
    """The file `supabase gen signing-key --algorithm RS256` writes: a JSON array of private JWKs."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(key))
    jwk.update(kid=KID, alg="RS256", use="sig", key_ops=["sign", "verify"], ext=True)
    (workdir / "supabase" / "signing_keys.json").write_text(json.dumps([jwk]))


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    secret = {"SUPABASE_AUTH_EXTERNAL_GOOGLE_SECRET": "google-secret"}  # config.toml's env(...)
    with started_project(AUTH_PROJECT, "auth_project", extra_env=secret, prepare=write_signing_keys) as (started, start):
        # every [auth] key of this config.toml is honoured: none is warned (the services supalite
        # does not run, such as [inbucket], are)
        assert "[auth" not in start.stderr, start.stderr
        yield started


def test_status_prints_keys_signed_with_the_signing_key(project: Project) -> None:
    jwks = httpx.get(f"{project.url}/auth/v1/.well-known/jwks.json").json()
    [public] = [key for key in jwks["keys"] if key["kid"] == KID]
    verifier = RSAAlgorithm.from_jwk(json.dumps(public))
    for role, key in (("anon", project.anon_key), ("service_role", project.service_key)):
        assert jwt.get_unverified_header(key) == {"alg": "RS256", "kid": KID, "typ": "JWT"}
        assert jwt.decode(key, verifier, algorithms=["RS256"])["role"] == role  # type: ignore[arg-type]
        answer = httpx.get(f"{project.url}/auth/v1/settings", headers={"apikey": key})
        assert answer.status_code == 200, answer.text


def test_settings_show_what_config_toml_enables(project: Project) -> None:
    settings = httpx.get(f"{project.url}/auth/v1/settings", headers={"apikey": project.anon_key}).json()
    assert settings["external"]["google"] is True
    assert settings["external"]["anonymous_users"] is True
    assert settings["external"]["phone"] is True
    assert settings["mailer_autoconfirm"] is True and settings["phone_autoconfirm"] is True


def test_dynamic_client_registration_is_open(project: Project) -> None:
    registered = httpx.post(f"{project.url}/auth/v1/oauth/clients/register", headers={"apikey": project.anon_key},
                            json={"client_name": "Registered app", "redirect_uris": ["http://localhost:3000/cb"]})
    assert registered.status_code == 201, registered.text
    assert registered.json()["client_id"]


@needs_node
def test_supabase_js_auth_against_the_project(project: Project) -> None:
    counts = run_node_suite("auth-project.suite.mjs", project, SIGNING_KID=KID)  # type: ignore[arg-type]
    assert counts["fail"] == 0 and counts["pass"] == counts["tests"] == 8, counts
