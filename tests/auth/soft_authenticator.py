"""A software WebAuthn authenticator: what a browser and a platform authenticator send.

P-256 keys (ES256), attestation "none", CBOR attestation objects and authenticator data with
the UP/UV/AT flags and a sign counter, clientDataJSON with the challenge and origin. Every
part can be spoilt on purpose (origin, rp id, challenge, counter, signature) to test that the
server refuses it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

FLAG_UP = 0x01
FLAG_UV = 0x04
FLAG_BE = 0x08
FLAG_BS = 0x10
FLAG_AT = 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Credential:
    credential_id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0

    def cose_public_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})


@dataclass
class SoftAuthenticator:
    origin: str
    rp_id: str | None = None  # None: the rp id the options name
    aaguid: bytes = bytes(16)
    counter_step: int = 1  # 0: an authenticator that does not count (like most passkey providers)
    credentials: dict[bytes, Credential] = field(default_factory=dict)

    def create(self, options: dict[str, Any], *, origin: str | None = None, rp_id: str | None = None,
               challenge: str | None = None, flags: int = FLAG_UP | FLAG_UV | FLAG_AT,
               kind: str = "webauthn.create", credential_id: bytes | None = None) -> dict[str, Any]:
        """navigator.credentials.create(): a new credential, as RegistrationResponseJSON
        (with `credential_id`, a new key under an id already used)."""
        rp = rp_id or self.rp_id or options["rp"]["id"]
        credential = Credential(credential_id or os.urandom(32), ec.generate_private_key(ec.SECP256R1()), rp,
                                from_b64url(options["user"]["id"]))
        self.credentials[credential.credential_id] = credential
        client_data = self._client_data(kind, challenge or options["challenge"], origin)
        attested = self.aaguid + struct.pack(">H", len(credential.credential_id)) + credential.credential_id
        auth_data = self._auth_data(rp, flags, credential.sign_count) + attested + credential.cose_public_key()
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {"id": b64url(credential.credential_id), "rawId": b64url(credential.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def get(self, options: dict[str, Any], credential_id: bytes | None = None, *, origin: str | None = None,
            rp_id: str | None = None, challenge: str | None = None, sign_count: int | None = None,
            flags: int = FLAG_UP | FLAG_UV, user_handle: bytes | None = None, spoil_signature: bool = False,
            kind: str = "webauthn.get") -> dict[str, Any]:
        """navigator.credentials.get(): an assertion by `credential_id` (default: the last one made)."""
        credential = self.credentials[credential_id] if credential_id else list(self.credentials.values())[-1]
        if sign_count is None:
            credential.sign_count += self.counter_step
            sign_count = credential.sign_count
        client_data = self._client_data(kind, challenge or options["challenge"], origin)
        auth_data = self._auth_data(rp_id or self.rp_id or options.get("rpId") or credential.rp_id, flags, sign_count)
        signature = credential.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        if spoil_signature:
            signature = signature[:-1] + bytes([signature[-1] ^ 0x01])
        handle = credential.user_handle if user_handle is None else user_handle
        return {"id": b64url(credential.credential_id), "rawId": b64url(credential.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(handle) if handle else None},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin,
                           "crossOrigin": False}, separators=(",", ":")).encode()

    @staticmethod
    def _auth_data(rp_id: str, flags: int, sign_count: int) -> bytes:
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", sign_count)
