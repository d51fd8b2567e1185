"""The team layer's buttons (Save, Unsave, Add to channel list, More/Less like this, list paging) and their values.

A Save on a message only its reader sees (search results, similar papers, `/icml saved`) confirms in place: the
button's value names the paper and the view it sits in (an `Origin`), so the click can rebuild that view with the
button turned to `Saved`. On messages everyone sees (digests, thread answers, shared papers) the button cannot change
for one reader, so the click answers that reader alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from bot.slack.blocks.kit import MAX_BUTTON_VALUE, button

ACTION_SAVE = "paper_save"
ACTION_UNSAVE = "paper_unsave"
ACTION_LIST_ADD = "list_add"
ACTION_LIST_REMOVE = "list_remove"
ACTION_MORE_LIKE = "digest_more"
ACTION_LESS_LIKE = "digest_less"
ACTION_SAVED_PAGE = "saved_page"
ACTION_LIST_PAGE = "list_page"
ACTION_HOME_SIMILAR = "home_similar"
TEAM_ACTION_IDS = (
    ACTION_SAVE,
    ACTION_UNSAVE,
    ACTION_LIST_ADD,
    ACTION_LIST_REMOVE,
    ACTION_MORE_LIKE,
    ACTION_LESS_LIKE,
    ACTION_SAVED_PAGE,
    ACTION_LIST_PAGE,
    ACTION_HOME_SIMILAR,
)

Kind = Literal["search", "similar", "paper", "random", "abstract", "saved", "list", "home", "digest"]
_CODES: dict[str, Kind] = {
    "s": "search",
    "m": "similar",
    "p": "paper",
    "r": "random",
    "a": "abstract",
    "v": "saved",
    "l": "list",
    "h": "home",
    "d": "digest",  # the reply to a Save on a digest: its Unsave also takes back the channel's +1
}
_KINDS = {kind: code for code, kind in _CODES.items()}


@dataclass(frozen=True)
class Origin:
    """The view a button sits in, enough to build it again: a search page, a paper's similar papers, one paper …"""

    kind: Kind
    arg: str = ""  # the query (search) or the paper id (similar, paper, random, abstract)
    offset: int = 0  # the page (search, saved, list)

    def encode(self) -> list[Any]:
        """A compact JSON form for a button value."""
        return [_KINDS[self.kind], self.arg, self.offset]

    @classmethod
    def decode(cls, raw: object) -> Origin | None:
        """The origin from its JSON form, or None for anything else."""
        if not isinstance(raw, list) or len(raw) != 3 or raw[0] not in _CODES:
            return None
        try:
            offset = int(raw[2])
        except (TypeError, ValueError):
            return None
        return cls(_CODES[raw[0]], str(raw[1]), max(offset, 0))


@dataclass(frozen=True)
class PaperClick:
    """What a team button's value says: the paper, and the view to rebuild in place (None on shared messages)."""

    paper_id: str
    origin: Origin | None = None


def paper_value(paper_id: str, origin: Origin | None = None) -> str:
    """A button value naming a paper and its view; a long query is cut so the value fits Slack's 2,000 characters."""
    if origin is None:
        return paper_id
    arg = origin.arg
    while True:
        data = {"p": paper_id, "v": Origin(origin.kind, arg, origin.offset).encode()}
        value = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        # Never markup
        value = value.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        if len(value) <= MAX_BUTTON_VALUE or not arg:
            return value
        arg = arg[: len(arg) - (len(value) - MAX_BUTTON_VALUE) - 1]


def parse_paper_value(value: str) -> PaperClick | None:
    """The paper (and view) a team button names: a bare paper id, or our JSON; None for an empty value."""
    value = value.strip()
    if value.startswith("{"):
        try:
            data = json.loads(value)
        except ValueError:
            return None
        if not isinstance(data, dict) or not str(data.get("p") or "").strip():
            return None
        return PaperClick(str(data["p"]).strip(), Origin.decode(data.get("v")))
    return PaperClick(value) if value else None


def parse_offset(value: str) -> int | None:
    """The page offset of a paging button, or None when the value is not one."""
    try:
        offset = int(value)
    except ValueError:
        return None
    return offset if offset >= 0 else None


UNSAVE_CONFIRM = {
    "title": {"type": "plain_text", "text": "Unsave this paper?"},
    "text": {"type": "plain_text", "text": "It leaves your saved papers (/icml saved). You can save it again."},
    "confirm": {"type": "plain_text", "text": "Unsave"},
    "deny": {"type": "plain_text", "text": "Keep it"},
}


def save_button(paper_id: str, saved: bool = False, origin: Origin | None = None) -> dict[str, Any]:
    """`Save`, or `Saved` for a paper the reader saved: pressing that offers `Unsave` (a confirmation dialog)."""
    value = paper_value(paper_id, origin)
    if not saved:
        return button("Save", ACTION_SAVE, value)
    return {**button("Saved", ACTION_UNSAVE, value, style="primary"), "confirm": UNSAVE_CONFIRM}


def unsave_button(paper_id: str, origin: Origin | None = None) -> dict[str, Any]:
    """An explicit `Unsave` (in `/icml saved` and the Home tab, where every paper is a saved one)."""
    return button("Unsave", ACTION_UNSAVE, paper_value(paper_id, origin))


def list_add_button(paper_id: str) -> dict[str, Any]:
    """`Add to channel list`, on papers everyone in a channel sees."""
    return button("Add to channel list", ACTION_LIST_ADD, paper_id)


def feedback_buttons(paper_id: str) -> list[dict[str, Any]]:
    """`More like this` / `Less like this` under a digest paper."""
    return [button("More like this", ACTION_MORE_LIKE, paper_id), button("Less like this", ACTION_LESS_LIKE, paper_id)]
