"""External OAuth/OIDC providers: /authorize, /callback, grant_type=id_token, manual identity
linking; the SAML and web3 refusals.

A provider is any GOTRUE_EXTERNAL_<NAME>_* configuration with an issuer URL (OIDC discovery at
`<url>/.well-known/openid-configuration`), or one of GoTrue's built-in names (those without a
configuration answer GoTrue's "provider is not enabled"). The flow is GoTrue's current one:
/authorize stores a flow_state row whose id is the OAuth `state`; /callback exchanges the code,
verifies the ID token (signature against the provider's JWKS, issuer, audience = a configured
client id, expiry, and the nonce /authorize derived from the state), signs the user in or links
the identity, and redirects to `redirect_to` with the tokens in the fragment (implicit) or
`?code=` (PKCE). Errors redirect too, as GoTrue's redirectErrors does.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from server.auth import error_codes as codes
from server.auth import identities, mail, oidc, oidc_providers, pkce
from server.auth.authn import bearer_caller, signed_in
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, go_quote, internal, not_found, unprocessable
from server.auth.http import json_response, path_uuid, read_body, read_bounded
from server.auth.models import flow_state
from server.auth.models.users import AUDIENCE, UserRow
from server.auth.service import AuthService, Handler
from server.auth.session_tokens import issue_session
from server.core.caller import Caller
from server.core.config import OAuthProvider, Settings
from server.core.context import AppContext

# GoTrue's built-in provider names (api.Provider): unconfigured, they are "not enabled".
KNOWN_PROVIDERS = frozenset((
    "apple", "azure", "bitbucket", "discord", "facebook", "figma", "fly", "github", "gitlab", "google", "kakao",
    "keycloak", "linkedin", "linkedin_oidc", "notion", "snapchat", "spotify", "slack", "slack_oidc", "twitch",
    "twitter", "x", "vercel_marketplace", "workos", "zoom"))
# Issuers of the built-in OIDC providers, used when no GOTRUE_EXTERNAL_<NAME>_URL is set.
DEFAULT_ISSUERS = oidc_providers.DEFAULT_ISSUERS
# Parameters of the provider's authorization URL that this server sets: a client cannot override them.
RESERVED_PARAMS = frozenset(("client_id", "client_secret", "redirect_uri", "response_type", "response_mode", "scope",
                             "state", "nonce", "code_challenge", "code_challenge_method"))
MAX_QUERY_VALUE = 2048  # a longer provider, scope or forwarded value is refused


class ProviderError(Exception):
    """GoTrue's api.Provider error: the text after "Unsupported provider: "."""


@dataclass(frozen=True)
class Provider:
    name: str
    config: OAuthProvider
    issuer: str

    @property
    def client_id(self) -> str:
        return self.config.client_id[0]

    def redirect_uri(self, settings: Settings) -> str:
        return self.config.redirect_uri or f"{settings.api_url}/auth/v1/callback"


def resolve(settings: Settings, raw_name: str) -> Provider:
    """The enabled, configured provider `raw_name` (GoTrue's Provider + ValidateOAuth)."""
    name = raw_name.lower()
    config = settings.auth_providers.get(name)
    if config is None and name not in KNOWN_PROVIDERS:
        raise ProviderError(f"Provider {name} could not be found")
    config = config or OAuthProvider(name)
    if not config.enabled:
        raise ProviderError("provider is not enabled")
    if not config.client_id or not config.client_id[0]:
        raise ProviderError("missing OAuth client ID")
    if not config.secret:
        raise ProviderError("missing OAuth secret")
    issuer = oidc_providers.azure_issuer(config.url) if name == "azure" else config.url or DEFAULT_ISSUERS.get(name, "")
    if not issuer:
        raise ProviderError(f"unable to find URL for the {name.capitalize()} provider")
    return Provider(name, config, issuer)


async def _discover(provider: Provider) -> oidc.Discovery:
    # Azure's multi-tenant endpoints name a templated issuer: their document gives endpoints
    # only, and each token is verified against its own tenant (_verifying_discovery).
    return await oidc.discover(provider.issuer, any_issuer=provider.name == "azure")


