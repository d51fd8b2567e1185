"""The state database's tables: what users create, kept apart from the rebuildable paper index.

Written once for SQLite and PostgreSQL: "user" is quoted (a reserved word in PostgreSQL), and REAL columns become
double precision on PostgreSQL (bot/state/postgres.py).
"""

# ---- digest tables. Times are unix seconds (passed in, never read from the clock here); days are YYYY-MM-DD.
DIGEST_SCHEMA_SUBSCRIPTIONS = """
CREATE TABLE IF NOT EXISTS digest_subscriptions (
    channel TEXT PRIMARY KEY,
    topics TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,                   -- HH:MM local time
    tz TEXT NOT NULL,                   -- IANA name
    days TEXT NOT NULL,                 -- cron day-of-week, e.g. mon-fri
    size INTEGER NOT NULL,
    source TEXT NOT NULL,               -- 'config' (ICML_DIGEST_CHANNEL) or 'slack' (/icml digest subscribe)
    active INTEGER NOT NULL DEFAULT 1,  -- 0 after /icml digest unsubscribe (kept: rounds survive a re-subscribe)
    created_by TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    schedule_from REAL NOT NULL,        -- catch-up never posts for a slot before this (created or schedule changed)
    last_error TEXT,
    last_error_at REAL
)"""
DIGEST_SCHEMA_RUNS = """
CREATE TABLE IF NOT EXISTS digest_runs (
    channel TEXT NOT NULL,
    day TEXT NOT NULL,
    status TEXT NOT NULL,               -- claimed | posted | failed | uncertain | skipped
    papers TEXT NOT NULL DEFAULT '[]',  -- the ids this digest holds, fixed when it is claimed
    round INTEGER NOT NULL DEFAULT 1,
    first INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    owner TEXT NOT NULL DEFAULT '',
    claimed_at REAL NOT NULL,
    first_claimed_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    ts TEXT,
    posted_at REAL,
    error TEXT,
    permanent INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (channel, day)
)"""
DIGEST_SCHEMA_PAPERS = """
CREATE TABLE IF NOT EXISTS digest_papers (
    channel TEXT NOT NULL,
    round INTEGER NOT NULL,
    paper_id TEXT NOT NULL,
    day TEXT NOT NULL,
    posted_at REAL NOT NULL,
    PRIMARY KEY (channel, round, paper_id)
)"""
DIGEST_SCHEMA_LEASES = """
CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
)"""
# Migration 3: rows made before many workspaces belong to the single one ('')
DIGEST_SUBSCRIPTION_TEAM = "ALTER TABLE digest_subscriptions ADD COLUMN team TEXT NOT NULL DEFAULT ''"
# Migration 4: the workspace is part of every digest key (a Slack Connect channel has one id in both workspaces,
# and each workspace that subscribes gets its own digest there). Tables are rebuilt (SQLite cannot change a primary
# key); runs and papers take the team of their channel's subscription; rows without one stay single-workspace ('').
DIGEST_KEYED_SUBSCRIPTIONS = """
CREATE TABLE digest_subscriptions_keyed (
    team TEXT NOT NULL DEFAULT '',      -- the Slack workspace ('' : the single workspace, or not yet adopted)
    enterprise TEXT NOT NULL DEFAULT '',  -- its Enterprise Grid org, if any (org-wide installs hold the bot token)
    channel TEXT NOT NULL,
    topics TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    tz TEXT NOT NULL,
    days TEXT NOT NULL,
    size INTEGER NOT NULL,
    source TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    created_by TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    schedule_from REAL NOT NULL,
    last_error TEXT,
    last_error_at REAL,
    PRIMARY KEY (team, channel)
)"""
DIGEST_KEYED_RUNS = """
CREATE TABLE digest_runs_keyed (
    team TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL,
    day TEXT NOT NULL,
    status TEXT NOT NULL,
    papers TEXT NOT NULL DEFAULT '[]',
    round INTEGER NOT NULL DEFAULT 1,
    first INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    owner TEXT NOT NULL DEFAULT '',
    claimed_at REAL NOT NULL,
    first_claimed_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    ts TEXT,
    posted_at REAL,
    error TEXT,
    permanent INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (team, channel, day)
)"""
DIGEST_KEYED_PAPERS = """
CREATE TABLE digest_papers_keyed (
    team TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL,
    round INTEGER NOT NULL,
    paper_id TEXT NOT NULL,
    day TEXT NOT NULL,
    posted_at REAL NOT NULL,
    PRIMARY KEY (team, channel, round, paper_id)
)"""
_TEAM_OF_CHANNEL = "COALESCE((SELECT s.team FROM digest_subscriptions s WHERE s.channel = old.channel), '')"
DIGEST_KEYED_COPIES = (
    "INSERT INTO digest_runs_keyed (team, channel, day, status, papers, round, first, total, owner, claimed_at, "
    "first_claimed_at, attempts, ts, posted_at, error, permanent) "
    f"SELECT {_TEAM_OF_CHANNEL}, channel, day, status, papers, round, first, total, owner, claimed_at, "
    "first_claimed_at, attempts, ts, posted_at, error, permanent FROM digest_runs old",
    "INSERT INTO digest_papers_keyed (team, channel, round, paper_id, day, posted_at) "
    f"SELECT {_TEAM_OF_CHANNEL}, channel, round, paper_id, day, posted_at FROM digest_papers old",
    "INSERT INTO digest_subscriptions_keyed (team, channel, topics, at, tz, days, size, source, active, created_by, "
    "created_at, updated_at, schedule_from, last_error, last_error_at) "
    "SELECT team, channel, topics, at, tz, days, size, source, active, created_by, created_at, updated_at, "
    "schedule_from, last_error, last_error_at FROM digest_subscriptions",
)
# Each replaced by its _keyed table
DIGEST_KEYED_TABLES = ("digest_runs", "digest_papers", "digest_subscriptions")

