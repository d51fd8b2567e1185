"""The trend chart as an image: a valid PNG of the set size for any topic a user types, and for awkward counts."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot import charts
from bot.search.trends import Trend, VenueCount

VENUES = [
    VenueCount("iclr2024", "ICLR 2024", "ICLR", 2024, 2261, 14),
    VenueCount("icml2024", "ICML 2024", "ICML", 2024, 2610, 21),
    # A lower bound: 1,000+
    VenueCount("iclr2026", "ICLR 2026", "ICLR", 2026, 5358, 1000, exact=False),
    VenueCount("icml2026", "ICML 2026", "ICML", 2026, 6341, 7, partial=True),
    VenueCount("mylist", "mylist", "mylist", None, 50, 3),  # a list of no year
]


def png(trend: Trend) -> Image.Image:
    data = charts.draw(trend)
    Image.open(io.BytesIO(data)).verify()
    return Image.open(io.BytesIO(data))


@pytest.mark.parametrize(
    "topic",
    [
        "kv cache",
        # mathtext that does not parse: drawn as typed, never parsed (savefig raised)
        "cost $\\frac{1$ of $x^$",
        "注意力机制 attention",  # glyphs the bundled font lacks: boxes, no warnings to the log
        "long topic " * 50,
        "<!channel> & </b>",
    ],
)
def test_any_topic_draws_a_png_of_the_set_size(topic: str) -> None:
    image = png(Trend(topic, VENUES))
    assert (image.format, image.size) == ("PNG", (900, 600))
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20


def test_a_topic_no_paper_has_still_draws_axes_from_zero() -> None:
    image = png(Trend("qqxqzv", [VenueCount("icml2026", "ICML 2026", "ICML", 2026, 6341, 0)]))
    assert image.size == (900, 600)
