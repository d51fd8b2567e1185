"""Small synthetic fixtures in the shapes recorded from the live sources (issue 34), for the fakes to serve.

Recorded: OpenReview API v2 `/notes` pages of ICML 2023/2025/2026, ICLR 2024 and NeurIPS 2023/2024/2025 (main,
position, Datasets & Benchmarks and workshop venueids; values wrapped as {"value": …}; D&B notes with `code_URL`
and `dataset_URL`; withdrawn and desk-rejected notes), and rows of a conference site's `orals-posters.json` (an oral
row with its own `paper_url` and decision and no `related_events_ids` link to its poster row; journal-track and
CMT-hosted rows; a `Reject` decision; rows without `sourceurl`). The texts here are made up; the shapes are not.
"""

from __future__ import annotations

from typing import Any

from bot.papers.venues import Status
from tests.support.conference_fakes import Conference
from tests.support.sources import seed_abstracts

# Accepted papers' venueids as recorded → (the venue whose fetch asks for it, track).
ACCEPTED_VENUEIDS = {
    "ICML.cc/2023/Conference": ("icml2023", "main"),
    "ICML.cc/2025/Conference": ("icml2025", "main"),
    "ICML.cc/2025/Position_Paper_Track": ("icml2025", "position"),
    "ICML.cc/2026/Conference": ("icml2026", "main"),
    "ICML.cc/2026/Position_Paper_Track": ("icml2026", "position"),
    "ICLR.cc/2024/Conference": ("iclr2024", "main"),
    "NeurIPS.cc/2023/Conference": ("neurips2023", "main"),
    "NeurIPS.cc/2023/Track/Datasets_and_Benchmarks": ("neurips2023", "datasets"),
    "NeurIPS.cc/2024/Conference": ("neurips2024", "main"),
    "NeurIPS.cc/2024/Datasets_and_Benchmarks_Track": ("neurips2024", "datasets"),
    "NeurIPS.cc/2025/Conference": ("neurips2025", "main"),
    "NeurIPS.cc/2025/Datasets_and_Benchmarks_Track": ("neurips2025", "datasets"),
    "NeurIPS.cc/2025/Position_Paper_Track": ("neurips2025", "position"),
}
WORKSHOP_VENUEIDS = ("ICML.cc/2025/Workshop/TAIG", "NeurIPS.cc/2024/Workshop/MINT", "ICLR.cc/2024/Workshop/ME-FoMo")
NOT_ACCEPTED_VENUEIDS = (
    "ICML.cc/2025/Conference/Rejected_Submission",
    "ICLR.cc/2024/Conference/Withdrawn_Submission",
    "NeurIPS.cc/2025/Conference/Withdrawn_Submission",
    "NeurIPS.cc/2025/Conference/Desk_Rejected_Submission",
    "NeurIPS.cc/2023/Track/Datasets_and_Benchmarks/Rejected_Submission",
)
# `venue` strings of accepted notes as recorded → (status, track).
VENUE_STRINGS = {
    "ICML 2023 OralPoster": (Status.ORAL, "main"),
    "ICML 2023 Poster": (Status.POSTER, "main"),
    "ICML 2025 oral": (Status.ORAL, "main"),
    "ICML 2025 spotlightposter": (Status.SPOTLIGHT, "main"),
    "ICML 2025 poster": (Status.POSTER, "main"),
    "ICML 2025 Position Paper Track oral": (Status.ORAL, "position"),
    "ICML 2025 Position Paper Track poster": (Status.POSTER, "position"),
    "ICML 2026 regular": (Status.POSTER, "main"),
    "ICLR 2024 oral": (Status.ORAL, "main"),
    "ICLR 2024 spotlight": (Status.SPOTLIGHT, "main"),
    "ICLR 2024 poster": (Status.POSTER, "main"),
    "ICLR 2026 Poster": (Status.POSTER, "main"),
    "NeurIPS 2023 oral": (Status.ORAL, "main"),
    "NeurIPS 2023 Datasets and Benchmarks Poster": (Status.POSTER, "datasets"),
    "NeurIPS 2023 Datasets and Benchmarks Oral": (Status.ORAL, "datasets"),
    "NeurIPS 2024 poster": (Status.POSTER, "main"),
    "NeurIPS 2024 Track Datasets and Benchmarks Oral": (Status.ORAL, "datasets"),
    "NeurIPS 2024 Track Datasets and Benchmarks Spotlight": (Status.SPOTLIGHT, "datasets"),
    "NeurIPS 2024 Track Datasets and Benchmarks Poster": (Status.POSTER, "datasets"),
    "NeurIPS 2025 spotlight": (Status.SPOTLIGHT, "main"),
    "NeurIPS 2025 Datasets and Benchmarks Track poster": (Status.POSTER, "datasets"),
    "NeurIPS 2025 Position Paper Track": (Status.POSTER, "position"),
}

