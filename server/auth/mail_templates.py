"""Auth mail templates, as GoTrue reads them: a subject and an HTML body per type.

Types are the Supabase CLI's ([auth.email.template.<type>]): invite, confirmation, recovery,
magic_link, email_change, reauthentication. For each, in this order:
- GOTRUE_MAILER_SUBJECTS_<TYPE> / GOTRUE_MAILER_TEMPLATES_<TYPE> (config.toml's `subject` and
  `content_path` set them). GoTrue fetches the template from a URL; supalite also takes a file
  path (relative: to the project dir).
- the mail templates folder (SUPALITE_MAIL_TEMPLATES_DIR, default mail/ in the project dir):
  `<type>.html`, and the subjects in `subjects.toml` (`recovery = "..."`). A project without
  that folder keeps GoTrue's mails.
- GoTrue's own English defaults (internal/mailer/template.go).

Bodies are Go templates (server.auth.gotemplate) over GoTrue's variables: ConfirmationURL,
Token, TokenHash, SiteURL, Email, NewEmail, RedirectTo, Data. Everything is read and parsed
once, at start: a missing file or a template that does not parse stops `supalite serve` with
one line naming the setting; a template URL that does not answer is a warning and GoTrue's
default, as GoTrue falls back when its fetch fails.
"""

from __future__ import annotations

import html
import re
import tomllib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from server.auth.gotemplate import Template, TemplateError
from server.core.config import ConfigError, Settings

TYPES = ("invite", "confirmation", "recovery", "magic_link", "email_change", "reauthentication")
# The server's mail kinds (the verify types) by template type.
KIND_TYPES = {"invite": "invite", "signup": "confirmation", "recovery": "recovery", "magiclink": "magic_link",
              "email_change": "email_change", "reauthentication": "reauthentication"}
SUBJECTS_FILE = "subjects.toml"
DEFAULT_DIR = Path("mail")

# GoTrue's defaults (subjects as its TemplateMailer's withDefault, bodies as template.go).
DEFAULT_SUBJECTS = {
    "invite": "You have been invited",
    "confirmation": "Confirm Your Signup",
    "recovery": "Reset Your Password",
    "magic_link": "Your Magic Link",
    "email_change": "Confirm Email Change",
    "reauthentication": "Confirm reauthentication",
}
DEFAULT_BODIES = {
    "invite": """<h2>You have been invited</h2>

<p>You have been invited to create a user on {{ .SiteURL }}. Follow this link to accept the invite:</p>
<p><a href="{{ .ConfirmationURL }}">Accept the invite</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>""",
    "confirmation": """<h2>Confirm your signup</h2>

<p>Follow this link to confirm your user:</p>
<p><a href="{{ .ConfirmationURL }}">Confirm your mail</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>""",
    "recovery": """<h2>Reset Password</h2>

<p>Follow this link to reset the password for your user:</p>
<p><a href="{{ .ConfirmationURL }}">Reset Password</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>""",
    "magic_link": """<h2>Magic Link</h2>

<p>Follow this link to login:</p>
<p><a href="{{ .ConfirmationURL }}">Log In</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>""",
    "email_change": """<h2>Confirm Change of Email</h2>

<p>Follow this link to confirm the update of your email from {{ .Email }} to {{ .NewEmail }}:</p>
<p><a href="{{ .ConfirmationURL }}">Change Email</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>""",
    "reauthentication": """<h2>Confirm reauthentication</h2>

<p>Enter the code: {{ .Token }}</p>""",
}
URL_TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class MailTemplate:
    subject: Template
    body: Template
    source: str  # where the body came from: "GoTrue's default", a path or a URL


@dataclass(frozen=True)
class MailTemplates:
    by_type: dict[str, MailTemplate]
    warnings: tuple[str, ...] = ()

    def render(self, kind: str, data: dict[str, object]) -> tuple[str, str, str]:
        """(subject, text, html) of the mail of `kind` (a verify type: signup, magiclink...)."""
        template = self.by_type[KIND_TYPES[kind]]
        body = template.body.render(data)
        return template.subject.render(data, escape=False).strip(), html_to_text(body), body