async def _verifying_discovery(provider: Provider, discovery: oidc.Discovery, id_token: str) -> oidc.Discovery:
    """Whose keys verify a provider's ID token: the provider's, or for Azure the token's own
    tenant, which must be Microsoft's (and the configured tenant's, when there is one)."""
    if provider.name != "azure":
        return discovery
    issuer = oidc.unverified_issuer(id_token)
    if not oidc_providers.azure_token_issuer_allowed(issuer, oidc_providers.azure_expected_issuer(provider.issuer)):
        raise oidc.OidcError(f"azure: ID token issuer not valid {issuer!r}")
    return await oidc.discover(issuer)


def _nonce(settings: Settings, flow_id: uuid.UUID) -> str:
    """The nonce sent with a flow: derived from its state, so nothing more is stored."""
    return hmac.new(settings.jwt_secret.encode(), f"oidc-nonce:{flow_id}".encode(), hashlib.sha256).hexdigest()


def _query_value(request: Request, key: str) -> str:
    value = request.query_params.get(key, "")
    if len(value) > MAX_QUERY_VALUE:
        raise bad_request(codes.VALIDATION_FAILED, f"{key} is too long")
    return value


async def authorization_url(svc: AuthService, request: Request, linking_target: UserRow | None) -> str:
    """GetExternalProviderRedirectURL: the provider's authorization URL for a new flow."""
    ctx = svc.ctx
    try:
        provider = resolve(ctx.settings, _query_value(request, "provider"))
        discovery = await _discover(provider)
    except (ProviderError, oidc.OidcError) as exc:
        raise bad_request(codes.VALIDATION_FAILED, f"Unsupported provider: {exc}") from None
    scopes = _query_value(request, "scopes")
    redirect_to = mail.redirect_target(ctx, request.query_params.get("redirect_to"))
    challenge = pkce.challenge_from_query(request)
    extra: list[tuple[str, str]] = []
    for key, value in request.query_params.multi_items():
        if key in ("provider", "scopes") or key.lower() in RESERVED_PARAMS:
            continue
        if len(key) > 256 or len(value) > MAX_QUERY_VALUE or len(extra) >= 32:
            raise bad_request(codes.VALIDATION_FAILED, "Too many or too long query parameters")
        extra.append(("provider" if key == "workos_provider" else key, value))

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        return await pkce.create(conn, ctx.settings.flow_state_expiry, provider_type=provider.name,
                                 auth_method="oauth", challenge=challenge, referrer=redirect_to,
                                 linking_target_id=linking_target["id"] if linking_target else None)

    flow = await in_transaction(ctx, work, "Error creating flow state")
    wanted = ["openid", "profile", "email"]
    for scope in scopes.replace(",", " ").split():
        if scope not in wanted:
            wanted.append(scope)
    params = [("client_id", provider.client_id), ("redirect_uri", provider.redirect_uri(ctx.settings)),
              ("response_type", "code"), ("scope", " ".join(wanted)), ("state", str(flow["id"])),
              ("nonce", _nonce(ctx.settings, flow["id"])), *extra]
    separator = "&" if "?" in discovery.authorization_endpoint else "?"
    return discovery.authorization_endpoint + separator + urlencode(params)


async def authorize(svc: AuthService, request: Request) -> Response:
    """GET /authorize?provider=: 302 to the provider. Each call stores a flow state: GoTrue
    has no limit here; this one counts in a bucket of its own like /signup's."""
    await svc.limiter.check("authorize", request)
    return RedirectResponse(await authorization_url(svc, request, None), status_code=302)


# -- /callback --------------------------------------------------------------------------------

async def _callback_params(request: Request) -> dict[str, str]:
    """The callback's parameters: the query, or the form of a form_post answer."""
    if request.method == "POST":
        raw = await read_bounded(request)
        try:
            return dict(parse_qsl(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=64))
        except (UnicodeDecodeError, ValueError):
            raise bad_request(codes.BAD_OAUTH_CALLBACK, "OAuth callback with an unreadable form") from None
    return dict(request.query_params)


