"""GoTrue's built-in OpenID Connect providers: `[auth.external.<provider>]` in config.toml
without a `url`, the provider and issuers an id_token grant accepts (IdTokenGrantParams.
getProvider), how each issuer's ID token reads (provider.ParseIDToken), `skip_nonce_check`, and
GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS.

What is proven, and what is not: Google, Apple, Azure... cannot be reached from the tests, and
no setting exists to point their discovery elsewhere. So the choice of provider and issuer and
the reading of their tokens are tested as functions; config.toml's mapping as read; and a real
id_token grant (discovery, JWKS, signature, audience, nonce, sign-in) runs through providers
whose issuer is the local one (keycloak's `url`, and an allowed issuer). Not proven here: that
the real providers' discovery documents and keys verify their real tokens.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.auth import external, oidc, oidc_providers
from server.auth.errors import AuthError
from server.core.config import OAuthProvider, Settings, auth_providers
from server.provision.supabase_project import config_toml
from server.provision.supabase_project.config_toml import read_project_config
from server.provision.supabase_project.layout import SupabaseProject
from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import auth_api, auth_server, new_email

AZURE_TENANT = "https://login.microsoftonline.com/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/v2.0"


def _token(claims: dict[str, Any]) -> str:
    """An unsigned JWT: only its claims are read (as DetectAzureIDTokenIssuer reads them)."""
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return f"{part({'alg': 'RS256'})}.{part(claims)}.c2ln"


def _settings(*providers: OAuthProvider, **extra: Any) -> Settings:
    return Settings(auth_providers={p.name: p for p in providers}, **extra)


def _on(name: str, **fields: Any) -> OAuthProvider:
    return OAuthProvider(name, enabled=True, client_id=("app-client",), **fields)


# -- which provider, which issuer --------------------------------------------------------------

def test_built_in_providers_by_name_and_by_issuer() -> None:
    settings = _settings(_on("google"), _on("apple"), _on("kakao"), _on("facebook"), _on("vercel_marketplace"),
                         ios_bundle_id="com.example.app")
    for name, issuer in (("google", "https://accounts.google.com"), ("apple", "https://appleid.apple.com"),
                         ("kakao", "https://kauth.kakao.com"), ("facebook", "https://www.facebook.com"),
                         ("vercel_marketplace", "https://marketplace.vercel.com")):
        by_name = external.id_token_provider(settings, name, "", "", "")
        by_issuer = external.id_token_provider(settings, "", issuer, "someone-elses-client", "")
        assert (by_name.name, by_name.issuer) == (by_issuer.name, by_issuer.issuer) == (name, issuer)
        assert by_issuer.client_ids[0] == "app-client"  # never the caller's client_id
    assert external.id_token_provider(settings, "apple", "", "", "").client_ids == ("app-client", "com.example.app")
    # GoTrue ignores a URL for these: the issuer is Google's whatever the configuration says.
    moved = _settings(_on("google", url="https://idp.example.com"))
    assert external.id_token_provider(moved, "google", "", "", "").issuer == "https://accounts.google.com"


def test_googles_scheme_less_issuer_is_accepted_as_go_oidc_does() -> None:
    assert oidc.issuers("https://accounts.google.com") == ["https://accounts.google.com", "accounts.google.com"]
    assert oidc.issuers("https://kauth.kakao.com") == ["https://kauth.kakao.com"]
    assert oidc_providers.user_data({"iss": "https://accounts.google.com", "sub": "1", "email": "a@b.c",
                                     "email_verified": True}).emails[0].verified


def test_disabled_unknown_and_url_less_providers_are_refused() -> None:
    def refusal(settings: Settings, name: str, issuer: str = "") -> tuple[str, str]:
        with pytest.raises(AuthError) as raised:
            external.id_token_provider(settings, name, issuer, "client", "")
        return raised.value.code, raised.value.message

    assert refusal(_settings(), "google") == (
        "provider_disabled", 'Provider (issuer "https://accounts.google.com") is not enabled')
    assert refusal(_settings(_on("github")), "github") == ("validation_failed", 'Custom OIDC provider "github" not allowed')
    assert refusal(_settings(), "", "https://idp.example.com") == (
        "validation_failed", 'Custom OIDC provider "" not allowed')
    assert refusal(_settings(_on("keycloak")), "keycloak") == (
        "validation_failed", "unable to find URL for the Keycloak provider")


def test_configured_issuers_and_allowed_issuers() -> None:
    settings = _settings(_on("keycloak", url="https://kc.example.com/realms/r"),
                         _on("my_idp", url="https://idp.example.com"),
                         allowed_id_token_issuers=("https://allowed.example.com",))
    keycloak = external.id_token_provider(settings, "", "https://kc.example.com/realms/r", "x", "")
    assert (keycloak.name, keycloak.issuer) == ("keycloak", "https://kc.example.com/realms/r")
    for chosen in (external.id_token_provider(settings, "my_idp", "", "", ""),
                   external.id_token_provider(settings, "", "https://idp.example.com", "", "")):
        assert (chosen.name, chosen.issuer, chosen.client_ids) == ("my_idp", "https://idp.example.com", ("app-client",))
    # GoTrue's deprecated form: the issuer as the provider, the caller's client_id as audience.
    allowed = external.id_token_provider(settings, "", "https://allowed.example.com", "their-client", "")
    assert (allowed.name, allowed.issuer, allowed.client_ids) == (
        "https://allowed.example.com", "https://allowed.example.com", ("their-client",))


def test_azure_tokens_come_from_microsoft_only() -> None:
    settings = _settings(_on("azure"))
    by_issuer = external.id_token_provider(settings, "", AZURE_TENANT, "", "")
    detected = external.id_token_provider(settings, "azure", "", "", _token({"iss": AZURE_TENANT}))
    assert by_issuer.issuer == detected.issuer == AZURE_TENANT and detected.name == "azure"
    ciam = "https://contoso.ciamlogin.com/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/v2.0"
    assert external.id_token_provider(settings, "azure", "", "", _token({"iss": ciam})).issuer == ciam
    # GoTrue fetches the keys of whatever issuer the token names: any OpenID server would do.
    for forged in ("https://evil.example.com", "https://login.microsoftonline.com.evil.example/x/v2.0"):
        with pytest.raises(AuthError) as raised:
            external.id_token_provider(settings, "azure", "", "", _token({"iss": forged}))
        assert raised.value.code == "validation_failed" and "is not an Azure issuer" in raised.value.message
    with pytest.raises(AuthError) as unreadable:
        external.id_token_provider(settings, "azure", "", "", "not-a-jwt")
    assert unreadable.value.message == "Unable to detect issuer in ID token for Azure provider"
    # A tenant's URL: that tenant only.
    tenant = _settings(_on("azure", url="https://login.microsoftonline.com/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab"))
    assert external.id_token_provider(tenant, "azure", "", "", _token({"iss": AZURE_TENANT})).issuer == AZURE_TENANT
    other = "https://login.microsoftonline.com/99999999-aaaa-bbbb-cccc-1234567890ab/v2.0"
    with pytest.raises(AuthError):
        external.id_token_provider(tenant, "azure", "", "", _token({"iss": other}))


def test_azure_issuer_of_a_configuration() -> None:
    assert oidc_providers.azure_issuer("") == "https://login.microsoftonline.com/common/v2.0"
    assert external.DEFAULT_ISSUERS["azure"] == "https://login.microsoftonline.com/common/v2.0"
    assert oidc_providers.azure_issuer("https://login.microsoftonline.com/t/") == "https://login.microsoftonline.com/t/v2.0"
    assert oidc_providers.azure_expected_issuer("https://login.microsoftonline.com/common/v2.0") == ""
    assert oidc_providers.azure_expected_issuer(AZURE_TENANT) == AZURE_TENANT


# -- what each issuer's token says ---------------------------------------------------------------

def test_each_issuers_id_token_reads_as_gotrue_reads_it() -> None:
    google = oidc_providers.user_data({"iss": "https://accounts.google.com", "sub": "g1", "email": "g@x.io",
                                       "email_verified": False, "verified_email": True, "name": "G", "hd": "x.io",
                                       "picture": "https://p"})
    assert google.emails[0].verified and google.metadata["custom_claims"] == {"hd": "x.io"}
    assert google.metadata["full_name"] == "G" and google.metadata["avatar_url"] == "https://p"
    apple = oidc_providers.user_data({"iss": "https://appleid.apple.com", "sub": "a1", "email": "a@privaterelay.appleid.com",
                                      "email_verified": "true", "is_private_email": "true", "auth_time": 5})
    assert apple.emails[0].verified and apple.metadata["custom_claims"] == {"is_private_email": True, "auth_time": 5}
    linkedin = oidc_providers.user_data({"iss": "https://www.linkedin.com/oauth", "sub": "l1", "email": "l@x.io",
                                         "email_verified": "false", "given_name": "Ada", "family_name": "L"})
    assert not linkedin.emails[0].verified and linkedin.metadata["name"] == "Ada L"
    with pytest.raises(ValueError):
        oidc_providers.user_data({"iss": "https://www.linkedin.com/oauth", "sub": "l1", "email_verified": "maybe"})
    kakao = oidc_providers.user_data({"iss": "https://kauth.kakao.com", "sub": "k1", "email": "k@x.io", "nickname": "K"})
    assert kakao.emails[0].verified and kakao.metadata["preferred_username"] == "K"
    vercel = oidc_providers.user_data({"iss": "https://marketplace.vercel.com", "sub": "v1", "global_user_id": "gu",
                                       "user_email": "v@x.io"})
    assert vercel.subject == "global_user_id:gu" and vercel.emails[0].verified
    azure = oidc_providers.user_data({"iss": AZURE_TENANT, "sub": "z1", "email": "z@x.io", "xms_edov": "0",
                                      "tid": "t", "aio": "x"})
    assert not azure.emails[0].verified and azure.metadata["custom_claims"] == {"email": "z@x.io", "xms_edov": "0",
                                                                                "tid": "t"}
    assert oidc_providers.user_data({"iss": AZURE_TENANT, "sub": "z1", "email": "z@x.io"}).emails[0].verified
    generic = oidc_providers.user_data({"iss": "https://idp.example.com", "sub": "s", "email": "s@x.io",
                                        "email_verified": "true"})
    assert not generic.emails[0].verified  # a string is not Go's bool
    with pytest.raises(ValueError, match="must contain an email address"):
        oidc_providers.user_data({"iss": "https://idp.example.com", "sub": "s"})


# -- config.toml ------------------------------------------------------------------------------

def _read(tmp_path: Path, toml: str) -> tuple[list[str], dict[str, str]]:
    (tmp_path / "supabase").mkdir(exist_ok=True)
    (tmp_path / "supabase" / "config.toml").write_text(textwrap.dedent(toml))
    config = read_project_config(SupabaseProject(tmp_path.resolve()), {})
    return [w.removeprefix("supabase/config.toml: ") for w in config.warnings], config.settings_env


def test_config_toml_oidc_providers_need_no_url(tmp_path: Path) -> None:
    warnings, env = _read(tmp_path, """
        project_id = "x"
        [auth.external.google]
        enabled = true
        client_id = "web.apps.googleusercontent.com,ios.apps.googleusercontent.com"
        secret = ""
        skip_nonce_check = true
        [auth.external.azure]
        enabled = true
        client_id = "azure-client"
        secret = "s"
        [auth.external.apple]
        enabled = true
        client_id = "com.example.web"
        secret = ""
        [auth.external.keycloak]
        enabled = true
        client_id = "kc"
        secret = "s"
        [auth.external.github]
        enabled = true
        client_id = "gh"
        secret = "s"
    """)
    assert warnings == [
        "[auth.external.github]: supalite signs in with OpenID Connect providers only: set url to the provider's issuer",
        "[auth.external.keycloak]: url must be set to the realm's issuer (https://<host>/realms/<realm>),"
        " sign-in with keycloak fails without it",
    ]
    assert env["GOTRUE_EXTERNAL_GOOGLE_ENABLED"] == "true" and env["GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK"] == "true"
    assert env["GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID"] == "web.apps.googleusercontent.com,ios.apps.googleusercontent.com"
    assert "GOTRUE_EXTERNAL_GOOGLE_URL" not in env
    google = auth_providers(env)["google"]
    assert google.enabled and google.skip_nonce_check and google.client_id == (
        "web.apps.googleusercontent.com", "ios.apps.googleusercontent.com")
    assert external.resolve(Settings(auth_providers=auth_providers(env)), "azure").issuer == (
        "https://login.microsoftonline.com/common/v2.0")


def test_config_toml_knows_the_providers_the_server_knows() -> None:
    known = config_toml._KNOWN_OIDC_PROVIDERS
    assert known <= set(external.DEFAULT_ISSUERS) and "keycloak" not in known


# -- real grants through the local provider ----------------------------------------------------

@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {**provider.server_env("keycloak", GOTRUE_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK="true"),
                                    "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true",
                                    "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "google-client"}) as live:
        yield live


@pytest.fixture(scope="module")
def allowing(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS": provider.issuer}) as live:
        yield live


def _grant(live: harness.LiveServer, **body: Any) -> httpx.Response:
    with auth_api(live, new_api=True) as api:
        return api.post("/token", params={"grant_type": "id_token"}, json=body)


def _claims(**extra: Any) -> dict[str, Any]:
    return {"sub": "s-" + secrets.token_hex(6), "email": new_email("oidc"), "email_verified": True, **extra}


def test_skip_nonce_check_takes_a_token_with_any_nonce(server: harness.LiveServer,
                                                       provider: oidc_provider.RunningProvider) -> None:
    token = provider.mint(claims=_claims(nonce=hashlib.sha256(b"other").hexdigest()))["id_token"]
    response = _grant(server, provider="keycloak", id_token=token)
    assert response.status_code == 200, response.text
    assert response.json()["user"]["app_metadata"]["provider"] == "keycloak"


def test_by_issuer_a_token_signs_in_with_the_provider_of_that_issuer(
        server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    """The issuer + client_id form: keycloak's `url` is the local issuer, so keycloak it is
    (its client ids as audiences: the caller's client_id does not widen them)."""
    token = provider.mint(claims=_claims())["id_token"]
    response = _grant(server, issuer=provider.issuer, client_id="anything", id_token=token)
    assert response.status_code == 200 and response.json()["user"]["app_metadata"]["provider"] == "keycloak"
    foreign = provider.mint(claims=_claims(aud="anything"))["id_token"]
    refused = _grant(server, issuer=provider.issuer, client_id="anything", id_token=foreign)
    assert refused.status_code == 400 and refused.json()["error_description"] == (
        "Unacceptable audience in id_token: [anything]")


def test_allowed_issuers_take_the_callers_client_id(allowing: harness.LiveServer,
                                                    provider: oidc_provider.RunningProvider) -> None:
    token = provider.mint(claims=_claims())["id_token"]
    response = _grant(allowing, issuer=provider.issuer, client_id=provider.client_id, id_token=token)
    assert response.status_code == 200, response.text
    assert response.json()["user"]["app_metadata"]["provider"] == provider.issuer
    refused = _grant(allowing, issuer="https://other.example.com", client_id="x", id_token=token)
    assert refused.status_code == 400 and refused.json()["code"] == "validation_failed"