# ---- team tables (bot/team), keyed by Slack workspace (`team`). Times are unix seconds, passed in.
TEAM_SCHEMA_SAVES = """
CREATE TABLE IF NOT EXISTS team_saves (
    team TEXT NOT NULL,
    "user" TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    saved_at REAL NOT NULL,
    PRIMARY KEY (team, "user", paper_id)
)"""
TEAM_INDEX_SAVES_NEWEST = (
    'CREATE INDEX IF NOT EXISTS team_saves_newest ON team_saves (team, "user", saved_at DESC, paper_id DESC)'
)
TEAM_SCHEMA_CHANNEL_LIST = """
CREATE TABLE IF NOT EXISTS channel_list (
    team TEXT NOT NULL,
    channel TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    added_by TEXT NOT NULL,
    added_at REAL NOT NULL,
    PRIMARY KEY (team, channel, paper_id)
)"""
TEAM_INDEX_CHANNEL_LIST_NEWEST = (
    "CREATE INDEX IF NOT EXISTS channel_list_newest ON channel_list (team, channel, added_at DESC, paper_id DESC)"
)
TEAM_SCHEMA_DIGEST_FEEDBACK = """
CREATE TABLE IF NOT EXISTS digest_feedback (
    team TEXT NOT NULL,
    channel TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    vote INTEGER NOT NULL CHECK (vote IN (-1, 1)),  -- +1 More like this, -1 Less like this; the latest click wins
    "user" TEXT NOT NULL,
    via TEXT NOT NULL DEFAULT 'button',              -- 'button', or 'save' (a Save from the digest counts as +1)
    at REAL NOT NULL,
    PRIMARY KEY (team, channel, paper_id)
)"""

# ---- a paper's history in each workspace (migration 6): where it was shared or unfurled, who saved it, which
# channel lists hold it. Only that workspace reads its rows; an uninstall deletes them (bot/team/history.py).
TEAM_SCHEMA_PAPER_HISTORY = """
CREATE TABLE IF NOT EXISTS paper_history (
    team TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    kind TEXT NOT NULL,                 -- shared | unfurled | saved | listed
    channel TEXT NOT NULL DEFAULT '',   -- '' for a save (a person's own)
    "user" TEXT NOT NULL DEFAULT '',
    ts TEXT NOT NULL DEFAULT '',        -- the message's ts when known (unfurls): one row per message and paper
    permalink TEXT,
    at REAL NOT NULL,
    PRIMARY KEY (team, paper_id, kind, channel, "user", ts, at)
)"""
TEAM_INDEX_PAPER_HISTORY_NEWEST = "CREATE INDEX IF NOT EXISTS paper_history_newest ON paper_history (team, at DESC)"
# What users made before the history existed: their saves and channel lists are its first rows.
TEAM_HISTORY_FROM_SAVES = (
    'INSERT INTO paper_history (team, paper_id, kind, channel, "user", ts, at) '
    "SELECT team, paper_id, 'saved', '', \"user\", '', saved_at FROM team_saves"
)
TEAM_HISTORY_FROM_LISTS = (
    'INSERT INTO paper_history (team, paper_id, kind, channel, "user", ts, at) '
    "SELECT team, paper_id, 'listed', channel, added_by, '', added_at FROM channel_list"
)

# ---- conference-day reminders (migration 7): who asked for a DM before each saved paper's session, and one row per
# reminder claimed, keyed by the session's start and name, so that no process and no restart sends it twice.
PLAN_SCHEMA_REMINDERS = """
CREATE TABLE IF NOT EXISTS plan_reminders (
    team TEXT NOT NULL,
    "user" TEXT NOT NULL,
    minutes INTEGER NOT NULL,           -- how long before a session starts
    tz TEXT NOT NULL DEFAULT '',        -- the person's Slack time zone when they opted in (the DM's times)
    created_at REAL NOT NULL,
    PRIMARY KEY (team, "user")
)"""
PLAN_SCHEMA_REMINDERS_SENT = """
CREATE TABLE IF NOT EXISTS plan_reminders_sent (
    team TEXT NOT NULL,
    "user" TEXT NOT NULL,
    session TEXT NOT NULL,              -- the session's start (UTC) and name: a moved session is another reminder
    due_at REAL NOT NULL,
    status TEXT NOT NULL,               -- claimed | sent | uncertain (maybe sent: never sent again)
    owner TEXT NOT NULL DEFAULT '',
    claimed_at REAL NOT NULL,
    channel TEXT,
    ts TEXT,
    error TEXT,
    PRIMARY KEY (team, "user", session)
)"""

# ---- "today at <venue>" digests (migration 8): a channel's switch, and which venue a day's digest was about ('' for
# the round's digest), so a digest resumed after a crash is rebuilt as the same kind.
DIGEST_SUBSCRIPTION_TODAY = "ALTER TABLE digest_subscriptions ADD COLUMN today INTEGER NOT NULL DEFAULT 0"
DIGEST_RUN_VENUE = "ALTER TABLE digest_runs ADD COLUMN venue TEXT NOT NULL DEFAULT ''"
