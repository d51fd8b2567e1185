"""One frozen Config built once from the environment: the only reader of os.environ."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.papers.venues import Scope, VenueError, parse_scope
from bot.state import postgres


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable and where to get a good value."""


@dataclass(frozen=True)
class Setting:
    """One documented environment variable: its name, default and one line of help."""

    env: str
    default: str
    help: str
    secret: bool = False


# The one table of settings: the README shows it, tests check that each is documented.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "ICML_BOT_DB",
        "~/.local/share/icml-bot/papers.db",
        "The paper index (SQLite). Rebuildable: `icml-bot index` writes it.",
    ),
    Setting(
        "ICML_BOT_STATE",
        "state.db next to ICML_BOT_DB",
        "What users create (digest log, subscriptions, seen events, saves, lists). Survives re-indexing. An SQLite "
        "file, or `postgresql://user:password@host/db` to share it between processes and replicas.",
    ),
    Setting(
        "SLACK_BOT_TOKEN",
        "",
        "Bot token `xoxb-…`: Slack app → OAuth & Permissions → Bot User OAuth Token.",
        secret=True,
    ),
    Setting(
        "SLACK_APP_TOKEN",
        "",
        "App-level token `xapp-…` with `connections:write` for Socket Mode: "
        "Slack app → Basic Information → App-Level Tokens.",
        secret=True,
    ),
    Setting(
        "SLACK_SIGNING_SECRET",
        "",
        "Signing secret for HTTP mode: Slack app → Basic Information → App Credentials → Signing Secret.",
        secret=True,
    ),
    Setting(
        "SLACK_CLIENT_ID",
        "",
        'Many workspaces ("Add to Slack", HTTP mode): Slack app → Basic Information → App Credentials → Client ID.',
    ),
    Setting(
        "SLACK_CLIENT_SECRET",
        "",
        "Client Secret beside the Client ID; with both set, /slack/install installs the app in any workspace.",
        secret=True,
    ),
    Setting(
        "SLACK_REDIRECT_URI",
        "",
        "The OAuth redirect URL, https://<your-host>/slack/oauth_redirect (needed when the app lists several).",
    ),
    Setting("SLACK_API_URL", "https://slack.com/api/", "Web API base URL (GovSlack, corporate proxies, tests)."),
    Setting("ICML_DIGEST_CHANNEL", "", "Channel id (C…) that gets the daily digest; empty: no default digest."),
    Setting("ICML_DIGEST_TIME", "09:00", "Local time of the daily digest, HH:MM (24 h)."),
    Setting("ICML_DIGEST_TZ", "UTC", "IANA time zone of the digest time, e.g. Asia/Seoul."),
    Setting("ICML_DIGEST_SIZE", "3", "Papers per digest (1-10)."),
    Setting("ICML_DIGEST_DAYS", "mon-fri", "Digest days in cron day-of-week syntax: mon-fri, mon-sun, mon,wed,fri."),
    Setting("ICML_DIGEST_GRACE", "6h", "How late a missed digest may still be posted after a restart (e.g. 6h, 90m)."),
    Setting(
        "ICML_DIGEST_TAKEOVER",
        "90s",
        "How soon another process takes over scheduling digests from one that died (its lease is renewed 3x as often).",
    ),
    Setting("ICML_BOT_LOG_LEVEL", "INFO", "Log level: DEBUG, INFO, WARNING, ERROR."),
    Setting(
        "OPENREVIEW_USERNAME",
        "",
        "OpenReview account (e-mail) for `icml-bot fetch`: abstracts, PDFs, TL;DRs and BibTeX need a login.",
    ),
    Setting("OPENREVIEW_PASSWORD", "", "Password of that OpenReview account.", secret=True),
    Setting("OPENREVIEW_BASEURL", "https://api2.openreview.net", "OpenReview API v2 URL (a mirror or proxy; tests)."),
    Setting(
        "ICML_BOT_CACHE",
        "~/.cache/icml-bot",
        "Where `icml-bot fetch` keeps downloaded pages (an interrupted fetch resumes) and the lists it fetched.",
    ),
    Setting(
        "ICML_BOT_SITE_URL",
        "",
        "Conference site (or a mirror) that `icml-bot fetch` and refreshes read; empty: each venue's own, "
        "e.g. https://icml.cc.",
    ),
    Setting(
        "ICML_BOT_VENUES",
        "",
        "Venues searched unless a query names its own (venue:, year:, track:), e.g. icml2026 or "
        "icml2026,icml2024-position or all; empty: ICML 2026 when the index has it, else everything.",
    ),
    Setting(
        "ICML_BOT_REFRESH",
        "off",
        "How often `icml-bot serve` fetches the indexed venues again and swaps in the new index: off, daily, "
        "or a duration of at least 1h such as 6h.",
    ),
)


