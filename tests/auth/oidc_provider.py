"""A small OpenID Connect provider, run as its own process, for the external-provider tests.

    python -m tests.auth.oidc_provider --port P --client-id ID --client-secret SECRET

It serves discovery, a JWKS with one RS256 key, the authorization endpoint (the test login: the
`login_hint` query parameter is the e-mail of the user who "signs in"; `test_sub`,
`test_name`, `test_email_verified=false` and `test_deny=1` shape the answer), the token
endpoint (client_secret_basic or _post, the redirect_uri of the authorization, single-use
codes valid 60 s) and userinfo. POST /test/mint signs an ID token for the tests of
grant_type=id_token (what a native SDK would hand the app), optionally with a key the JWKS does
not publish. Prints `ready <issuer>` once it serves.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

KID = "test-key-1"


class Provider:
    def __init__(self, issuer: str, client_id: str, client_secret: str) -> None:
        self.issuer = issuer
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.foreign_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.codes: dict[str, dict[str, Any]] = {}
        self.access_tokens: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    def jwks(self) -> dict[str, Any]:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": KID, "use": "sig", "alg": "RS256"}]}

    def sign(self, claims: dict[str, Any], *, foreign: bool = False, alg: str = "RS256") -> str:
        if alg == "HS256":  # a forgery attempt: signed with the client secret
            return jwt.encode(claims, self.client_secret, algorithm="HS256", headers={"kid": KID})
        return jwt.encode(claims, self.foreign_key if foreign else self.key, algorithm="RS256", headers={"kid": KID})

    def user_claims(self, query: dict[str, str]) -> dict[str, Any]:
        email = query["login_hint"]
        sub = query.get("test_sub") or "sub-" + hashlib.sha1(email.encode()).hexdigest()[:16]
        return {"sub": sub, "email": email, "email_verified": query.get("test_email_verified", "true") != "false",
                "name": query.get("test_name", email.split("@")[0]), "picture": "https://example.com/avatar.png"}

    def id_token(self, user: dict[str, Any], nonce: str | None, access_token: str) -> str:
        now = int(time.time())
        digest = hashlib.sha256(access_token.encode()).digest()
        claims = {"iss": self.issuer, "aud": self.client_id, "iat": now, "exp": now + 300,
                  "at_hash": base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode(), **user}
        if nonce:
            claims["nonce"] = nonce
        return self.sign(claims)


def make_handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _json(self, status: int, body: dict[str, Any]) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _redirect(self, url: str) -> None:
            self.send_response(302)
            self.send_header("Location", url)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _form(self) -> dict[str, str]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            if self.headers.get("Content-Type", "").startswith("application/json"):
                return json.loads(raw or "{}")
            return {k: v[0] for k, v in parse_qs(raw).items()}

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if parts.path == "/.well-known/openid-configuration":
                base = provider.issuer
                self._json(200, {"issuer": base, "authorization_endpoint": f"{base}/authorize",
                                 "token_endpoint": f"{base}/token", "jwks_uri": f"{base}/jwks",
                                 "userinfo_endpoint": f"{base}/userinfo", "response_types_supported": ["code"],
                                 "subject_types_supported": ["public"],
                                 "id_token_signing_alg_values_supported": ["RS256"]})
            elif parts.path == "/jwks":
                self._json(200, provider.jwks())
            elif parts.path == "/authorize":
                self._authorize(query)
            elif parts.path == "/userinfo":
                token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                with provider.lock:
                    user = provider.access_tokens.get(token)
                if user is None:
                    self._json(401, {"error": "invalid_token"})
                else:
                    self._json(200, user)
            else:
                self._json(404, {"error": "not_found"})

        def _authorize(self, query: dict[str, str]) -> None:
            if query.get("client_id") != provider.client_id or not query.get("redirect_uri"):
                self._json(400, {"error": "invalid_client"})
                return
            redirect_uri, state = query["redirect_uri"], query.get("state", "")
            if query.get("test_deny"):
                self._redirect(f"{redirect_uri}?" + urlencode({"error": "access_denied", "state": state,
                                                              "error_description": "The user denied the request"}))
                return
            if not query.get("login_hint"):
                self._json(400, {"error": "login_required"})
                return
            code = secrets.token_urlsafe(24)
            with provider.lock:
                provider.codes[code] = {"redirect_uri": redirect_uri, "nonce": query.get("nonce"),
                                        "user": provider.user_claims(query), "expires": time.time() + 60,
                                        "scope": query.get("scope", "")}
            self._redirect(f"{redirect_uri}?" + urlencode({"code": code, "state": state}))

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            form = self._form()
            if path == "/token":
                self._token(form)
            elif path == "/test/mint":
                claims = {"iss": provider.issuer, "aud": provider.client_id, "iat": int(time.time()),
                          "exp": int(time.time()) + 300, **form.get("claims", {})}
                access_token = secrets.token_urlsafe(16)
                if form.get("at_hash"):
                    digest = hashlib.sha256(access_token.encode()).digest()
                    claims["at_hash"] = base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()
                token = provider.sign({k: v for k, v in claims.items() if v is not None},
                                      foreign=bool(form.get("foreign")), alg=form.get("alg", "RS256"))
                self._json(200, {"id_token": token, "access_token": access_token})
            else:
                self._json(404, {"error": "not_found"})

        def _token(self, form: dict[str, str]) -> None:
            client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            if client_id != provider.client_id or not secrets.compare_digest(secret, provider.client_secret):
                self._json(401, {"error": "invalid_client"})
                return
            with provider.lock:
                grant = provider.codes.pop(form.get("code", ""), None)
            if (form.get("grant_type") != "authorization_code" or grant is None or grant["expires"] < time.time()
                    or grant["redirect_uri"] != form.get("redirect_uri")):
                self._json(400, {"error": "invalid_grant"})
                return
            access_token = secrets.token_urlsafe(24)
            with provider.lock:
                provider.access_tokens[access_token] = grant["user"]
            body = {"access_token": access_token, "token_type": "Bearer", "expires_in": 300,
                    "refresh_token": secrets.token_urlsafe(24)}
            if "openid" in grant["scope"].split():
                body["id_token"] = provider.id_token(grant["user"], grant["nonce"], access_token)
            self._json(200, body)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    args = parser.parse_args()
    issuer = f"http://127.0.0.1:{args.port}"
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(Provider(issuer, args.client_id,
                                                                                 args.client_secret)))
    print(f"ready {issuer}", flush=True)
    server.serve_forever()


# -- for the tests ---------------------------------------------------------------------------

@dataclass
class RunningProvider:
    issuer: str
    client_id: str
    client_secret: str
    process: subprocess.Popen[str]

    def mint(self, **options: Any) -> dict[str, str]:
        """An ID token from /test/mint: claims=..., foreign=True, alg="HS256", at_hash=True."""
        response = httpx.post(f"{self.issuer}/test/mint", json=options, timeout=10)
        response.raise_for_status()
        return response.json()

    def server_env(self, name: str = "keycloak", **extra: str) -> dict[str, str]:
        """The GOTRUE_EXTERNAL_<NAME>_* settings of a supalite server that uses this provider."""
        prefix = f"GOTRUE_EXTERNAL_{name.upper()}_"
        return {f"{prefix}ENABLED": "true", f"{prefix}CLIENT_ID": self.client_id,
                f"{prefix}SECRET": self.client_secret, f"{prefix}URL": self.issuer, **extra}


@contextmanager
def running(client_id: str = "supalite-test-client", client_secret: str = "test-client-secret") -> Iterator[RunningProvider]:
    from server.provision.embedded import free_port

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "tests.auth.oidc_provider", "--port", str(port),
                                "--client-id", client_id, "--client-secret", client_secret],
                               stdout=subprocess.PIPE, text=True, cwd=str(Path(__file__).resolve().parents[2]))
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("ready "):
            raise RuntimeError(f"the OIDC provider did not start: {line!r}")
        yield RunningProvider(line.split()[1], client_id, client_secret, process)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