async def _load_flow(ctx: AppContext, state: str) -> dict[str, Any]:
    """loadExternalState: the flow the `state` names, if it is still usable."""
    if not state:
        raise bad_request(codes.BAD_OAUTH_CALLBACK, "OAuth state parameter missing")
    try:
        flow_id = uuid.UUID(state)
    except ValueError:
        raise bad_request(codes.BAD_OAUTH_STATE, "OAuth state parameter is invalid") from None

    flow = await in_transaction(ctx, lambda conn: flow_state.oauth_by_id(conn, flow_id, ctx.settings.flow_state_expiry))
    if flow is None:
        raise bad_request(codes.BAD_OAUTH_STATE, "OAuth state not found or expired")
    if flow["expired"]:
        raise bad_request(codes.BAD_OAUTH_STATE, "OAuth state has expired")
    if flow["code_challenge"] and flow["user_id"] is not None:
        raise bad_request(codes.FLOW_STATE_ALREADY_USED, "State has already been used")
    return flow


async def _provider_user(ctx: AppContext, provider: Provider, flow: dict[str, Any],
                         params: dict[str, str]) -> tuple[identities.UserData, oidc.ProviderTokens]:
    """oAuthCallback: the code exchanged, and what the provider says about the user."""
    if params.get("error"):
        raise AuthError(400, codes.BAD_OAUTH_CALLBACK, params.get("error_description", "")[:MAX_QUERY_VALUE],
                        oauth=params["error"][:256])
    code = params.get("code", "")
    if not code:
        raise bad_request(codes.BAD_OAUTH_CALLBACK, "OAuth callback with missing authorization code missing")
    if len(code) > MAX_QUERY_VALUE:
        raise bad_request(codes.BAD_OAUTH_CALLBACK, "OAuth callback with an oversized authorization code")
    try:
        discovery = await _discover(provider)
        tokens = await oidc.exchange_code(discovery, code=code, client_id=provider.client_id,
                                          secret=provider.config.secret, redirect_uri=provider.redirect_uri(ctx.settings))
    except oidc.OidcError:
        raise internal(f"Unable to exchange external code: {code}") from None
    try:
        claims: dict[str, Any] = {}
        if tokens.id_token:
            verifying = await _verifying_discovery(provider, discovery, tokens.id_token)
            claims = await oidc.verify_id_token(verifying, tokens.id_token, audiences=provider.config.client_id,
                                                access_token=tokens.access_token)
            expected = _nonce(ctx.settings, flow["id"])
            if not provider.config.skip_nonce_check and not hmac.compare_digest(
                    str(claims.get("nonce", "")).encode(), expected.encode()):
                raise oidc.OidcError("oidc: the ID token's nonce is not the one this flow sent")
        elif provider.name == "azure":  # GoTrue reads Azure's ID token only, never its userinfo
            raise oidc.OidcError("azure: no OIDC ID token present in response")
        if provider.name == "keycloak" or not claims:
            info = await oidc.userinfo(discovery, tokens.access_token)
            if provider.name == "keycloak":
                data = identities.from_keycloak_userinfo(info, provider.issuer.rstrip("/"))
            else:
                data = identities.from_claims(info)
        else:
            data = oidc_providers.user_data(claims, require_email=False)
    except (oidc.OidcError, ValueError):
        raise internal("Error getting user profile from external provider") from None
    if claims and data.subject != claims.get("sub"):  # the userinfo must be about the token's subject
        raise internal("Error getting user profile from external provider")
    if not data.subject:
        raise internal("Error getting user profile from external provider")
    if not data.emails:
        raise internal("Error getting user email from external provider")
    data.settle_email()
    return data, tokens


def _token_fragment(url: str, session: dict[str, Any], tokens: oidc.ProviderTokens) -> str:
    """AccessTokenResponse.AsRedirectURL: the session in the fragment (keys sorted, as Go encodes)."""
    values = {"access_token": session["access_token"], "expires_at": str(session["expires_at"]),
              "expires_in": str(session["expires_in"]), "provider_token": tokens.access_token,
              "refresh_token": session["refresh_token"], "token_type": "bearer"}
    if tokens.refresh_token:
        values["provider_refresh_token"] = tokens.refresh_token
    return url + "#" + urlencode(sorted(values.items()))