def setting_help(env: str) -> str:
    """Where to find a setting's value, from the one table above (error messages name it)."""
    return next(s.help for s in SETTINGS if s.env == env)


DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_ITEM = re.compile(r"^(?P<a>[a-z]{3})(?:-(?P<b>[a-z]{3}))?$")


def default_cache_dir(env: Mapping[str, str]) -> Path:
    """The documented default cache: under XDG_CACHE_HOME (~/.cache), never the current directory."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "icml-bot"


def default_db_path(env: Mapping[str, str]) -> Path:
    """The documented default index location: under XDG_DATA_HOME, never the current directory."""
    base = env.get("XDG_DATA_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(base) / "icml-bot" / "papers.db"


def parse_days(value: str, var: str = "ICML_DIGEST_DAYS") -> frozenset[int]:
    """Cron day-of-week syntax (`mon-fri`, `mon,wed,fri`, `*`) to weekday numbers, Monday = 0."""
    text = value.strip().lower()
    if text in ("*", "daily", "mon-sun"):
        return frozenset(range(7))
    days: set[int] = set()
    for item in text.split(","):
        m = _DAY_ITEM.match(item.strip())
        if not m or m["a"] not in DAY_NAMES or (m["b"] and m["b"] not in DAY_NAMES):
            raise ConfigError(f"{var}={value!r} is not a day list: use names like mon-fri, mon-sun or mon,wed,fri")
        a = DAY_NAMES.index(m["a"])
        b = DAY_NAMES.index(m["b"]) if m["b"] else a
        days.update(range(a, b + 1) if a <= b else [*range(a, 7), *range(0, b + 1)])
    return frozenset(days)


def parse_time(value: str, var: str = "ICML_DIGEST_TIME") -> time:
    """`HH:MM` (24 h) to a time."""
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", value)
    if not m or int(m[1]) > 23 or int(m[2]) > 59:
        raise ConfigError(f"{var}={value!r} is not a time: use HH:MM in 24-hour form, e.g. 09:00")
    return time(int(m[1]), int(m[2]))


def parse_tz(value: str, var: str = "ICML_DIGEST_TZ") -> ZoneInfo:
    """An IANA time zone name to a ZoneInfo."""
    try:
        if not value.strip() or value.startswith(("/", ".")) or ".." in value:
            raise ValueError(value)
        return ZoneInfo(value.strip())
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"{var}={value!r} is not an IANA time zone name, e.g. UTC, Europe/Berlin, Asia/Seoul"
        ) from exc


def parse_duration(value: str, var: str = "ICML_DIGEST_GRACE") -> int:
    """`6h`, `90m`, `45s` or plain seconds to seconds."""
    m = re.fullmatch(r"\s*(\d+)\s*([hms]?)\s*", value.lower())
    if not m:
        raise ConfigError(f"{var}={value!r} is not a duration: use e.g. 6h, 90m or 3600")
    return int(m[1]) * {"h": 3600, "m": 60, "s": 1, "": 1}[m[2]]


def parse_takeover(value: str) -> int:
    """ICML_DIGEST_TAKEOVER: a duration of at least 3 s (the lease is renewed every third of it)."""
    seconds = parse_duration(value, "ICML_DIGEST_TAKEOVER")
    if seconds < 3:
        raise ConfigError(f"ICML_DIGEST_TAKEOVER={value!r} is too short: use at least 3s (the default is 90s)")
    return seconds


def parse_size(value: str, var: str = "ICML_DIGEST_SIZE") -> int:
    """Papers per digest: a whole number from 1 to 10 (Slack's 50-block limit leaves room for 10)."""
    if not value.strip().isdigit() or not 1 <= int(value) <= 10:
        raise ConfigError(f"{var}={value!r} is not a number of papers from 1 to 10")
    return int(value)


# The conference site and OpenReview are shared public services: at most one fetch an hour
MIN_REFRESH = 3600


def parse_refresh(value: str, var: str = "ICML_BOT_REFRESH") -> int | None:
    """`off` (or empty) → None, `daily` → 86400, `6h` → 21600: seconds between refreshes."""
    text = value.strip().lower()
    if text in ("", "off", "no", "never", "0"):
        return None
    if text == "daily":
        return 86400
    if text == "hourly":
        return 3600
    seconds = parse_duration(text, var)
    if seconds < MIN_REFRESH:
        raise ConfigError(f"{var}={value!r} is too often: use off, daily or a duration of at least 1h, e.g. 6h")
    return seconds


def parse_state_url(url: str) -> str:
    """A PostgreSQL URL libpq can use, or ConfigError saying what is wrong with it (never its password)."""
    problem = postgres.url_problem(url)
    if problem:
        raise ConfigError(f"ICML_BOT_STATE={postgres.redact(url)} is not a PostgreSQL URL the bot can use: {problem}")
    return url


def parse_venues(value: str, var: str = "ICML_BOT_VENUES") -> Scope:
    """`icml2026,icml2024-position`, `all` or empty (automatic) → Scope."""
    try:
        return parse_scope(value)
    except VenueError as exc:
        raise ConfigError(f"{var}={value!r}: {exc}") from None


def default(env: str) -> str:
    """A setting's default, as the table (and so the README) states it."""
    return _BY_NAME[env].default


_BY_NAME = {s.env: s for s in SETTINGS}
# The table's defaults, parsed once: Config's field defaults, so they can never disagree with what the README shows.
DEFAULT_DIGEST_TIME = parse_time(default("ICML_DIGEST_TIME"))
DEFAULT_DIGEST_SIZE = parse_size(default("ICML_DIGEST_SIZE"))
DEFAULT_DIGEST_DAYS = parse_days(default("ICML_DIGEST_DAYS"))
DEFAULT_DIGEST_GRACE = parse_duration(default("ICML_DIGEST_GRACE"))
DEFAULT_DIGEST_TAKEOVER = parse_duration(default("ICML_DIGEST_TAKEOVER"), "ICML_DIGEST_TAKEOVER")


# Fields holding a password, token or secret (the database URL may carry a password).
SECRET_FIELDS = frozenset(
    ("state_url", "bot_token", "app_token", "signing_secret", "client_secret", "openreview_password")
)


def _shown(name: str, value: object) -> str:
    """A setting as repr(Config) shows it: a secret only as <set> or <empty>."""
    if name in SECRET_FIELDS:
        return "<set>" if value else "<empty>"
    return repr(value)


@dataclass(frozen=True)
class Config:
    """Every setting of the bot, validated once; tests build it directly. Defaults come from SETTINGS."""

    db_path: Path
    state_path: Path
    # postgresql://… (holds a password): used instead of state_path
    state_url: str = field(default="", repr=False)
    bot_token: str = ""
    app_token: str = ""
    signing_secret: str = ""
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    redirect_url: str = ""
    api_url: str = default("SLACK_API_URL")
    digest_channel: str = ""
    digest_time: time = DEFAULT_DIGEST_TIME
    digest_tz: ZoneInfo = field(default_factory=lambda: parse_tz(default("ICML_DIGEST_TZ")))
    digest_size: int = DEFAULT_DIGEST_SIZE
    digest_days: frozenset[int] = DEFAULT_DIGEST_DAYS
    digest_grace: int = DEFAULT_DIGEST_GRACE
    digest_takeover: int = DEFAULT_DIGEST_TAKEOVER
    log_level: str = default("ICML_BOT_LOG_LEVEL")
    openreview_username: str = ""
    openreview_password: str = field(default="", repr=False)
    openreview_url: str = default("OPENREVIEW_BASEURL")
    cache_dir: Path = field(default_factory=lambda: default_cache_dir({}))
    site_url: str = ""
    venues: Scope = field(default_factory=Scope)
    refresh: int | None = None  # seconds between refreshes of the index while serving; None: never

    def __repr__(self) -> str:
        """Every setting, each secret only as set or empty: a Config in a log line or a traceback leaks nothing."""
        shown = (f"{f.name}={_shown(f.name, getattr(self, f.name))}" for f in fields(self))
        return f"Config({', '.join(shown)})"

    @property
    def many_workspaces(self) -> bool:
        """Whether the app is installed by OAuth in many workspaces (client id and secret set) instead of one token."""
        return bool(self.client_id and self.client_secret)

    @property
    def state_target(self) -> str | Path:
        """Where State() opens the state: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.state_url or self.state_path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, db: str | os.PathLike[str] | None = None) -> Config:
        """Build from the environment (or a given mapping); `db` (from --db) wins over ICML_BOT_DB."""
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return env.get(name, default(name))

        db_path = Path(db or env.get("ICML_BOT_DB") or default_db_path(env)).expanduser()
        state = env.get("ICML_BOT_STATE", "").strip()
        state_url = parse_state_url(state) if postgres.is_url(state) else ""
        state_path = Path(state).expanduser() if state and not state_url else db_path.with_name("state.db")
        level = get("ICML_BOT_LOG_LEVEL").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError(f"ICML_BOT_LOG_LEVEL={level!r} is not one of DEBUG, INFO, WARNING, ERROR")
        api_url = get("SLACK_API_URL") or default("SLACK_API_URL")
        if not re.match(r"^https?://", api_url):
            raise ConfigError(f"SLACK_API_URL={api_url!r} is not an http(s) URL, e.g. https://slack.com/api/")
        return cls(
            db_path=db_path,
            state_path=state_path,
            state_url=state_url,
            bot_token=get("SLACK_BOT_TOKEN").strip(),
            app_token=get("SLACK_APP_TOKEN").strip(),
            signing_secret=get("SLACK_SIGNING_SECRET").strip(),
            client_id=get("SLACK_CLIENT_ID").strip(),
            client_secret=get("SLACK_CLIENT_SECRET").strip(),
            redirect_url=get("SLACK_REDIRECT_URI").strip(),
            api_url=api_url if api_url.endswith("/") else api_url + "/",
            digest_channel=get("ICML_DIGEST_CHANNEL").strip(),
            digest_time=parse_time(get("ICML_DIGEST_TIME")),
            digest_tz=parse_tz(get("ICML_DIGEST_TZ")),
            digest_size=parse_size(get("ICML_DIGEST_SIZE")),
            digest_days=parse_days(get("ICML_DIGEST_DAYS")),
            digest_grace=parse_duration(get("ICML_DIGEST_GRACE")),
            digest_takeover=parse_takeover(get("ICML_DIGEST_TAKEOVER")),
            log_level=level,
            openreview_username=get("OPENREVIEW_USERNAME").strip(),
            openreview_password=get("OPENREVIEW_PASSWORD"),
            openreview_url=_http_url(
                "OPENREVIEW_BASEURL", (get("OPENREVIEW_BASEURL").strip() or default("OPENREVIEW_BASEURL")).rstrip("/")
            ),
            cache_dir=Path(cache).expanduser() if (cache := env.get("ICML_BOT_CACHE")) else default_cache_dir(env),
            site_url=_http_url("ICML_BOT_SITE_URL", site).rstrip("/")
            if (site := get("ICML_BOT_SITE_URL").strip())
            else "",
            venues=parse_venues(get("ICML_BOT_VENUES")),
            refresh=parse_refresh(get("ICML_BOT_REFRESH")),
        )


def _http_url(var: str, value: str) -> str:
    """An http(s) URL, or ConfigError naming the variable."""
    if not re.match(r"^https?://[^/\s]", value):
        raise ConfigError(f"{var}={value!r} is not an http(s) URL, e.g. {default(var) or 'https://icml.cc'}")
    return value
