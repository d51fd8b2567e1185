"""The Slack Web API methods the bot calls, answered from an in-memory workspace (channels, messages, threads).

``WebApi`` knows nothing about HTTP: FakeSlack parses a request, checks it against the fault plan and asks
``refuse()`` and ``answer()`` what Slack would say. Unknown methods answer ``{"ok": true}``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["DEFAULT_SCOPES", "DEFAULT_TOKENS", "WebApi"]

DEFAULT_TOKENS = frozenset({"xoxb-test", "xapp-test"})
DEFAULT_SCOPES = "commands,chat:write,chat:write.public,app_mentions:read,channels:history,groups:history"
_TEXT_FIELDS = ("text", "blocks", "attachments")

Answer = tuple[int, dict[str, Any], dict[str, str]]  # HTTP status, JSON body, extra headers


def _now_ts(micros: int) -> str:
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def _ts_key(ts: Any) -> Decimal:
    try:
        return Decimal(str(ts))
    except (InvalidOperation, ValueError):
        return Decimal(0)


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


class WebApi:
    """The workspace behind the fake's ``/api/`` endpoint: who the bot is, and what each channel holds."""

    def __init__(
        self,
        cond: threading.Condition,
        socket_url: Callable[[], str],
        tokens: set[str] | frozenset[str] | None = None,
        *,
        bot_user_id: str = "UBOT",
        bot_id: str = "BBOT",
        team_id: str = "T1",
        team_domain: str = "icml-test",
        app_id: str = "A1",
        bot_name: str = "icml-bot",
        scopes: str = DEFAULT_SCOPES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cond = cond
        self._socket_url = socket_url
        self.tokens = set(DEFAULT_TOKENS if tokens is None else tokens)
        # Bot tokens handed out by oauth.v2.access → their workspace
        self.token_teams: dict[str, str] = {}
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.team_id = team_id
        self.team_domain = team_domain
        self.app_id = app_id
        self.bot_name = bot_name
        self.scopes = scopes
        self._clock = clock
        self._messages: dict[str, list[dict[str, Any]]] = {}
        self._channels: dict[str, dict[str, Any]] = {}
        self._last_ts = 0
        # Further methods answered by other parts (slack_files: uploads, DMs, Home views), by method name.
        self.more: dict[str, Callable[[str, dict[str, Any]], Answer]] = {}

    def clear(self) -> None:
        """Forget every message and channel override."""
        with self._cond:
            self._messages.clear()
            self._channels.clear()
            self._last_ts = 0

    # ------------------------------------------------------------------ test setup

    def set_thread(self, channel: str, ts: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Preload a thread (parent first) returned by conversations.replies; missing ts/thread_ts are filled in."""
        stored = []
        with self._cond:
            for i, message in enumerate(messages):
                msg = {"type": "message", **message}
                if "ts" not in msg:
                    msg["ts"] = ts if i == 0 else self._next_ts()
                msg.setdefault("thread_ts", ts)
                if msg["ts"] == ts:
                    msg.setdefault("reply_count", len(messages) - 1)
                stored.append(msg)
                self._store_message(channel, msg)
        return stored

    def add_message(self, channel: str, message: dict[str, Any]) -> dict[str, Any]:
        """Preload one channel message (seen by conversations.history); returns it with its ts."""
        with self._cond:
            msg = {"type": "message", **message}
            msg.setdefault("ts", self._next_ts())
            self._store_message(channel, msg)
        return msg

    def set_channel(self, channel: str, **info: Any) -> None:
        """Override fields conversations.info returns for ``channel`` (e.g. ``is_member=False``: chat.postMessage there
        then answers not_in_channel, or channel_not_found when it is also ``is_private``)."""
        with self._cond:
            self._channels.setdefault(channel, {}).update(info)

    def history(self, channel: str) -> list[dict[str, Any]]:
        """All stored messages of a channel (posts, preloads, thread replies), oldest first."""
        with self._cond:
            return sorted((dict(m) for m in self._messages.get(channel, [])), key=lambda m: _ts_key(m["ts"]))

    # ------------------------------------------------------------------ answering

    def refuse(self, method: str, token: str) -> dict[str, Any] | None:
        """Slack's error for a missing, unknown or wrong kind of token; None when the token may call ``method``."""
        if not token or token not in self.tokens:
            return {"ok": False, "error": "invalid_auth"}
        # App-level tokens (xapp-) open Socket Mode connections; bot tokens cannot, and xapp- cannot post.
        if method == "apps.connections.open":
            allowed = token.startswith("xapp-")
        else:
            allowed = not token.startswith("xapp-") or method.startswith("apps.") or method == "auth.test"
        return None if allowed else {"ok": False, "error": "not_allowed_token_type"}

    def answer(self, method: str, params: dict[str, Any], token: str = "") -> Answer:
        """What Slack answers an authorised call of ``method`` (made with ``token``)."""
        with self._cond:
            return self._answer(method, params, str(params.get("channel") or ""), token)

    def _answer(self, method: str, params: dict[str, Any], channel: str, token: str = "") -> Answer:
        if method == "auth.test":
            payload: dict[str, Any] = {
                "ok": True,
                "url": f"https://{self.team_domain}.slack.com/",
                "team": "ICML Test",
                "user": self.bot_name,
                "team_id": self.token_teams.get(token, self.team_id),
                "user_id": self.bot_user_id,
                "bot_id": self.bot_id,
                "is_enterprise_install": False,
            }
            return 200, payload, {"x-oauth-scopes": self.scopes, "x-accepted-oauth-scopes": ""}
        if method == "apps.connections.open":
            ticket = uuid.uuid4()
            return 200, {"ok": True, "url": f"{self._socket_url()}/?ticket={ticket}&app_id={self.app_id}"}, {}
        if method in ("chat.postMessage", "chat.postEphemeral", "chat.update") and not channel:
            return 200, {"ok": False, "error": "channel_not_found"}, {}
        if method == "chat.postMessage":
            if not any(params.get(k) for k in _TEXT_FIELDS):
                return 200, {"ok": False, "error": "no_text"}, {}
            # No chat:write.public
            if not channel.startswith(("D", "U", "W")) and not self.is_member(channel):
                error = "channel_not_found" if self._info(channel)["is_private"] else "not_in_channel"
                return 200, {"ok": False, "error": error}, {}
            ts = self._next_ts()
            msg = self._bot_message(params, ts)
            self._store_message(channel, msg)
            return 200, {"ok": True, "channel": channel, "ts": ts, "message": dict(msg)}, {}
        if method == "chat.postEphemeral":
            if not params.get("user"):
                return 200, {"ok": False, "error": "user_not_in_channel"}, {}
            if not any(params.get(k) for k in _TEXT_FIELDS):
                return 200, {"ok": False, "error": "no_text"}, {}
            return 200, {"ok": True, "message_ts": self._next_ts()}, {}
        if method == "chat.update":
            return self._update(channel, params)
        if method == "chat.delete":
            ts = str(params.get("ts") or "")
            msgs = self._messages.get(channel, [])
            if not any(m.get("ts") == ts for m in msgs):
                return 200, {"ok": False, "error": "message_not_found"}, {}
            msgs[:] = [m for m in msgs if m.get("ts") != ts]
            return 200, {"ok": True, "channel": channel, "ts": ts}, {}
        if method == "conversations.history":
            return 200, self._history(channel, params), {}
        if method == "conversations.replies":
            return 200, self._replies(channel, params), {}
        if method == "conversations.info":
            return 200, {"ok": True, "channel": self._info(channel)}, {}
        if method == "chat.getPermalink":
            return 200, self._permalink(channel, str(params.get("message_ts") or "")), {}
        if method == "chat.unfurl":
            return 200, self._unfurl(channel, params), {}
        if method in self.more:
            return self.more[method](method, params)
        return 200, {"ok": True}, {}

    def is_member(self, channel: str) -> bool:
        """Whether the bot is in `channel` (set_channel(channel, is_member=False) takes it out)."""
        return bool(self._info(channel)["is_member"])

    # ------------------------------------------------------------------ methods

    def _update(self, channel: str, params: dict[str, Any]) -> Answer:
        ts = str(params.get("ts") or "")
        if not ts:
            return 200, {"ok": False, "error": "message_not_found"}, {}
        msg = next((m for m in self._messages.get(channel, []) if m.get("ts") == ts), None)
        if msg is None:
            msg = self._bot_message(params, ts)
        else:
            for key in ("text", "blocks", "attachments", "metadata"):
                if key in params:
                    msg[key] = params[key]
            msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        text = params.get("text", msg.get("text", ""))
        return 200, {"ok": True, "channel": channel, "ts": ts, "text": text, "message": dict(msg)}, {}

    def _info(self, channel: str) -> dict[str, Any]:
        info = {
            "id": channel,
            "name": channel.lower(),
            "is_channel": True,
            "is_group": False,
            "is_im": False,
            "is_mpim": False,
            "is_private": False,
            "is_archived": False,
            "is_general": False,
            "is_member": True,
            "created": 1600000000,
            "creator": "U0",
            "context_team_id": self.team_id,
        }
        info.update(self._channels.get(channel, {}))
        return info

    def _permalink(self, channel: str, ts: str) -> dict[str, Any]:
        """chat.getPermalink: Slack's link form, `https://<domain>.slack.com/archives/<channel>/p<ts without dot>`."""
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not ts:
            return {"ok": False, "error": "message_not_found"}
        link = f"https://{self.team_domain}.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}

    @staticmethod
    def _unfurl(channel: str, params: dict[str, Any]) -> dict[str, Any]:
        """chat.unfurl: `channel` with `ts`, or `unfurl_id` with `source`, and a map of URLs to unfurls."""
        by_message = bool(channel and params.get("ts"))
        by_link = bool(params.get("unfurl_id") and params.get("source") in ("composer", "conversations_history"))
        if not (by_message or by_link) or (channel and params.get("unfurl_id")):
            return {"ok": False, "error": "invalid_arguments"}
        unfurls = params.get("unfurls")
        if not isinstance(unfurls, dict) or not unfurls or not all(isinstance(u, dict) for u in unfurls.values()):
            return {"ok": False, "error": "invalid_unfurls_format"}
        return {"ok": True}

    @staticmethod
    def _window(params: dict[str, Any]) -> tuple[Decimal, Decimal, bool, int]:
        oldest = _ts_key(params.get("oldest") or 0)
        latest = _ts_key(params.get("latest")) if params.get("latest") else Decimal("Infinity")
        inclusive = _truthy(params.get("inclusive"))
        limit = int(params.get("limit") or 100)
        return oldest, latest, inclusive, max(limit, 1)

    def _history(self, channel: str, params: dict[str, Any]) -> dict[str, Any]:
        oldest, latest, inclusive, limit = self._window(params)
        msgs = []
        for m in self._messages.get(channel, []):
            is_reply = m.get("thread_ts") not in (None, m.get("ts"))
            if is_reply and not m.get("reply_broadcast"):
                continue  # thread replies only show up in conversations.replies
            key = _ts_key(m["ts"])
            if (oldest < key < latest) or (inclusive and key in (oldest, latest)):
                msgs.append(dict(m))
        msgs.sort(key=lambda m: _ts_key(m["ts"]), reverse=True)
        return {
            "ok": True,
            "messages": msgs[:limit],
            "has_more": len(msgs) > limit,
            "pin_count": 0,
            "channel_actions_ts": None,
            "channel_actions_count": 0,
            "response_metadata": {"next_cursor": ""},
        }

    def _replies(self, channel: str, params: dict[str, Any]) -> dict[str, Any]:
        ts = str(params.get("ts") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        msgs = [dict(m) for m in self._messages.get(channel, []) if m.get("ts") == ts or m.get("thread_ts") == ts]
        if not msgs:
            return {"ok": False, "error": "thread_not_found"}
        msgs.sort(key=lambda m: _ts_key(m["ts"]))
        _, _, _, limit = self._window(params)
        return {
            "ok": True,
            "messages": msgs[:limit],
            "has_more": len(msgs) > limit,
            "response_metadata": {"next_cursor": ""},
        }

    # ------------------------------------------------------------------ storage

    def _next_ts(self) -> str:
        micros = max(int(self._clock() * 1_000_000), self._last_ts + 100)
        self._last_ts = micros
        return _now_ts(micros)

    def _store_message(self, channel: str, msg: dict[str, Any]) -> None:
        msgs = self._messages.setdefault(channel, [])
        msgs[:] = [m for m in msgs if m.get("ts") != msg["ts"]]
        msgs.append(msg)

    def _bot_message(self, params: dict[str, Any], ts: str) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "message",
            "subtype": "bot_message" if params.get("username") else None,
            "text": params.get("text", ""),
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "team": self.team_id,
            "ts": ts,
        }
        for key in ("blocks", "attachments", "thread_ts", "metadata"):
            if params.get(key) not in (None, ""):
                msg[key] = params[key]
        if _truthy(params.get("reply_broadcast")):
            msg["reply_broadcast"] = True
        return {k: v for k, v in msg.items() if v is not None}
