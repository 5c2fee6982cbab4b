"""GoTrue's built-in OpenID Connect providers: their issuers, which issuers an ID token may
name, and what each issuer's ID token says about the user (provider.ParseIDToken).

Google, Apple, Azure, LinkedIn (OIDC), Slack (OIDC), Kakao and Vercel Marketplace need no
`url`: their issuers are known. Keycloak's is the realm's, so it needs one, as in GoTrue.
"""

from __future__ import annotations

import re
from typing import Any

from server.auth.identities import Email, UserData, claims_map
from server.auth.oidc import GOOGLE_ISSUER as ISSUER_GOOGLE

ISSUER_APPLE = "https://appleid.apple.com"
ISSUER_LINKEDIN = "https://www.linkedin.com/oauth"
ISSUER_KAKAO = "https://kauth.kakao.com"
ISSUER_VERCEL_MARKETPLACE = "https://marketplace.vercel.com"
ISSUER_FACEBOOK = "https://www.facebook.com"
ISSUER_AZURE_COMMON = "https://login.microsoftonline.com/common/v2.0"

# Issuers of the built-in providers, used when no GOTRUE_EXTERNAL_<NAME>_URL is set.
DEFAULT_ISSUERS = {"google": ISSUER_GOOGLE, "apple": ISSUER_APPLE, "kakao": ISSUER_KAKAO,
                   "facebook": ISSUER_FACEBOOK, "linkedin_oidc": ISSUER_LINKEDIN, "slack_oidc": "https://slack.com",
                   "snapchat": "https://accounts.snapchat.com", "vercel_marketplace": ISSUER_VERCEL_MARKETPLACE,
                   "azure": ISSUER_AZURE_COMMON}

# IdTokenGrantParams.getProvider: the built-in providers an ID token signs in with, by name or
# by the issuer the caller names, and the one issuer each accepts (Azure's is the token's tenant).
ID_TOKEN_ISSUERS = {"apple": ISSUER_APPLE, "google": ISSUER_GOOGLE, "facebook": ISSUER_FACEBOOK,
                    "kakao": ISSUER_KAKAO, "vercel_marketplace": ISSUER_VERCEL_MARKETPLACE}

_AZURE_ISSUER = re.compile(r"https://login[.]microsoftonline[.]com/([^/]+)/v2[.]0/?")
_AZURE_CIAM_ISSUER = re.compile(r"https://[a-z0-9-]+[.]ciamlogin[.]com/([^/]+)/v2[.]0/?")
# Azure's multi-tenant endpoints: their discovery names a templated issuer, never a token's.
AZURE_ANY_TENANT = frozenset(("common", "organizations", "consumers"))


def is_azure_issuer(issuer: str) -> bool:
    return _AZURE_ISSUER.fullmatch(issuer) is not None


def is_azure_ciam_issuer(issuer: str) -> bool:
    return _AZURE_CIAM_ISSUER.fullmatch(issuer) is not None


def azure_issuer(url: str) -> str:
    """The issuer of an Azure configuration: GoTrue's `url` is the authority (its host and
    tenant, `https://login.microsoftonline.com/<tenant>`), the issuer that plus `/v2.0`."""
    if not url:
        return ISSUER_AZURE_COMMON
    url = url.rstrip("/")
    return url if url.endswith("/v2.0") else url + "/v2.0"


def azure_expected_issuer(issuer: str) -> str:
    """The one issuer an Azure configuration accepts tokens from: its tenant's, or "" (any
    Azure tenant) for the multi-tenant endpoints, which never issue a token themselves."""
    match = _AZURE_ISSUER.fullmatch(issuer) or _AZURE_CIAM_ISSUER.fullmatch(issuer)
    if match is None or match[1] in AZURE_ANY_TENANT:
        return ""
    return issuer.rstrip("/")


def azure_token_issuer_allowed(token_issuer: str, expected: str) -> bool:
    """An Azure ID token's issuer: an Azure (or Azure CIAM) tenant's, and the configured
    tenant's when there is one. GoTrue's id_token grant takes whatever issuer the token names
    and fetches its keys from there, so a token minted by any OpenID server of the caller's,
    with the app's client id as audience, signs in; here only Microsoft's issuers are
    fetched from."""
    if not (is_azure_issuer(token_issuer) or is_azure_ciam_issuer(token_issuer)):
        return False
    return not expected or token_issuer.rstrip("/") == expected


# -- what an ID token says about the user ------------------------------------------------------

def _text(claims: dict[str, Any], key: str) -> str:
    value = claims.get(key)
    return value if isinstance(value, str) else ""