NAMES = {"icml": "ICML", "neurips": "NeurIPS", "iclr": "ICLR"}


def note(forum: str, title: str, venueid: str, venue: str, **content: Any) -> dict[str, Any]:
    """An API v2 note: every content value wrapped as {"value": …}."""
    number = sum(map(ord, forum))
    value = {
        "title": title,
        "authors": ["Ada Lovelace", "Alan Turing"],
        "abstract": f"{title}. {seed_abstracts()[number % 10]}",
        "venue": venue,
        "venueid": venueid,
        "pdf": f"/pdf/{forum.lower()}.pdf",
        "_bibtex": f"@inproceedings{{{forum},\n  title={{{title}}}\n}}",
        **content,
    }
    return {"id": forum, "forum": forum, "number": number, "content": {k: {"value": v} for k, v in value.items()}}


def row(
    event: int,
    title: str,
    forum: str | None,
    group: str | None,
    decision: str,
    eventtype: str = "Poster",
    session: str = "Poster Session 1",
    **extra: Any,
) -> dict[str, Any]:
    """An orals-posters row; `group` is the OpenReview group its `sourceurl` names (None: no `sourceurl` key)."""
    out: dict[str, Any] = {
        "id": event,
        "name": title,
        "authors": [
            {"fullname": "Ada Lovelace", "institution": "Analytical Engines Ltd"},
            {"fullname": "Alan Turing", "institution": "University of Manchester"},
        ],
        "abstract": f"<p>{title}. {seed_abstracts()[event % 10]}</p>",
        "decision": decision,
        "eventtype": eventtype,
        "session": session,
        "room_name": "Exhibit Hall" if eventtype == "Poster" else "Hall A",
        "virtualsite_url": f"/virtual/2025/{eventtype.lower()}/{event}",
        "paper_url": f"https://openreview.net/forum?id={forum}" if forum else "",
        "poster_position": f"#{event}" if eventtype == "Poster" else None,
        "related_events_ids": [],
        **extra,
    }
    if group is not None:
        out["sourceurl"] = f"https://openreview.net/group?id={group}"
    return out


MAIN, POSITION, DATASETS = (
    f"NeurIPS.cc/2025/{g}" for g in ("Conference", "Position_Paper_Track", "Datasets_and_Benchmarks_Track")
)
# Each workshop is a group under it, listed by `/groups?parent=`
WORKSHOP = "NeurIPS.cc/2025/Workshop"
ORAL_SESSION = "Oral 2A DL: Architectures & Inference"


