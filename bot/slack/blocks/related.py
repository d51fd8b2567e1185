"""The "Find related papers" shortcut's messages and modal: papers related to a message, each with why, a BibTeX
button for all of them, the modal a pasted text goes in, and the lines for a text with nothing to read."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from bot.search import Result
from bot.search.pasted import Related
from bot.slack.blocks.kit import (
    MAX_BUTTON_VALUE,
    Block,
    Message,
    actions,
    bold,
    button,
    context,
    divider,
    escape,
    message,
    notice,
    plain_text,
)
from bot.slack.blocks.papers import display_title, result_blocks, venue_name

ACTION_BIBTEX = "related_bibtex"  # "BibTeX for these": the papers' ids, space-separated
PASTE_VIEW = "related_paste"  # the modal's callback_id (its view_submission listener)
PASTE_BLOCK = "text"  # the modal's input block and action id
PASTE_CHARS = 3000  # a plain_text_input holds at most this (Slack's limit for max_length)
MODAL_TITLE = "Find related papers"  # at most 24 characters
INVITE = "Invite me with `/invite @icml-bot` and I'll answer in the thread next time."
NOTHING_TO_READ = "That message has no text for me to read: try it on a message with a few sentences or a question."
NO_TEXT = "Paste a few sentences: a draft abstract, a reviewer's paragraph or a question."


def why(result: Result) -> str:
    """Why a paper is related, in one line: the words it shares with the text (where) and its closeness in meaning."""
    shared = [entry.partition(":") for entry in result.matched if not entry.startswith("meaning:")]
    words = [f"{bold(label, 60)}{' (title)' if where == 'title' else ''}" for where, _, label in shared]
    close = next((entry.partition(":")[2] for entry in result.matched if entry.startswith("meaning:")), "")
    parts = []
    if words:
        parts.append("Shares " + ", ".join(words))
    if close:
        parts.append(f"close in meaning ({escape(close)})")
    return "_Why:_ " + " · ".join(parts) if parts else ""


def bibtex_value(results: Collection[Result]) -> str:
    """The BibTeX button's value: the papers' ids, as many as fit Slack's 2,000 characters."""
    value = ""
    for result in results:
        more = f"{value} {result.paper['id']}".strip()
        if len(more) > MAX_BUTTON_VALUE:
            break
        value = more
    return value


def related_message(
    answer: Related, intro: str, public: bool = True, saved: Collection[str] = (), note: str | None = None
) -> Message:
    """Papers related to a text: `intro` (escaped mrkdwn), each paper with why and its buttons, then "BibTeX for
    these"; `public`: a message everyone in the channel sees (no Share button); `note`: a last line (escaped)."""
    blocks: list[Block] = [context(intro)]
    if answer.cut:
        blocks.append(context(f"A long text: I read the first {answer.read:,} of its {answer.length:,} characters."))
    several = len({venue_name(r.paper) for r in answer.results}) > 1
    for result in answer.results:
        paper_blocks = result_blocks(result, public, saved, None, show_venue=several)
        reason = why(result)
        if reason:
            paper_blocks.insert(1, context(reason))  # under the snippet, above the authors
        blocks.extend(paper_blocks)
        blocks.append(divider())
    blocks.append(actions(button("BibTeX for these", ACTION_BIBTEX, bibtex_value(answer.results))))
    if note:
        blocks.append(context(note))
    titles = "; ".join(display_title(r.paper) for r in answer.results)
    return message(f"Related papers: {escape(titles)}", blocks)


def no_related() -> Message:
    """The line for a text whose words no paper here uses."""
    return notice(
        "I found no related papers: none of its words appear in the papers here. Try a few sentences about the "
        "topic, or `/icml <words>`."
    )


def paste_modal() -> dict[str, Any]:
    """The global shortcut's modal: one multi-line input for the text (at most Slack's 3,000 characters)."""
    return {
        "type": "modal",
        "callback_id": PASTE_VIEW,
        "title": plain_text(MODAL_TITLE, 24),
        "submit": plain_text("Find papers", 24),
        "close": plain_text("Cancel", 24),
        "blocks": [
            {
                "type": "input",
                "block_id": PASTE_BLOCK,
                "label": plain_text("Text to find related papers for"),
                "hint": plain_text("A draft abstract, a reviewer's paragraph, a question. I answer in our DM."),
                "element": {
                    "type": "plain_text_input",
                    "action_id": PASTE_BLOCK,
                    "multiline": True,
                    "max_length": PASTE_CHARS,
                    "placeholder": plain_text("Paste a few sentences…", 150),
                },
            }
        ],
    }


def not_in_channel_note(error: str) -> str:
    """The last line of the answer shown only to the user when the bot cannot post in the channel."""
    return f"Only you can see this: I'm not in this channel ({escape(error)}). {INVITE}"


def invalid_paste() -> dict[str, str]:
    """The modal's error for a paste with nothing to read (shown under the input, the modal stays open)."""
    return {PASTE_BLOCK: NO_TEXT}
