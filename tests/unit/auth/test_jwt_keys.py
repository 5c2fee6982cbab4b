"""Asymmetric signing keys from a JWK file (server/core/jwt.py)."""

from __future__ import annotations

import json
from pathlib import Path

import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from server.core.jwt import JwtError, JwtKeys, api_key, load_jwk_file


def write_jwks(tmp_path: Path, *jwks: dict) -> str:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"keys": list(jwks)}))
    return str(path)


def private_jwk(kind: str, kid: str) -> dict:
    if kind == "EC":
        jwk = json.loads(ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1())))
    else:
        jwk = json.loads(RSAAlgorithm.to_jwk(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    return {**jwk, "kid": kid}


@pytest.mark.parametrize("kind,alg", [("EC", "ES256"), ("RSA", "RS256")])
def test_user_tokens_are_signed_with_the_private_key(tmp_path: Path, kind: str, alg: str) -> None:
    keys = JwtKeys("s" * 40)
    load_jwk_file(keys, write_jwks(tmp_path, private_jwk(kind, "k1")))
    token = keys.sign({"sub": "u1", "role": "authenticated"})
    header = pyjwt.get_unverified_header(token)
    assert header["alg"] == alg and header["kid"] == "k1"
    assert keys.decode(token)["sub"] == "u1"
    # The API keys stay HS256 with the shared secret, and are still accepted.
    assert pyjwt.get_unverified_header(api_key(keys, "anon"))["alg"] == "HS256"
    assert keys.decode(api_key(keys, "anon"))["role"] == "anon"
    (published,) = keys.public_jwks
    assert "d" not in published and published["alg"] == alg and published["kid"] == "k1"


def test_a_token_signed_by_another_key_is_refused(tmp_path: Path) -> None:
    ours, theirs = JwtKeys("s" * 40), JwtKeys("s" * 40)
    load_jwk_file(ours, write_jwks(tmp_path, private_jwk("EC", "same-kid")))
    other = tmp_path / "other"
    other.mkdir()
    load_jwk_file(theirs, write_jwks(other, private_jwk("EC", "same-kid")))
    with pytest.raises(JwtError):
        ours.decode(theirs.sign({"sub": "u1"}))


def test_a_public_only_key_verifies_but_does_not_sign(tmp_path: Path) -> None:
    signer = JwtKeys("s" * 40)
    load_jwk_file(signer, write_jwks(tmp_path, private_jwk("RSA", "r1")))
    verifier = JwtKeys("s" * 40)
    public_dir = tmp_path / "pub"
    public_dir.mkdir()
    load_jwk_file(verifier, write_jwks(public_dir, signer.public_jwks[0]))
    assert verifier.signing_key is None
    assert verifier.decode(signer.sign({"sub": "u2"}))["sub"] == "u2"


def test_an_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(JwtError, match="cannot read JWT keys file"):
        load_jwk_file(JwtKeys("s" * 40), str(bad))