def neurips2025() -> Conference:
    """NeurIPS 2025 as recorded: main, position, D&B and workshop notes (and withdrawn, desk-rejected, rejected ones;
    workshops listed with and without a title, one with no accepted paper), and site rows of every kind: an oral row
    not linked to its poster row, an oral row alone, journal, CMT, rejected, no sourceurl."""
    notes = [
        note("NmOral0001", "Unlinked Oral Paper", MAIN, "NeurIPS 2025 oral"),
        note("NmOral0002", "Oral Without Poster Row", MAIN, "NeurIPS 2025 oral"),
        note("NmSpot0003", "Spotlight Paper", MAIN, "NeurIPS 2025 spotlight"),
        note("NpPos00001", "Position Paper One", POSITION, "NeurIPS 2025 Position Paper Track"),
        note("NpPos00002", "Position Paper Two", POSITION, "NeurIPS 2025 Position Paper Track"),
        note(
            "NdDat00001",
            "Benchmark With Code",
            DATASETS,
            "NeurIPS 2025 Datasets and Benchmarks Track poster",
            code_URL="https://github.com/example/bench-code",
            dataset_URL="https://huggingface.co/datasets/example/bench",
        ),
        note(
            "NdDat00002",
            "Dataset Only",
            DATASETS,
            "NeurIPS 2025 Datasets and Benchmarks Track spotlight",
            dataset_URL="https://zenodo.org/records/123",
        ),
        note("NwMint0001", "Workshop Poster", f"{WORKSHOP}/MINT", "NeurIPS 2025 Workshop MINT Poster"),
        note("NwMint0002", "Workshop Paper Unmarked", f"{WORKSHOP}/MINT", "NeurIPS 2025 Workshop MINT"),
        note("NwMlsy0001", "Workshop Oral Untitled", f"{WORKSHOP}/MLSys", "NeurIPS 2025 Workshop MLSys Oral"),
        note("NwRej00001", "Workshop Rejected", f"{WORKSHOP}/MINT/Rejected_Submission", "Submitted to MINT"),
        note("NwWith0001", "Withdrawn Paper", f"{MAIN}/Withdrawn_Submission", "NeurIPS 2025 Conference Withdrawn"),
        note("NwDesk0001", "Desk Rejected", f"{MAIN}/Desk_Rejected_Submission", "NeurIPS 2025 Conference Desk Reject"),
    ]
    rows = [
        row(1001, "Unlinked Oral Paper", "NmOral0001", MAIN, "Accept (oral)", session="San Diego Poster Session 2"),
        row(2001, "Unlinked Oral Paper", "NmOral0001", MAIN, "Accept (oral)", "Oral", ORAL_SESSION),
        row(2002, "Oral Without Poster Row", "NmOral0002", MAIN, "Accept (oral)", "Oral", "Oral 3B Theory"),
        row(1003, "Spotlight Paper", "NmSpot0003", MAIN, "Accept (spotlight)"),
        row(1004, "Position Paper One", "NpPos00001", POSITION, "Accept (poster)"),
        row(1006, "Benchmark With Code", "NdDat00001", DATASETS, "Accept (poster)"),
        row(1007, "Dataset Only", "NdDat00002", DATASETS, "Accept (spotlight)"),
        row(1100, "A TMLR Paper", "TmLr000001", "TMLR", "Accept (poster)", session="Journal Track"),
        row(1101, "A CMT Paper", None, None, "Accept (poster)", sourceurl="https://cmt3.research.microsoft.com/X2025"),
        row(1102, "A Rejected Paper", "NrRej00001", MAIN, "Reject"),
        row(1103, "A Talk Without Source", None, None, "", "Oral", "Invited Talk 1"),
    ]
    titles = {f"{WORKSHOP}/MINT": "Workshop on Mechanistic Interpretability", f"{WORKSHOP}/EmptyWS": "Empty Workshop"}
    return Conference("neurips", 2025, [], rows, {}, notes, titles)


def small(conf: str, year: int, papers: list[tuple[str, str, str, str]]) -> Conference:
    """A conference of (forum, venueid suffix, `venue` string, site decision) papers, each on both sources."""
    name = NAMES[conf]
    notes, rows = [], []
    for n, (forum, suffix, venue, decision) in enumerate(papers):
        group = f"{name}.cc/{year}/{suffix}"
        title = f"{name} {year} Paper {n}"
        notes.append(note(forum, title, group, venue))
        rows.append(row(3000 + n, title, forum, group, decision))
    return Conference(conf, year, [], rows, {}, notes)
