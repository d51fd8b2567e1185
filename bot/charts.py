"""A topic's trend as a PNG chart: papers per venue and year (top) and their share of each venue's papers (below).

matplotlib is imported inside draw(), with its Agg canvas and no pyplot: nothing that starts a search imports it
(it is slow to import and brings numpy: docs/benchmarks.md), and a server draws from several threads without
pyplot's global figure state.
"""

from __future__ import annotations

import io
import threading
import warnings
from typing import TYPE_CHECKING

from bot.search.trends import Trend, VenueCount, count_label, share_label

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# 900 x 600 pixels: readable in Slack's preview and full size
WIDTH_INCHES, HEIGHT_INCHES, DPI = 9.0, 6.0, 100
# Of the figure, around the panels
MARGINS = {"left": 0.08, "right": 0.98, "top": 0.91, "bottom": 0.09, "hspace": 0.1}
# A topic longer than this is cut in the title (the numbers beside the chart give it whole)
TITLE_CHARS = 50
BAR_SPAN = 0.8  # of each year's slot, shared by the venues of its busiest year

_drawing = threading.Lock()  # matplotlib's font and text caches are not made for concurrent drawing


def draw(trend: Trend) -> bytes:
    """The chart as PNG bytes: one group of bars per year, one colour per conference, counts on the top panel and
    shares on the bottom one (a lower bound is labelled `1,000+`)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    years = sorted({v.year for v in trend.venues if v.year is not None})
    slots: list[int | None] = [*years, *([None] if any(v.year is None for v in trend.venues) else [])]
    series = sorted({v.conference for v in trend.venues})
    topic = trend.corrected or trend.topic
    title = topic if len(topic) <= TITLE_CHARS else topic[: TITLE_CHARS - 1] + "…"
    with _drawing, warnings.catch_warnings(), matplotlib.rc_context({"text.parse_math": False}):
        # A glyph the font lacks, in a topic in another script: a box, not a log line
        warnings.simplefilter("ignore")
        figure = Figure(figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI)
        # Fixed margins: a constrained layout measures each text first, which was much of a chart's time.
        figure.subplots_adjust(**MARGINS)
        FigureCanvasAgg(figure)
        counts, shares = figure.subplots(2, 1, sharex=True)
        figure.suptitle(f"Papers on “{title}” per venue and year", fontsize=13)
        by_slot = {slot: sorted({v.conference for v in trend.venues if v.year == slot}) for slot in slots}
        width = BAR_SPAN / max((len(present) for present in by_slot.values()), default=1)
        for i, conference in enumerate(series):
            mine = [v for v in trend.venues if v.conference == conference]
            xs = [_x(slots.index(v.year), by_slot[v.year].index(conference), len(by_slot[v.year]), width) for v in mine]
            colour = f"C{i % 10}"
            bars = counts.bar(xs, [v.matches for v in mine], width, label=conference, color=colour)
            counts.bar_label(bars, labels=[count_label(v) for v in mine], padding=2, fontsize=9)
            bars = shares.bar(xs, [100 * v.share for v in mine], width, color=colour)
            shares.bar_label(bars, labels=[share_label(v) for v in mine], padding=2, fontsize=9)
        _frame(counts, "papers on the topic", series)
        _frame(shares, "share of the venue's papers (%)", [])
        shares.set_xticks(range(len(slots)), [str(s) if s is not None else "no year" for s in slots])
        counts.yaxis.set_major_locator(MaxNLocator(integer=True))
        if not any(v.matches for v in trend.venues):
            counts.set_ylim(0, 1)
            shares.set_ylim(0, 1)
        figure.text(0.99, 0.01, _footnote(trend.venues), ha="right", va="bottom", fontsize=8, color="0.4")
        out = io.BytesIO()
        figure.savefig(out, format="png")
    return out.getvalue()


def _x(slot: int, place: int, present: int, width: float) -> float:
    """The centre of a bar: the `place`th of `present` bars side by side around its year's tick."""
    return slot + (place - (present - 1) / 2) * width


def _frame(axes: Axes, label: str, series: list[str]) -> None:
    """A panel's axis label, head room for the bar labels, light grid, and the legend when it has series."""
    axes.set_ylabel(label)
    axes.margins(y=0.18)
    axes.set_ylim(bottom=0)
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
    axes.spines[["top", "right"]].set_visible(False)
    if series:
        axes.legend(loc="upper left", frameon=False, ncols=min(len(series), 4))


def _footnote(venues: list[VenueCount]) -> str:
    """What the bars count, and what `+` (a lower bound) and `*` (some of the words) mean where they appear."""
    note = "Counts: the search's total for “<topic> venue:<venue>”"
    if any(not v.exact for v in venues):
        note += "; +: at least"
    if any(v.partial for v in venues):
        note += "; *: with papers having some of the words"
    return note
