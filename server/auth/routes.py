"""The routes of /auth/v1: every path with its handler and what it requires of the caller, as GoTrue's router."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, cast, overload

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.auth import (
    admin,
    external,
    invite,
    logout,
    mfa,
    oauth_clients,
    passkeys,
    reauthenticate,
    signup,
    token,
    user,
    verify,
)
from server.auth import error_codes as codes
from server.auth.authn import Auth, admin_caller, user_caller
from server.auth.errors import AuthError, error_response, not_found
from server.auth.http import json_response
from server.auth.ratelimit import RateLimiter
from server.auth.service import AuthService, Handler, UserHandler
from server.core.context import AppContext
from server.core.health import DATABASE_UNAVAILABLE, is_unavailable

VERSION = "v2.170.0-supalite"
log = logging.getLogger("supalite.auth")
# GoTrue's /settings lists these providers whether configured or not.
_LISTED_PROVIDERS = (
    "apple", "azure", "bitbucket", "discord", "facebook", "figma", "fly", "github", "gitlab", "google",
    "keycloak", "kakao", "linkedin", "linkedin_oidc", "notion", "slack", "slack_oidc", "snapchat", "spotify",
    "twitch", "twitter", "workos", "zoom")


def settings_body(svc: AuthService) -> dict[str, Any]:
    settings = svc.ctx.settings
    external: dict[str, bool] = {name: False for name in _LISTED_PROVIDERS}
    external.update({name: provider.enabled for name, provider in settings.auth_providers.items()})
    external.update({"anonymous_users": settings.anonymous_users_enabled, "email": settings.email_enabled,
                     "phone": settings.phone_enabled})
    return {"external": external, "disable_signup": settings.disable_signup,
            "mailer_autoconfirm": settings.mailer_autoconfirm, "phone_autoconfirm": settings.sms_autoconfirm,
            "sms_provider": settings.sms_provider, "saml_enabled": False,
            "saml_private_key_next_configured": False, "passkeys_enabled": settings.passkey_enabled}


@dataclass(frozen=True)
class AuthRoute:
    """One row of the table: the methods and path, the handler, and its requirement."""

    methods: tuple[str, ...]
    path: str
    handler: Handler | UserHandler  # a UserHandler exactly when `auth` is Auth.USER
    auth: Auth
    gate: Callable[[AuthService], None] | None = None  # a setting that turns the route off, checked first


@overload
def route(methods: str, path: str, handler: UserHandler, *, auth: Literal[Auth.USER],
          gate: Callable[[AuthService], None] | None = None) -> AuthRoute: ...
@overload
def route(methods: str, path: str, handler: Handler, *, auth: Literal[Auth.PUBLIC, Auth.ADMIN],
          gate: Callable[[AuthService], None] | None = None) -> AuthRoute: ...
def route(methods: str, path: str, handler: Handler | UserHandler, *, auth: Auth,
          gate: Callable[[AuthService], None] | None = None) -> AuthRoute:
    """A row; `methods` is one method or several separated by commas."""
    return AuthRoute(tuple(methods.split(",")), path, handler, auth, gate)


async def _health(svc: AuthService, request: Request) -> Response:
    return JSONResponse({"version": VERSION, "name": "GoTrue",
                         "description": "GoTrue is a user registration and authentication API"})


async def _settings(svc: AuthService, request: Request) -> Response:
    return json_response(request, settings_body(svc))


async def _jwks(svc: AuthService, request: Request) -> Response:
    return json_response(request, {"keys": svc.ctx.keys.public_jwks})


async def _missing(svc: AuthService, request: Request) -> Response:
    raise not_found(codes.NOT_FOUND, "Not Found")


PUBLIC: Final = Auth.PUBLIC
USER: Final = Auth.USER
ADMIN: Final = Auth.ADMIN
_passkeys_on = passkeys.require_enabled

# Grouped as GoTrue's api.go groups them. Every /auth/v1 route is here, the catch-all last.
ROUTES: tuple[AuthRoute, ...] = (
    route("GET", "/health", _health, auth=PUBLIC),
    route("GET", "/.well-known/jwks.json", _jwks, auth=PUBLIC),
    route("GET,POST", "/callback", external.callback, auth=PUBLIC),
    route("GET", "/settings", _settings, auth=PUBLIC),
    route("GET", "/authorize", external.authorize, auth=PUBLIC),
    route("POST", "/invite", invite.invite, auth=ADMIN),
    route("POST", "/signup", signup.signup, auth=PUBLIC),
    route("POST", "/recover", verify.recover, auth=PUBLIC),
    route("POST", "/resend", verify.resend, auth=PUBLIC),
    route("POST", "/magiclink", verify.magiclink, auth=PUBLIC),
    route("POST", "/otp", verify.otp, auth=PUBLIC),
    route("POST", "/token", token.token, auth=PUBLIC),  # its id_token grant with link_identity reads a token
    route("GET", "/verify", verify.verify_get, auth=PUBLIC),
    route("POST", "/verify", verify.verify_post, auth=PUBLIC),
    route("POST", "/logout", logout.logout, auth=USER),
    route("GET", "/reauthenticate", reauthenticate.reauthenticate, auth=USER),
    route("GET", "/user", user.get_user, auth=USER),
    route("PUT", "/user", user.update_user, auth=USER),
    route("GET", "/user/identities/authorize", external.link_identity, auth=USER),
    route("DELETE", "/user/identities/{identity_id}", external.unlink_identity, auth=USER),
    route("POST", "/factors", mfa.enroll, auth=USER),
    route("POST", "/factors/{factor_id}/verify", mfa.verify, auth=USER),
    route("POST", "/factors/{factor_id}/challenge", mfa.challenge, auth=USER),
    route("DELETE", "/factors/{factor_id}", mfa.unenroll, auth=USER),
    route("POST", "/passkeys/authentication/options", passkeys.authentication_options, auth=PUBLIC,
          gate=_passkeys_on),
    route("POST", "/passkeys/authentication/verify", passkeys.authentication_verify, auth=PUBLIC,
          gate=_passkeys_on),
    route("POST", "/passkeys/registration/options", passkeys.registration_options, auth=USER, gate=_passkeys_on),
    route("POST", "/passkeys/registration/verify", passkeys.registration_verify, auth=USER, gate=_passkeys_on),
    route("GET", "/passkeys", passkeys.list_passkeys, auth=USER, gate=_passkeys_on),
    route("PATCH", "/passkeys/{passkey_id}", passkeys.update_passkey, auth=USER, gate=_passkeys_on),
    route("DELETE", "/passkeys/{passkey_id}", passkeys.delete_passkey, auth=USER, gate=_passkeys_on),
    route("POST", "/sso", external.saml_disabled, auth=PUBLIC),
    route("GET", "/sso/saml/metadata", external.saml_disabled, auth=PUBLIC),
    route("POST", "/sso/saml/acs", external.saml_disabled, auth=PUBLIC),
    route("GET", "/admin/users", admin.list_users, auth=ADMIN),
    route("POST", "/admin/users", admin.create, auth=ADMIN),
    route("GET", "/admin/users/{user_id}/factors", mfa.admin_list, auth=ADMIN),
    route("DELETE", "/admin/users/{user_id}/factors/{factor_id}", mfa.admin_delete, auth=ADMIN),
    route("PUT", "/admin/users/{user_id}/factors/{factor_id}", mfa.admin_update, auth=ADMIN),
    route("GET", "/admin/users/{user_id}/passkeys", passkeys.admin_list_passkeys, auth=ADMIN),
    route("DELETE", "/admin/users/{user_id}/passkeys/{passkey_id}", passkeys.admin_delete_passkey, auth=ADMIN),
    route("GET", "/admin/users/{user_id}", admin.get_user, auth=ADMIN),
    route("PUT", "/admin/users/{user_id}", admin.update, auth=ADMIN),
    route("DELETE", "/admin/users/{user_id}", admin.delete, auth=ADMIN),
    route("POST", "/admin/generate_link", admin.generate_link, auth=ADMIN),
    route("GET,POST", "/admin/sso/providers", external.admin_saml_disabled, auth=ADMIN),
    route("GET,PUT,DELETE", "/admin/sso/providers/{idp_id}", external.admin_saml_disabled, auth=ADMIN),
    route("POST", "/admin/oauth/clients", oauth_clients.create_client, auth=ADMIN),
    route("GET", "/admin/oauth/clients", oauth_clients.list_clients, auth=ADMIN),
    route("GET", "/admin/oauth/clients/{client_id}", oauth_clients.get_client, auth=ADMIN),
    route("PUT", "/admin/oauth/clients/{client_id}", oauth_clients.update_client, auth=ADMIN),
    route("DELETE", "/admin/oauth/clients/{client_id}", oauth_clients.delete_client, auth=ADMIN),
    route("POST", "/admin/oauth/clients/{client_id}/regenerate_secret", oauth_clients.regenerate_secret, auth=ADMIN),
    route("POST", "/oauth/clients/register", oauth_clients.register_client, auth=PUBLIC),
    route("GET,POST,PUT,PATCH,DELETE", "/{path:path}", _missing, auth=PUBLIC),
)


async def _resolved(svc: AuthService, request: Request, row: AuthRoute) -> Response:
    """The one place a route's requirement is checked, before its handler runs."""
    if row.gate is not None:
        row.gate(svc)
    if row.auth is Auth.USER:
        return await cast("UserHandler", row.handler)(svc, request, user_caller(svc.ctx, request))
    if row.auth is Auth.ADMIN:
        admin_caller(svc.ctx, request)
    return await cast("Handler", row.handler)(svc, request)


def build(ctx: AppContext) -> Starlette:
    svc = AuthService(ctx, RateLimiter.from_context(ctx))

    def endpoint(row: AuthRoute) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await _resolved(svc, request, row)
            except AuthError as err:
                return error_response(request, err)
            except Exception as exc:  # never a traceback to the client: GoTrue's unexpected_failure
                if is_unavailable(exc):  # 503: auth-js retries it (AuthRetryableFetchError)
                    return error_response(request, AuthError(503, codes.UNEXPECTED_FAILURE, DATABASE_UNAVAILABLE))
                log.exception("auth: unhandled error on %s %s", request.method, request.url.path)
                return error_response(request, AuthError(
                    500, codes.UNEXPECTED_FAILURE, "Unexpected failure, please check server logs for more information"))
        return run

    return Starlette(routes=[Route(row.path, endpoint(row), methods=list(row.methods)) for row in ROUTES])
