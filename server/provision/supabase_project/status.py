"""`supalite status`: URLs and keys of the running server, in `supabase status`'s shapes.

The names (`api.url` -> `API_URL`...) are the CLI's, so `supalite status -o env
--override-name api.url=NEXT_PUBLIC_SUPABASE_URL` writes the .env tools expect. Only what
supalite serves is listed: no GraphQL, Studio, Edge Functions, MCP, S3 protocol or
publishable/secret keys. The anon and service_role keys are the CLI's: signed with the JWT
secret, or with `signing_keys_path`'s first key (server/core/jwt.py), unless config.toml gives them.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

from server.core.config import ConfigError, Settings


@dataclass(frozen=True)
class Field:
    tag: str  # --override-name's left side
    name: str  # the variable's default name (-o env, json...)
    label: str | None = None  # its line in the pretty block; None: not shown there


# The CLI's fields, in its order. Those supalite has a value for:
FIELDS = (
    Field("api.url", "API_URL", "API URL"),
    Field("api.rest_url", "REST_URL"),
    Field("db.url", "DB_URL", "DB URL"),
    Field("inbucket.url", "INBUCKET_URL", "Inbucket URL"),
    Field("mailpit.url", "MAILPIT_URL"),
    Field("auth.jwt_secret", "JWT_SECRET", "JWT secret"),
    Field("auth.anon_key", "ANON_KEY", "anon key"),
    Field("auth.service_role_key", "SERVICE_ROLE_KEY", "service_role key"),
)
# The CLI's other names: renaming them is accepted, as there, though supalite prints no value for them.
ABSENT_TAGS = (
    "api.graphql_url", "api.storage_s3_url", "api.mcp_url", "api.functions_url", "studio.url",
    "auth.publishable_key", "auth.secret_key",
    "storage.s3_access_key_id", "storage.s3_secret_access_key", "storage.s3_region",
)
# The CLI pads every label to the longest one it has, "service_role key".
LABEL_WIDTH = 16
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_running(settings: Settings) -> bool:
    """A server `supalite start` started, or a `supalite serve` on this data dir answering /health."""
    from server.provision.connection import running_database_url
    from server.provision.supabase_project.process import health_answers, running_pid

    if running_pid(settings) is not None:
        return True
    return running_database_url(settings) is not None and health_answers(settings)


def status_values(settings: Settings) -> dict[str, str]:
    """Value by tag, for the running server."""
    from server.auth.mail import inbox_enabled
    from server.core.jwt import anon_key, service_role_key
    from server.provision.connection import running_database_url

    values = {"api.url": settings.api_url, "api.rest_url": f"{settings.api_url}/rest/v1"}
    db_url = running_database_url(settings)
    if db_url is not None:
        values["db.url"] = db_url
    if inbox_enabled(settings):
        values["inbucket.url"] = values["mailpit.url"] = f"{settings.api_url}/inbox"
    values["auth.jwt_secret"] = settings.jwt_secret
    values["auth.anon_key"] = anon_key(settings)
    values["auth.service_role_key"] = service_role_key(settings)
    return values


def parse_overrides(items: list[str]) -> dict[str, str]:
    """`--override-name api.url=NEXT_PUBLIC_SUPABASE_URL` (repeated, or comma separated)."""
    known = {field.tag for field in FIELDS} | set(ABSENT_TAGS)
    renames: dict[str, str] = {}
    for item in (part.strip() for raw in items for part in raw.split(",")):
        tag, equals, name = item.partition("=")
        if not equals:
            raise ConfigError(f"--override-name {item!r}: expected name=VARIABLE, e.g. api.url=NEXT_PUBLIC_SUPABASE_URL")
        if tag not in known:
            raise ConfigError(f"--override-name: unknown name {tag!r} (one of {', '.join(sorted(known))})")
        if not _VARIABLE.fullmatch(name):
            raise ConfigError(f"--override-name {tag}: {name!r} is not a variable name (letters, digits, _)")
        renames[tag] = name
    return renames


def named_values(values: dict[str, str], renames: dict[str, str]) -> dict[str, str]:
    return {renames.get(field.tag, field.name): values[field.tag] for field in FIELDS if field.tag in values}


def _env_quote(value: str) -> str:
    # godotenv.Marshal's escaping, which `supabase status -o env` goes through.
    for char, escaped in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ('"', '\\"'),
                          ("!", "\\!"), ("$", "\\$"), ("`", "\\`")):
        value = value.replace(char, escaped)
    return f'"{value}"'


def encode(output: str, named: dict[str, str]) -> str:
    """-o env | json | toml | yaml, as the CLI encodes a map: keys sorted."""
    if output == "env":
        lines = sorted(f"{key}={value}" if re.fullmatch(r"-?[0-9]+", value) else f"{key}={_env_quote(value)}"
                       for key, value in named.items())
        return "\n".join(lines) + "\n"
    if output == "json":
        text = json.dumps(named, indent=2, sort_keys=True, ensure_ascii=False)
        # Go's encoder escapes these for HTML; parsers read both the same.
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"
    if output == "toml":
        return "".join(f"{key} = {json.dumps(value)}\n" for key, value in sorted(named.items()))
    if output == "yaml":
        import yaml

        return yaml.safe_dump(named, sort_keys=True, default_flow_style=False, allow_unicode=True)
    raise ConfigError(f"unknown output format {output!r} (env, json, toml, yaml or pretty)")


def print_block(values: dict[str, str]) -> None:
    """The CLI's pretty block: labels right-aligned, one `label: value` line each."""
    for field in FIELDS:
        if field.label is not None and field.tag in values:
            print(f"{field.label.rjust(LABEL_WIDTH)}: {values[field.tag]}")
    sys.stdout.flush()


def print_status(settings: Settings, output: str, renames: dict[str, str]) -> int:
    if not is_running(settings):
        print("supalite local development setup is not running.", file=sys.stderr)
        return 1
    values = status_values(settings)
    if output == "pretty":
        print("supalite local development setup is running.\n", file=sys.stderr, flush=True)
        print_block(values)
    else:
        sys.stdout.write(encode(output, named_values(values, renames)))
    return 0
