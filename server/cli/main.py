"""supalite serve | start | stop | status | migrate | migration | policies | seed | keys | db | psql | gen types | config"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from server.cli.serve import cmd_serve
from server.core.config import SECTIONS, SETTINGS, ConfigError, Settings, section_of
from server.provision.settings import load_settings

Command = Callable[[Settings, argparse.Namespace], int]


def cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    from server.provision.database import command_database
    from server.provision.project import migrate

    with command_database(settings) as owner_url:
        migrate(settings, owner_url)
    print("supalite: database is up to date")
    return 0


def cmd_policies(settings: Settings, args: argparse.Namespace) -> int:
    from server.provision.database import command_database
    from server.provision.project import apply_policies_now

    with command_database(settings) as owner_url:
        apply_policies_now(settings, owner_url)
    print("supalite: policies applied")
    return 0


def cmd_seed(settings: Settings, args: argparse.Namespace) -> int:
    from server.cli.serve import seed_demo_data
    from server.provision.database import command_database
    from server.provision.project import migrate
    from server.provision.seeding import check_seed_allowed
    from server.provision.supabase_project.apply import seed_project

    check_seed_allowed(settings)
    with command_database(settings) as owner_url:
        migrate(settings, owner_url, seed=False)
        if not seed_project(settings, owner_url):  # a Supabase project: its seed files and buckets again
            seed_demo_data(settings, owner_url)
    return 0


def cmd_policies_check(settings: Settings, args: argparse.Namespace) -> int:
    from server.policycheck import run_check
    from server.provision.database import command_database

    matrix = Path(args.matrix) if args.matrix else settings.project_dir / "policies" / "matrix.yaml"
    with command_database(settings) as owner_url:
        return run_check(owner_url, matrix, sys.stdout)


def _running_db_url(settings: Settings) -> str | None:
    from server.provision.connection import running_database_url

    return running_database_url(settings)


def cmd_keys(settings: Settings, args: argparse.Namespace) -> int:
    """`supalite status`'s block, whether a server runs or not (the DB URL only while one does)."""
    from server.provision.supabase_project.status import print_block, status_values

    print_block(status_values(settings))
    return 0


def cmd_db_url(settings: Settings, args: argparse.Namespace) -> int:
    url = _running_db_url(settings)
    if url is None:
        raise ConfigError(f"the embedded PostgreSQL in {settings.data_dir} is not running: start `supalite serve` first")
    print(url)
    return 0


def _psql_binary() -> str:
    from server.provision.embedded import bin_dir

    bundled = bin_dir() / "psql"
    if bundled.is_file():
        return str(bundled)
    found = shutil.which("psql")
    if not found:
        raise ConfigError("psql not found (install the PostgreSQL client)")
    return found


def cmd_psql(settings: Settings, args: argparse.Namespace) -> int:
    import subprocess

    from server.provision.database import command_database

    with command_database(settings) as owner_url:
        return subprocess.call([_psql_binary(), owner_url, *args.psql_args])


def _typegen_schemas(settings: Settings, args: argparse.Namespace) -> list[str]:
    """Check `gen types`'s flags as the CLI does; the schemas to include."""
    if args.language and args.language != "typescript" and not args.lang:
        raise ConfigError("use --lang flag to specify the typegen language")
    lang = args.lang or args.language or "typescript"
    if lang != "typescript":
        raise ConfigError(f"--lang {lang}: supalite generates typescript types only")
    sources = [flag for flag, given in (("--local", args.local), ("--linked", args.linked),
                                        ("--project-id", args.project_id), ("--db-url", args.db_url)) if given]
    if len(sources) > 1:
        raise ConfigError(f"{' and '.join(sources)} cannot be used together")
    if args.linked or args.project_id:
        raise ConfigError(f"{sources[0]} reads a hosted Supabase project: supalite generates types from "
                          "its own database (--local, the default) or from --db-url")
    schemas = [name.strip() for given in args.schema for name in given.split(",")]
    if any(not name for name in schemas):
        raise ConfigError("--schema: empty schema name")
    # As the CLI: public, then the schemas the API exposes ([api] schemas).
    return schemas or list(dict.fromkeys(["public", *settings.db_schemas]))


