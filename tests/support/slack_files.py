"""The fake's file uploads, DMs, Home tabs and modals: files.getUploadURLExternal, the upload URL itself (served by
the fake, which keeps the bytes), files.completeUploadExternal, conversations.open, views.publish and views.open.

Answers follow Slack's documented shapes and errors; what the app sent is kept for tests: ``shared()`` gives each
file shared to a channel with its bytes, ``home(user)`` the Home view last published for a user, ``modals()`` the
modals opened.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_HOME_BLOCKS", "SharedFile", "TeamSurfaces"]

Answer = tuple[int, dict[str, Any], dict[str, str]]
MAX_HOME_BLOCKS = 100  # views.publish refuses a Home view with more (invalid_arguments)
MAX_VIEW_BYTES = 250_000  # views.publish: view_too_large
MAX_MODAL_TITLE = 24  # a modal's title, submit and close labels


@dataclass
class SharedFile:
    """One file the app uploaded: its name, title, bytes and where it was shared (None: uploaded, never shared)."""

    id: str
    filename: str
    length: int
    content: bytes | None = None
    title: str = ""
    channel: str | None = None
    initial_comment: str = ""
    thread_ts: str | None = None
    completed: bool = False

    @property
    def text(self) -> str:
        """The uploaded bytes as UTF-8 text."""
        return (self.content or b"").decode("utf-8")


@dataclass
class _Home:
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    publishes: dict[str, int] = field(default_factory=dict)


class TeamSurfaces:
    """Uploads, DMs and Home views of the fake workspace; methods are answered under the fake's one condition."""

    def __init__(self, cond: threading.Condition, base_url: Callable[[], str], is_member: Callable[[str], bool]):
        self._cond = cond
        self._base_url = base_url
        self._is_member = is_member
        self._files: dict[str, SharedFile] = {}
        self._home = _Home()
        self._modals: list[dict[str, Any]] = []
        self._triggers: set[str] = set()  # trigger_ids used: each opens one view
        self._next = 0

    def clear(self) -> None:
        """Forget every file, Home view and modal."""
        with self._cond:
            self._files.clear()
            self._home = _Home()
            self._modals.clear()
            self._triggers.clear()

    # ------------------------------------------------------------------ for tests

    def shared(self, channel: str | None = None) -> list[SharedFile]:
        """Files completed (shared) by the app, oldest first, optionally only those shared to `channel`."""
        with self._cond:
            done = [f for f in self._files.values() if f.completed]
            return [f for f in done if channel is None or f.channel == channel]

    def home(self, user: str) -> dict[str, Any] | None:
        """The Home view last published for `user`, or None."""
        with self._cond:
            return self._home.views.get(user)

    def modals(self) -> list[dict[str, Any]]:
        """The modals views.open opened, oldest first."""
        with self._cond:
            return list(self._modals)

    def home_publishes(self, user: str) -> int:
        """How many times a Home view was published for `user`."""
        with self._cond:
            return self._home.publishes.get(user, 0)

    # ------------------------------------------------------------------ answering

    METHODS = (
        "files.getUploadURLExternal",
        "files.completeUploadExternal",
        "conversations.open",
        "views.publish",
        "views.open",
    )

    def answer(self, method: str, params: dict[str, Any]) -> Answer:
        """Slack's answer to one of METHODS (the caller holds the condition)."""
        if method == "files.getUploadURLExternal":
            return 200, self._get_upload_url(params), {}
        if method == "files.completeUploadExternal":
            return 200, self._complete(params), {}
        if method == "conversations.open":
            users = str(params.get("users") or "")
            if not users:
                return 200, {"ok": False, "error": "users_list_not_supplied"}, {}
            return 200, {"ok": True, "channel": {"id": "D" + users.split(",")[0].lstrip("UW")}}, {}
        if method == "views.open":
            return 200, self._open(params), {}
        return 200, self._publish(params), {}

    def upload(self, file_id: str, data: bytes) -> tuple[int, str]:
        """A POST of the file's bytes to its upload URL: (HTTP status, body)."""
        with self._cond:
            found = self._files.get(file_id)
            if found is None or found.content is not None:
                return 404, "not found"
            found.content = data
            return 200, f"OK - {len(data)}"

    def _get_upload_url(self, params: dict[str, Any]) -> dict[str, Any]:
        filename = str(params.get("filename") or "")
        try:
            length = int(params.get("length") or 0)
        except ValueError:
            length = 0
        if not filename or length <= 0:
            return {"ok": False, "error": "invalid_arguments"}
        self._next += 1
        file_id = f"F{self._next:08d}"
        self._files[file_id] = SharedFile(file_id, filename, length)
        return {"ok": True, "upload_url": f"{self._base_url()}upload/{file_id}", "file_id": file_id}

    def _complete(self, params: dict[str, Any]) -> dict[str, Any]:
        raw = params.get("files")
        try:
            wanted = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            wanted = None
        if not isinstance(wanted, list) or not wanted:
            return {"ok": False, "error": "invalid_arguments"}
        channel = str(params.get("channel_id") or "") or None
        if channel and not channel.startswith("D") and not self._is_member(channel):
            return {"ok": False, "error": "not_in_channel"}
        files = [self._files.get(str(f.get("id"))) for f in wanted]
        if any(f is None or f.content is None or f.completed for f in files):
            return {"ok": False, "error": "file_not_found"}
        done = []
        for spec, found in zip(wanted, files, strict=True):
            assert found is not None
            if len(found.content or b"") != found.length:
                return {"ok": False, "error": "file_upload_size_mismatch"}
            found.title = str(spec.get("title") or found.filename)
            found.channel = channel
            found.initial_comment = str(params.get("initial_comment") or "")
            found.thread_ts = params.get("thread_ts") or None
            found.completed = True
            done.append(
                {"id": found.id, "name": found.filename, "title": found.title, "channels": [channel] if channel else []}
            )
        return {"ok": True, "files": done}

    def _open(self, params: dict[str, Any]) -> dict[str, Any]:
        """views.open: a modal for a trigger_id not used before (Slack: each trigger opens one view, within ~3 s)."""
        trigger = str(params.get("trigger_id") or "")
        view = params.get("view")
        if isinstance(view, str):
            try:
                view = json.loads(view)
            except json.JSONDecodeError:
                view = None
        if not trigger:
            return {"ok": False, "error": "invalid_arguments"}
        if trigger in self._triggers:
            return {"ok": False, "error": "exchanged_trigger_id"}
        if not isinstance(view, dict) or view.get("type") != "modal" or not view.get("blocks"):
            return {"ok": False, "error": "invalid_arguments"}
        labels = [view.get(k) or {} for k in ("title", "submit", "close")]
        if any(len(str(label.get("text") or "")) > MAX_MODAL_TITLE for label in labels) or not labels[0]:
            return {"ok": False, "error": "invalid_arguments"}
        if len(view["blocks"]) > MAX_HOME_BLOCKS or len(json.dumps(view)) > MAX_VIEW_BYTES:
            return {"ok": False, "error": "invalid_arguments"}
        self._triggers.add(trigger)
        self._modals.append(view)
        self._next += 1
        return {"ok": True, "view": {"id": f"V{self._next:08d}", **view, "state": {"values": {}}}}

    def _publish(self, params: dict[str, Any]) -> dict[str, Any]:
        user = str(params.get("user_id") or "")
        view = params.get("view")
        if isinstance(view, str):
            try:
                view = json.loads(view)
            except json.JSONDecodeError:
                view = None
        if not user or not isinstance(view, dict) or view.get("type") != "home":
            return {"ok": False, "error": "invalid_arguments"}
        if len(view.get("blocks") or []) > MAX_HOME_BLOCKS:
            return {"ok": False, "error": "invalid_arguments"}
        if len(json.dumps(view)) > MAX_VIEW_BYTES:
            return {"ok": False, "error": "view_too_large"}
        self._home.views[user] = view
        self._home.publishes[user] = self._home.publishes.get(user, 0) + 1
        return {"ok": True, "view": {"id": f"V{user}", "type": "home", **view}}