async def callback(svc: AuthService, request: Request) -> Response:
    """GET|POST /callback: the provider's answer; a redirect to the app in every case."""
    ctx = svc.ctx
    params = await _callback_params(request)
    try:
        flow = await _load_flow(ctx, params.get("state", ""))
    except AuthError as err:  # loadFlowState: to the site URL, the error in the query
        if err.status >= 500:
            raise
        target = pkce.with_query(mail.site_url(ctx), error=pkce.oauth_error_name(err), error_code=err.code,
                                 error_description=err.message)
        return RedirectResponse(target, status_code=303)
    redirect_to = flow["referrer"] or mail.site_url(ctx)
    try:
        return RedirectResponse(await _finish(svc, request, flow, params, redirect_to), status_code=302)
    except AuthError as err:
        if err.status == 503:
            raise
        return RedirectResponse(pkce.error_redirect(redirect_to, err, in_query=True), status_code=302)


async def _finish(svc: AuthService, request: Request, flow: dict[str, Any], params: dict[str, str],
                  redirect_to: str) -> str:
    ctx = svc.ctx
    try:
        provider = resolve(ctx.settings, flow["provider_type"])
    except ProviderError as exc:
        raise bad_request(codes.OAUTH_PROVIDER_NOT_SUPPORTED, f"Unsupported provider: {exc}") from None
    data, tokens = await _provider_user(ctx, provider, flow, params)

    async def work(conn: AsyncConnection) -> str:
        if flow["linking_target_id"] is not None:
            user = await identities.link(svc, conn, request, flow["linking_target_id"], data, provider.name)
        else:
            user = await identities.sign_in(svc, conn, request, data, provider.name)
        if flow["code_challenge"]:
            auth_code = await flow_state.signed_in(conn, flow["id"], user["id"], tokens.access_token,
                                                   tokens.refresh_token)
            if auth_code is None:  # another callback with this state got there first
                raise bad_request(codes.FLOW_STATE_ALREADY_USED, "State has already been used")
            return pkce.code_redirect(redirect_to, auth_code)
        if not await flow_state.delete(conn, flow["id"]):  # the state is single use
            raise bad_request(codes.BAD_OAUTH_STATE, "OAuth state not found or expired")
        session = await issue_session(ctx, conn, request, user, "oauth")
        return _token_fragment(redirect_to, session, tokens)

    return await in_transaction(ctx, work, "Database error signing in with the external provider")


# -- POST /token?grant_type=id_token ----------------------------------------------------------

def _oauth_error(message: str, error: str = "invalid request") -> AuthError:
    """GoTrue's OAuthError (400 {"error", "error_description"}); "invalid request" is its spelling."""
    return AuthError(400, codes.VALIDATION_FAILED, message, oauth=error)


@dataclass(frozen=True)
class IdTokenProvider:
    """What IdTokenGrantParams.getProvider decides: the identities' provider name, its
    configuration, the issuer whose keys verify the token, and the audiences it may have."""

    name: str
    config: OAuthProvider
    issuer: str
    client_ids: tuple[str, ...]