def cmd_gen_types(settings: Settings, args: argparse.Namespace) -> int:
    """The `Database` type for supabase-js on stdout, as `supabase gen types typescript --local`."""
    import psycopg

    from server.typegen import generate_typescript

    schemas = _typegen_schemas(settings, args)
    try:
        if args.db_url:
            output = generate_typescript(args.db_url, schemas)
        else:
            from server.provision.database import command_database

            with command_database(settings) as owner_url:
                output = generate_typescript(owner_url, schemas)
    except psycopg.Error as exc:
        raise ConfigError(f"cannot read the database: {str(exc).strip()}") from None
    sys.stdout.write(output)
    return 0


def cmd_config(settings: Settings, args: argparse.Namespace) -> int:
    """Every setting, one Markdown table per section (the tables of docs/configuration.md)."""
    for number, section in enumerate(SECTIONS):
        print(f"{chr(10) if number else ''}### {section}\n\n| Variable | Default | Meaning |\n|---|---|---|")
        for setting in SETTINGS.values():
            if section_of(setting) == section:
                default = f"`{setting.default}`" if setting.default else "(empty)"
                print(f"| `{setting.env}` | {default} | {setting.help} |")
    return 0


def _lazy_command(module: str, name: str) -> Command:
    """A command of server/cli/<module>.py, imported when it runs (the others start faster)."""

    def run(settings: Settings, args: argparse.Namespace) -> int:
        import importlib

        command: Command = getattr(importlib.import_module(f"server.cli.{module}"), name)
        return command(settings, args)

    return run