def _go_parse_bool(value: Any) -> bool | None:
    """strconv.ParseBool of a string claim; None when Go would fail to read it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("1", "t", "T", "TRUE", "true", "True"):
            return True
        if value in ("0", "f", "F", "FALSE", "false", "False"):
            return False
    return None


def _data(emails: list[Email], **metadata: Any) -> UserData:
    return UserData(emails, claims_map(metadata))


def _google(claims: dict[str, Any]) -> UserData:
    # googleUser: verified when either of Google's two flags is true.
    verified = claims.get("email_verified") is True or claims.get("verified_email") is True
    email = _text(claims, "email")
    custom = {"hd": _text(claims, "hd")} if _text(claims, "hd") else {}
    return _data([Email(email, verified, True)] if email else [], iss=_text(claims, "iss"), sub=_text(claims, "sub"),
                 name=_text(claims, "name"), picture=_text(claims, "picture"), avatar_url=_text(claims, "picture"),
                 full_name=_text(claims, "name"), provider_id=_text(claims, "sub"), custom_claims=custom)


def _apple(claims: dict[str, Any]) -> UserData:
    # Apple hands out only addresses it has verified (private relay ones included): GoTrue
    # takes them as verified.
    custom: dict[str, Any] = {}
    private = _go_parse_bool(claims.get("is_private_email"))
    if private is not None:
        custom["is_private_email"] = private
    if isinstance(claims.get("auth_time"), int | float) and not isinstance(claims.get("auth_time"), bool):
        custom["auth_time"] = claims["auth_time"]
    email = _text(claims, "email")
    return _data([Email(email, True, True)] if email else [], iss=_text(claims, "iss"), sub=_text(claims, "sub"),
                 provider_id=_text(claims, "sub"), custom_claims=custom)


def _linkedin(claims: dict[str, Any]) -> UserData:
    verified = _go_parse_bool(claims.get("email_verified"))
    if verified is None:
        raise ValueError("linkedin: email_verified is not a boolean")
    email, given, family = _text(claims, "email"), _text(claims, "given_name"), _text(claims, "family_name")
    return _data([Email(email, verified, True)] if email else [], iss=_text(claims, "iss"), sub=_text(claims, "sub"),
                 name=f"{given} {family}".strip(), given_name=given, family_name=family,
                 locale=_text(claims, "locale"), picture=_text(claims, "picture"), provider_id=_text(claims, "sub"))


def _kakao(claims: dict[str, Any]) -> UserData:
    # GoTrue takes the address of a Kakao ID token as verified (its ID token has no flag for it).
    email, nickname = _text(claims, "email"), _text(claims, "nickname")
    return _data([Email(email, True, True)] if email else [], iss=_text(claims, "iss"), sub=_text(claims, "sub"),
                 name=nickname, preferred_username=nickname, provider_id=_text(claims, "sub"),
                 picture=_text(claims, "picture"))


def _vercel_marketplace(claims: dict[str, Any]) -> UserData:
    subject = _text(claims, "sub")
    if _text(claims, "global_user_id"):
        subject = "global_user_id:" + _text(claims, "global_user_id")
    email = _text(claims, "user_email")
    return _data([Email(email, True, True)] if email else [], iss=_text(claims, "iss"), sub=subject,
                 provider_id=subject, name=_text(claims, "user_name"), picture=_text(claims, "user_avatar_url"))


# parseAzureIDToken leaves these out of custom_claims.
_AZURE_NOT_CUSTOM = ("aud", "iss", "iat", "nbf", "exp", "c_hash", "at_hash", "aio", "nonce", "rh", "uti", "jti", "ver",
                     "sub", "name", "preferred_username")


def _azure(claims: dict[str, Any]) -> UserData:
    # AzureIDTokenClaims.IsEmailVerified: without the xms_edov claim an address counts as
    # verified (GoTrue's reading: Azure sends unverified ones to single-tenant apps only).
    email = _text(claims, "email")
    edov = claims.get("xms_edov")
    verified = bool(email) and (edov is None or edov is True or edov in ("1", "true"))
    custom = {k: v for k, v in claims.items() if k not in _AZURE_NOT_CUSTOM}
    return _data([Email(email, verified, True)] if email else [], iss=_text(claims, "iss"), sub=_text(claims, "sub"),
                 provider_id=_text(claims, "sub"), preferred_username=_text(claims, "preferred_username"),
                 full_name=_text(claims, "name"), custom_claims=custom)


def _generic(claims: dict[str, Any], require_email: bool = True) -> UserData:
    data = UserData([], claims_map(claims))
    email = data.metadata.get("email")
    if not email:
        if not require_email:
            return data
        raise ValueError(f"provider: Generic OIDC ID token from issuer {_text(claims, 'iss')!r} must contain an"
                         " email address")
    data.emails.append(Email(email, bool(data.metadata.get("email_verified")), True))
    return data


# ParseIDToken's switch on the token's issuer (a scheme-less Google one reads as generic there too).
_BY_ISSUER = {ISSUER_GOOGLE: _google, ISSUER_APPLE: _apple,
              ISSUER_LINKEDIN: _linkedin, ISSUER_KAKAO: _kakao, ISSUER_VERCEL_MARKETPLACE: _vercel_marketplace}


def user_data(claims: dict[str, Any], *, require_email: bool = True) -> UserData:
    """ParseIDToken's reading of a verified ID token's claims, by its issuer; ValueError when
    GoTrue would refuse it (a generic token without an e-mail address, unless not
    `require_email`: the callback says "Error getting user email" of its own)."""
    issuer = _text(claims, "iss")
    parse = _BY_ISSUER.get(issuer)
    if parse is not None:
        return parse(claims)
    if is_azure_issuer(issuer):
        return _azure(claims)
    return _generic(claims, require_email)