def id_token_provider(settings: Settings, name: str, issuer: str, client_id: str, id_token: str) -> IdTokenProvider:
    """getProvider, in GoTrue's order: a built-in provider by name or by the issuer the caller
    names; then (supalite) a provider configured with a `url`, by name or by that issuer; then
    GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS with the caller's client_id (GoTrue's deprecated
    form). Refused: an unknown provider, a disabled one, and an Azure token whose issuer is not
    Microsoft's."""
    configured = settings.auth_providers

    def builtin(provider: str, provider_issuer: str, *extra_ids: str) -> IdTokenProvider:
        config = configured.get(provider) or OAuthProvider(provider)
        return IdTokenProvider(provider, config, provider_issuer, config.client_id + tuple(i for i in extra_ids if i))

    fixed = oidc_providers.ID_TOKEN_ISSUERS
    keycloak = configured.get("keycloak") or OAuthProvider("keycloak")
    if name == "apple" or issuer == fixed["apple"]:
        chosen = builtin("apple", fixed["apple"], settings.ios_bundle_id)
    elif name == "google" or issuer == fixed["google"]:
        chosen = builtin("google", fixed["google"])
    elif name == "azure" or oidc_providers.is_azure_issuer(issuer):
        if not oidc_providers.is_azure_issuer(issuer):
            try:
                issuer = oidc.unverified_issuer(id_token)
            except oidc.OidcError:
                raise bad_request(codes.VALIDATION_FAILED, "Unable to detect issuer in ID token for Azure provider") from None
        chosen = builtin("azure", issuer)
        expected = oidc_providers.azure_expected_issuer(oidc_providers.azure_issuer(chosen.config.url))
        if not oidc_providers.azure_token_issuer_allowed(issuer, expected):
            raise bad_request(codes.VALIDATION_FAILED, f"ID token issuer {go_quote(issuer[:256])} is not an Azure issuer"
                                                       + (f" (expected {go_quote(expected)})" if expected else ""))
    elif name == "facebook" or issuer == fixed["facebook"]:
        chosen = builtin("facebook", fixed["facebook"])
    elif name == "keycloak" or (keycloak.enabled and keycloak.url and issuer == keycloak.url):
        chosen = builtin("keycloak", keycloak.url)
    elif name == "kakao" or issuer == fixed["kakao"]:
        chosen = builtin("kakao", fixed["kakao"])
    elif name == "vercel_marketplace" or issuer == fixed["vercel_marketplace"]:
        chosen = builtin("vercel_marketplace", fixed["vercel_marketplace"])
    else:
        generic = {n: c for n, c in configured.items() if n not in KNOWN_PROVIDERS and c.url}
        by_issuer = next((n for n, c in generic.items() if c.enabled and c.url == issuer), "") if issuer else ""
        if name in generic or by_issuer:
            chosen = builtin(name if name in generic else by_issuer, generic[name if name in generic else by_issuer].url)
        elif issuer and issuer in settings.allowed_id_token_issuers:
            chosen = IdTokenProvider(issuer, OAuthProvider(issuer, enabled=True), issuer, (client_id,))
        else:
            raise bad_request(codes.VALIDATION_FAILED, f"Custom OIDC provider {go_quote(name)} not allowed")
    if not chosen.config.enabled:
        raise bad_request(codes.PROVIDER_DISABLED, f"Provider (issuer {go_quote(chosen.issuer)}) is not enabled")
    if not chosen.issuer:  # keycloak without GOTRUE_EXTERNAL_KEYCLOAK_URL
        raise bad_request(codes.VALIDATION_FAILED, f"unable to find URL for the {chosen.name.capitalize()} provider")
    return chosen


