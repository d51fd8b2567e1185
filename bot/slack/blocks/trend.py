"""A topic's trend in words: the per-venue numbers as the /icml answer shows them and as the chart's comment says."""

from __future__ import annotations

from bot.search.trends import Trend, table_lines
from bot.slack.blocks.kit import MAX_SECTION_TEXT, Message, bold, context, escape, mention, message, notice, section

# The chart's comment: the numbers in a code block, cut well inside Slack's message size
COMMENT_CHARS = 3000


def numbers(trend: Trend, limit: int = MAX_SECTION_TEXT) -> str:
    """The table as a code block (Slack shows it verbatim, columns aligned), cut to `limit` characters whole lines."""
    lines = [escape(line.replace("`", "'")) for line in table_lines(trend)]
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) + 6 > limit:
        lines.pop()
    return "```" + "\n".join(lines)[: max(limit - 6, 0)] + "```"


def topic_shown(trend: Trend) -> str:
    """The topic counted, in bold, with what was typed when the search corrected it."""
    if trend.corrected and trend.corrected != trend.topic:
        return f"{bold(trend.corrected)} (you typed {bold(trend.topic)})"
    return bold(trend.topic)


def trend_message(trend: Trend, drawing: bool) -> Message:
    """The answer to `/icml trend <topic>`: the numbers at once, and that the chart follows in the channel."""
    if not trend.venues:
        return notice("The index is empty: load papers with `icml-bot index`.")
    if not trend.matches:
        held = ", ".join(v.label for v in trend.venues)
        return notice(f"No papers on {topic_shown(trend)} in any venue here ({escape(held)}). Try other words.")
    how = escape("each count is the total `/icml <topic> venue:<venue>` shows")
    said = f"Papers on {topic_shown(trend)} per venue: {how}."
    blocks = [section(said), section(numbers(trend))]
    notes = [escape(n) for n in trend.notes]
    if trend.unplaced:
        notes.append(f"{trend.unplaced:,} papers of no venue are left out.")
    if drawing:
        notes.append("Drawing the chart: it appears in this channel in a moment.")
    if notes:
        blocks.append(context(*notes[:3]))
    return message(f"Papers on “{escape(trend.corrected or trend.topic)}” per venue", blocks)


def chart_comment(trend: Trend, user_id: str) -> str:
    """The comment posted with the chart: who asked, the topic and the numbers the bars show."""
    head = f"{mention(user_id)} asked for the trend of {topic_shown(trend)}:\n"
    return head + numbers(trend, COMMENT_CHARS - len(head))
