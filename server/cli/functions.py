"""`supalite functions new <name>` and `supalite functions serve`, as the Supabase CLI names them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from server.core.config import Settings
from server.functions.catalog import functions_dir, is_slug

# The CLI's template (supabase functions new), pointed at this server's port.
TEMPLATE = """\
// Setup type definitions for built-in Supabase Runtime APIs
import "jsr:@supabase/functions-js/edge-runtime.d.ts"

console.log("Hello from Functions!")

Deno.serve(async (req) => {
  const { name } = await req.json()
  const data = {
    message: `Hello ${name}!`,
  }

  return new Response(
    JSON.stringify(data),
    { headers: { "Content-Type": "application/json" } },
  )
})

/* To invoke locally:

  1. Run `supalite start` (or `supalite functions serve`)
  2. Make an HTTP request:

  curl -i --location --request POST '<<URL>>/functions/v1/<<NAME>>' \\
    --header 'Authorization: Bearer <<ANON_KEY>>' \\
    --header 'Content-Type: application/json' \\
    --data '{"name":"Functions"}'

*/
"""


def cmd_functions_new(settings: Settings, args: argparse.Namespace) -> int:
    from server.core.jwt import anon_key

    name: str = args.name
    if not is_slug(name):
        print(f"supalite: error: invalid function name {name!r}: it must start with a letter and hold only "
              "letters, digits, '_' and '-'", file=sys.stderr)
        return 1
    folder = functions_dir(settings) / name
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        print(f"supalite: error: {folder} already exists", file=sys.stderr)
        return 1
    except OSError as exc:  # a slug too long for a folder name, a read-only project...
        print(f"supalite: error: cannot create {folder}: {exc.strerror}", file=sys.stderr)
        return 1
    text = TEMPLATE.replace("<<URL>>", settings.api_url).replace("<<NAME>>", name)
    (folder / "index.ts").write_text(text.replace("<<ANON_KEY>>", anon_key(settings)))
    (folder / "deno.json").write_text(json.dumps({"imports": {}}, indent=2) + "\n")
    print(f"Created new Function at {folder}")
    return 0


def cmd_functions_serve(settings: Settings, args: argparse.Namespace) -> int:
    """The server in the foreground, its functions reloaded as they change, with the CLI's
    --env-file and --no-verify-jwt (handed to the app, which reads its settings from the
    environment, as every worker does)."""
    from server.cli.serve import cmd_serve

    if args.env_file:
        env_file = Path(args.env_file).expanduser().resolve()
        if not env_file.is_file():
            print(f"supalite: error: no env file at {env_file}", file=sys.stderr)
            return 1
        os.environ["SUPALITE_FUNCTIONS_ENV_FILE"] = str(env_file)
        settings = settings.with_overrides(functions_env_file=env_file)
    if args.no_verify_jwt:
        os.environ["SUPALITE_FUNCTIONS_VERIFY_JWT"] = "false"
        settings = settings.with_overrides(functions_verify_jwt=False)
    print(f"Serving functions on {settings.api_url}/functions/v1/<function-name>", flush=True)
    return cmd_serve(settings, args)