async def id_token_grant(svc: AuthService, request: Request) -> Response:
    """POST /token?grant_type=id_token: sign in (or, with link_identity, link) with a provider's
    ID token obtained by the client (IdTokenGrant)."""
    await svc.limiter.check("token_refresh", request)
    ctx = svc.ctx
    body = await read_body(request)
    id_token, access_token = body.text("id_token"), body.text("access_token")
    nonce, name, issuer = body.text("nonce"), body.text("provider"), body.text("issuer")
    client_id = body.text("client_id")
    link = body.flag("link_identity")
    if not id_token:
        raise _oauth_error("id_token required")
    if not name and (not client_id or not issuer):
        raise _oauth_error("provider or client_id and issuer required")
    linking: Caller | None = None
    if link:
        if not request.headers.get("authorization"):
            raise _oauth_error("Linking requires a valid user access token in Authorization")
        linking = bearer_caller(ctx, request)  # GoTrue checks this token in the handler too
    chosen = id_token_provider(ctx.settings, name, issuer, client_id, id_token)
    provider_name, config = chosen.name, chosen.config
    try:
        discovery = await oidc.discover(chosen.issuer)
    except oidc.OidcError:
        raise internal("Unable to load the provider's OpenID configuration") from None
    try:
        claims = await oidc.verify_id_token(discovery, id_token, access_token=access_token)
        data = oidc_providers.user_data(claims)
    except (oidc.OidcError, ValueError):
        raise _oauth_error("Bad ID token") from None
    data.settle_email()
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise _oauth_error("Missing sub claim in id_token")
    audiences = oidc.audience_list(claims)
    if not set(audiences) & {c for c in chosen.client_ids if c}:
        raise _oauth_error(f"Unacceptable audience in id_token: [{' '.join(audiences)}]")
    if not config.skip_nonce_check:
        token_nonce = claims.get("nonce") if isinstance(claims.get("nonce"), str) else ""
        if bool(token_nonce) != bool(nonce):
            raise _oauth_error("Passed nonce and nonce in id_token should either both exist or not.")
        if nonce and not hmac.compare_digest(hashlib.sha256(nonce.encode()).hexdigest().encode(),
                                             str(token_nonce).encode()):
            raise _oauth_error("Nonces mismatch", "invalid nonce")

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        if linking is not None:
            signed = await signed_in(conn, linking, lock=True)
            user = await identities.link(svc, conn, request, signed.user["id"], data, provider_name)
        else:
            user = await identities.sign_in(svc, conn, request, data, provider_name)
        return await issue_session(ctx, conn, request, user, "oauth")

    return json_response(request, await in_transaction(ctx, work, "Database error granting user"))


async def web3_grant(svc: AuthService, request: Request) -> Response:
    """POST /token?grant_type=web3: no Web3 provider (Solana, Ethereum) is offered."""
    raise unprocessable(codes.WEB3_PROVIDER_DISABLED, "Web3 provider is disabled")


# -- manual linking ---------------------------------------------------------------------------

def _require_manual_linking(ctx: AppContext) -> None:
    if not ctx.settings.manual_linking_enabled:
        raise not_found(codes.MANUAL_LINKING_DISABLED, "Manual linking is disabled")


async def link_identity(svc: AuthService, request: Request, caller: Caller) -> Response:
    """GET /user/identities/authorize: the provider's URL for linking to the signed-in user."""
    ctx = svc.ctx
    _require_manual_linking(ctx)
    signed = await in_transaction(ctx, lambda conn: signed_in(conn, caller))
    url = await authorization_url(svc, request, signed.user)
    if request.query_params.get("skip_http_redirect") == "true":
        return json_response(request, {"url": url})
    return RedirectResponse(url, status_code=302)


async def unlink_identity(svc: AuthService, request: Request, caller: Caller) -> Response:
    """DELETE /user/identities/{identity_id}."""
    ctx = svc.ctx
    _require_manual_linking(ctx)
    identity_id = path_uuid(request, "identity_id")
    audience = caller.claims.get("aud")
    first = audience[0] if isinstance(audience, list) and audience else audience
    if first != AUDIENCE:
        raise AuthError(403, codes.UNEXPECTED_AUDIENCE, "Token audience doesn't match request audience")

    async def work(conn: AsyncConnection) -> None:
        signed = await signed_in(conn, caller, lock=True)
        await identities.unlink(svc, conn, signed.user, identity_id)

    await in_transaction(ctx, work, "Database error deleting identity")
    return json_response(request, {})


# -- SAML -------------------------------------------------------------------------------------

async def saml_disabled(svc: AuthService, request: Request) -> Response:
    raise not_found(codes.SAML_PROVIDER_DISABLED, "SAML 2.0 is disabled")


async def admin_saml_disabled(svc: AuthService, request: Request) -> Response:
    raise not_found(codes.SAML_PROVIDER_DISABLED, "SAML 2.0 is disabled")


# The POST /token grant types this module answers (token.py dispatches to them).
GRANTS: dict[str, Handler] = {"pkce": pkce.pkce_grant, "id_token": id_token_grant, "web3": web3_grant}
