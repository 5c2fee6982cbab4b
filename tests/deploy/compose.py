"""docker-compose.yml read as compose reads it: its services, its ${...} variables, and the
environment it gives a service from a .env (tests/deploy checks the files, tests/topology runs
the replicas with that environment)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.harness import REPO

COMPOSE = REPO / "docker-compose.yml"
ENV_EXAMPLE = REPO / ".env.example"
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?message}, ${NAME?message}
COMPOSE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def dotenv_values(text: str) -> dict[str, str]:
    """NAME=value lines of a .env file (comments and blank lines skipped)."""
    values = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.startswith("#"):
            values[name.strip()] = value.strip()
    return values


def service_environment(service: str, dotenv: dict[str, str]) -> dict[str, str]:
    """`service`'s environment with its ${...} read from `dotenv`, as compose reads .env
    (`:-` and `:?` treat an empty value as unset)."""

    def expand(m: re.Match[str]) -> str:
        name, operator, value = m[1], m[2] or "", m[3] or ""
        given = dotenv.get(name)
        if given or (given == "" and ":" not in operator):
            return given
        if "?" in operator:
            raise ValueError(f"docker-compose.yml requires {name}: {value}")
        return value

    environment = compose()["services"][service]["environment"]
    return {name: COMPOSE_VARIABLE.sub(expand, str(value)) for name, value in environment.items()}