def templates_dir(settings: Settings) -> Path:
    folder = settings.mail_templates_dir
    return folder if folder.is_absolute() else settings.project_dir / folder


def _folder_subjects(folder: Path) -> dict[str, str]:
    path = folder / SUBJECTS_FILE
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"mail templates: cannot read {path}: {exc}") from None
    unknown = sorted(set(data) - set(TYPES))
    if unknown:
        raise ConfigError(f"mail templates: {path}: unknown type {unknown[0]!r} (types: {', '.join(TYPES)})")
    bad = [key for key, value in data.items() if not isinstance(value, str)]
    if bad:
        raise ConfigError(f"mail templates: {path}: {bad[0]} must be a string")
    return data


def _read_file(path: Path, setting: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{setting}: no such file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{setting}: cannot read {path}: {exc}") from None


def _fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=URL_TIMEOUT_SECONDS) as response:  # http(s) only: load() checks
        return str(response.read().decode("utf-8"))


def _parse(source: str, where: str, setting: str) -> Template:
    try:
        return Template(source, where)
    except TemplateError as exc:
        raise ConfigError(f"{setting}: the template does not parse: {exc}") from None


def load(settings: Settings) -> MailTemplates:
    """Every type's template, read and parsed; ConfigError (one line) for what cannot be used."""
    folder = templates_dir(settings)
    if not folder.is_dir() and settings.mail_templates_dir != DEFAULT_DIR:  # the default may be absent
        raise ConfigError(f"SUPALITE_MAIL_TEMPLATES_DIR: no such folder {folder}")
    folder_subjects = _folder_subjects(folder) if folder.is_dir() else {}
    found: dict[str, MailTemplate] = {}
    warnings: list[str] = []
    for kind in TYPES:
        subject_setting = f"GOTRUE_MAILER_SUBJECTS_{kind.upper()}"
        template_setting = f"GOTRUE_MAILER_TEMPLATES_{kind.upper()}"
        subject = getattr(settings, f"mailer_subjects_{kind}") or folder_subjects.get(kind) or DEFAULT_SUBJECTS[kind]
        location = getattr(settings, f"mailer_templates_{kind}").strip()
        body, source = DEFAULT_BODIES[kind], "GoTrue's default"
        if re.match(r"https?://", location):
            try:
                body, source = _fetch(location), location
            except (OSError, ValueError) as exc:
                warnings.append(f"{template_setting}: cannot fetch {location} ({exc}): GoTrue's default {kind} mail")
        elif location:
            path = Path(location).expanduser()
            path = path if path.is_absolute() else settings.project_dir / path
            body, source = _read_file(path, template_setting), str(path)
        elif (folder / f"{kind}.html").is_file():
            path = folder / f"{kind}.html"
            body, source = _read_file(path, "SUPALITE_MAIL_TEMPLATES_DIR"), str(path)
        found[kind] = MailTemplate(_parse(subject, f"{kind} subject", subject_setting),
                                   _parse(body, source, template_setting), source)
    return MailTemplates(found, tuple(warnings))


_BLOCK_END = re.compile(r"<\s*(br\s*/?|/p|/h[1-6]|/div|/li|/tr|/table)\s*>", re.I)
_LINK = re.compile(r"<a\s[^>]*href=\"([^\"]*)\"[^>]*>(.*?)</a\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_STYLE = re.compile(r"<(style|script|head)\b.*?</\1\s*>", re.I | re.S)


def html_to_text(body: str) -> str:
    """The plain-text part of a mail: the HTML's text, a link as `text: URL`."""
    text = _STYLE.sub("", body)
    text = _LINK.sub(lambda m: f"{_TAG.sub('', m[2]).strip()}: {m[1]}", text)
    text = _BLOCK_END.sub("\n", text)
    text = html.unescape(_TAG.sub("", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"
