"""Routes of /auth/v1: one handler module per endpoint family, GoTrue's paths."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

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
from server.auth.errors import AuthError, error_response, not_found
from server.auth.http import json_response
from server.auth.ratelimit import RateLimiter
from server.auth.service import AuthService, Handler, RouteSpec
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


# Endpoint modules with their own route lists, matched before the core routes below.
_FEATURE_MODULES = (mfa, passkeys, external, invite, oauth_clients, reauthenticate)


def build(ctx: AppContext) -> Starlette:
    svc = AuthService(ctx, RateLimiter.from_context(ctx))

    def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await handler(svc, request)
            except AuthError as err:
                return error_response(request, err)
            except Exception as exc:  # never a traceback to the client: GoTrue's unexpected_failure
                if is_unavailable(exc):  # 503: auth-js retries it (AuthRetryableFetchError)
                    return error_response(request, AuthError(503, codes.UNEXPECTED_FAILURE, DATABASE_UNAVAILABLE))
                log.exception("auth: unhandled error on %s %s", request.method, request.url.path)
                return error_response(request, AuthError(
                    500, codes.UNEXPECTED_FAILURE, "Unexpected failure, please check server logs for more information"))
        return run

    async def health(svc: AuthService, request: Request) -> Response:
        return JSONResponse({"version": VERSION, "name": "GoTrue",
                             "description": "GoTrue is a user registration and authentication API"})

    async def settings(svc: AuthService, request: Request) -> Response:
        return json_response(request, settings_body(svc))

    async def jwks(svc: AuthService, request: Request) -> Response:
        return json_response(request, {"keys": ctx.keys.public_jwks})

    async def missing(svc: AuthService, request: Request) -> Response:
        raise not_found(codes.NOT_FOUND, "Not Found")

    def route(path: str, handler: Handler, methods: list[str]) -> Route:
        return Route(path, endpoint(handler), methods=methods)

    feature_routes: list[RouteSpec] = [spec for module in _FEATURE_MODULES for spec in module.ROUTES]
    return Starlette(routes=[
        *(route(path, handler, methods) for path, handler, methods in feature_routes),
        route("/health", health, ["GET"]),
        route("/settings", settings, ["GET"]),
        route("/.well-known/jwks.json", jwks, ["GET"]),
        route("/signup", signup.signup, ["POST"]),
        route("/token", token.token, ["POST"]),
        route("/logout", logout.logout, ["POST"]),
        route("/user", user.get_user, ["GET"]),
        route("/user", user.update_user, ["PUT"]),
        route("/recover", verify.recover, ["POST"]),
        route("/otp", verify.otp, ["POST"]),
        route("/magiclink", verify.magiclink, ["POST"]),
        route("/resend", verify.resend, ["POST"]),
        route("/verify", verify.verify_get, ["GET"]),
        route("/verify", verify.verify_post, ["POST"]),
        route("/admin/users", admin.list_users, ["GET"]),
        route("/admin/users", admin.create, ["POST"]),
        route("/admin/users/{user_id}", admin.get_user, ["GET"]),
        route("/admin/users/{user_id}", admin.update, ["PUT"]),
        route("/admin/users/{user_id}", admin.delete, ["DELETE"]),
        route("/admin/generate_link", admin.generate_link, ["POST"]),
        route("/{path:path}", missing, ["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ])