def _common_options() -> argparse.ArgumentParser:
    """Options every command accepts, before or after its name (`supalite db url --data-dir D`)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help="data directory (SUPALITE_DATA_DIR)")
    common.add_argument("--workdir", default=argparse.SUPPRESS,
                        help="folder holding supabase/config.toml (SUPALITE_PROJECT_DIR; default: the current one)")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options()
    parser = argparse.ArgumentParser(prog="supalite", description="Supabase-compatible backend", parents=[common])
    sub = parser.add_subparsers(dest="command", required=True)

    def command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help: str,
                func: Command | None = None) -> argparse.ArgumentParser:
        added = subparsers.add_parser(name, help=help, parents=[common])
        if func is not None:
            added.set_defaults(func=func)
        return added

    serve = command(sub, "serve", "run the server in the foreground", cmd_serve)
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int)
    serve.add_argument("--dev", action="store_true", default=None, help="development machine")
    serve.add_argument("--no-migrate", action="store_true", help="do not migrate at start")
    serve.add_argument("--seed", action="store_true", help="load the project's demo data (seed/seed.py) before serving")

    start = command(sub, "start", "start the project's server in the background (as `supabase start`)",
                    _lazy_command("project", "cmd_start"))
    start.add_argument("-x", "--exclude", action="append", default=[], help="services to leave out (accepted, ignored)")
    start.add_argument("--ignore-health-check", action="store_true", help="accepted for the CLI's sake")
    stop = command(sub, "stop", "stop the server `supalite start` started", _lazy_command("project", "cmd_stop"))
    stop.add_argument("--no-backup", action="store_true", help="also delete the project's data (database, objects)")
    status = command(sub, "status", "URLs and keys of the running server", _lazy_command("project", "cmd_status"))
    status.add_argument("-o", "--output", choices=["pretty", "env", "json", "toml", "yaml"], default="pretty")
    status.add_argument("--override-name", action="append", default=[], help="rename a variable, e.g. api.url=NEXT_PUBLIC_SUPABASE_URL")

    functions = command(sub, "functions", "Edge Functions (supabase/functions/<name>, run on Deno)")
    functions_sub = functions.add_subparsers(dest="functions_command", required=True)
    functions_new = command(functions_sub, "new", "create supabase/functions/<name> from the template",
                            _lazy_command("functions", "cmd_functions_new"))
    functions_new.add_argument("name")
    functions_serve = command(functions_sub, "serve", "serve the API and the functions, reloaded as they change",
                              _lazy_command("functions", "cmd_functions_serve"))
    functions_serve.add_argument("--env-file", help="a .env file every function reads")
    functions_serve.add_argument("--no-verify-jwt", action="store_true", help="no function verifies the JWT")
    functions_serve.add_argument("--host")
    functions_serve.add_argument("--port", type=int)
    functions_serve.add_argument("--no-migrate", action="store_true", help="do not migrate at start")

    command(sub, "migrate", "apply platform schema, migrations, policies, buckets", cmd_migrate)
    migration = command(sub, "migration", "the project's supabase/migrations")
    migration_sub = migration.add_subparsers(dest="migration_command", required=True)
    migration_new = command(migration_sub, "new", "create supabase/migrations/<timestamp>_<name>.sql (stdin: its text)",
                            _lazy_command("project", "cmd_migration_new"))
    migration_new.add_argument("name")
    migration_list = command(migration_sub, "list", "local and applied migrations",
                             _lazy_command("project", "cmd_migration_list"))
    migration_list.add_argument("--local", action="store_true", help="the local database (the only one; accepted)")

    policies = command(sub, "policies", "row-level security policies")
    policies_sub = policies.add_subparsers(dest="policies_command", required=True)
    command(policies_sub, "apply", "re-apply policies/*.sql in one transaction", cmd_policies)
    check = command(policies_sub, "check", "run the permission matrix (policies/matrix.yaml) and print it", cmd_policies_check)
    check.add_argument("--matrix", help="matrix file (default: policies/matrix.yaml)")
    command(sub, "seed", "load the project's demo data (seed/seed.py); never in production", cmd_seed)
    command(sub, "keys", "print URLs and keys", cmd_keys)
    db = command(sub, "db", "database")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    command(db_sub, "url", "print the database URL", cmd_db_url)
    db_reset = command(db_sub, "reset", "recreate the database: migrations, seed, buckets (as `supabase db reset`)",
                       _lazy_command("project", "cmd_db_reset"))
    db_reset.add_argument("--no-seed", action="store_true", help="skip the seed files")
    db_reset.add_argument("--local", action="store_true", help="the local database (the only one; accepted)")
    command(sub, "psql", "open psql on the database", cmd_psql)
    gen = command(sub, "gen", "generate code from the database")
    gen_sub = gen.add_subparsers(dest="gen_command", required=True)
    # `gen types typescript` (the CLI's older form) or `gen types --lang typescript`, with the CLI's flags.
    gen_types = command(gen_sub, "types", "the Database type of supabase-js (stdout)", cmd_gen_types)
    gen_types.add_argument("language", nargs="?", help="typescript (or --lang typescript)")
    gen_types.add_argument("--lang", help="output language: typescript")
    gen_types.add_argument("--local", action="store_true", help="the local database (the default)")
    gen_types.add_argument("--linked", action="store_true", help="refused: supalite has no linked hosted project")
    gen_types.add_argument("--project-id", help="refused: supalite has no hosted project")
    gen_types.add_argument("--db-url", help="database to read (default: the project's)")
    gen_types.add_argument("-s", "--schema", action="append", default=[],
                           help="schemas to include, comma separated or repeated (default: public and [api] schemas)")
    command(sub, "config", "list every setting", cmd_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "psql":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.psql_args = extra
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request is noise on a terminal
    try:
        workdir = getattr(args, "workdir", None)
        if workdir:
            # Before the settings are read: the project's config.toml is layered under the environment.
            os.environ["SUPALITE_PROJECT_DIR"] = str(Path(workdir).expanduser().resolve())
        if getattr(args, "dev", None):
            # Before too: what a dev server defaults to (GOTRUE_MAILER_AUTOCONFIRM) follows from it.
            os.environ["SUPALITE_DEV"] = "true"
        settings = load_settings()
        data_dir = getattr(args, "data_dir", None)
        settings = settings.with_overrides(
            host=getattr(args, "host", None),
            port=getattr(args, "port", None),
            workers=getattr(args, "workers", None),
            dev=getattr(args, "dev", None),
            data_dir=Path(data_dir).expanduser().resolve() if data_dir else None,
            migrate_on_start=False if getattr(args, "no_migrate", False) else None,
        )
        command: Command = args.func  # each subparser's set_defaults(func=...)
        return command(settings, args)
    except ConfigError as exc:
        print(f"supalite: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
