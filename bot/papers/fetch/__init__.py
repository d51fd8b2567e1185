"""Fetching conference paper lists from their official sources (the conference site's JSON, OpenReview's API).

Kept free of imports so that the corpus readers can use the pure converters in `site` and `openreview` without
pulling in the index; `bot.papers.fetching` (above the index) is the entry point.
"""
