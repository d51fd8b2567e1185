"""Questions asked in words ("any papers on grokking?", "what are the best methods for kv cache compression?")
read as their topic: the request around it says what the researcher wants, not what the papers are about, and as
query words it would make every result hold "papers", "best" or "anyone".

Only a request before the topic is left out, and only when it names what is wanted (papers, work, methods, a
survey, the difference between), asks (what, anyone, find, show) and ends where the topic starts (on, about, for,
in, related to, study): "best arm identification", "new benchmarks", "research agents" and "code review with LLMs"
stay topics. A question's opening of asking words
("how can I", "do you", "how do I make") goes too, as does a trailing "papers" or "survey" ("grokking papers"), and
with it a lead that only says which papers ("any recent kv cache papers"). A conference or year the request names
("any ICML 2024 papers on ...", "grokking papers at ICML 2024") becomes a venue or year filter, and so do orals,
spotlights and code ("any oral papers on ...", "... with code"): bot.search.query knows and applies them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.text.stopwords import FUNCTION_WORDS
from bot.text.words import word_set

# What is wanted: these words name the answer, not its topic.
WANTED = word_set(
    "paper papers work works research study studies article articles publication publications literature "
    "method methods approach approaches technique techniques advances progress developments trends ideas results "
    "overview overviews summary introduction intro tutorial way ways survey surveys something anything "
    "presentation presentations talk talks suggestion suggestions recommendation recommendations pointer pointers"
)
# Asked for only when "between" follows ("the difference between DPO and PPO", not "difference of Gaussians").
COMPARING = word_set("difference differences compare compares comparing comparison")
# Between two ideas: a comparison, where each side's papers matter, not only both
VERSUS = word_set("vs versus")
# Asking: question words, requests, who asks and how they are asked, and contraction tails (what's, I'm, you're).
ASKING = word_set(
    "what whats which who how where when why any anyone anybody someone there please hi hey hello could would will "
    "did i me my we us you your s m re ve d ll show find give list get recommend suggest searching looking "
    "want need know tell point share seen worked working doing done happening explain summarize summarise describe "
    "compare wrote written authored published publish write start should people researchers folks read help got"
)
# How the wanted things are described, and how many ("recommend 3 papers on", "top ten papers").
DESCRIBED = word_set(
    "recent latest new newest good best top great interesting important notable relevant key cool nice some all "
    "other more similar related state art current few several couple two three four five six seven eight nine ten "
    + " ".join(map(str, range(1, 51)))
)
# Words that open a question without naming what is wanted: what follows them, past words that ask or describe, is
# the topic ("any benchmarks for ...", "anyone looking at ...", "any good datasets for ...").
ANY = word_set("any anything anyone anybody someone somebody something")
# After a question's topic: words that only say when, or that it is being asked about.
WHEN = word_set(
    "still studied studying researched explored investigated lately recently recent nowadays today currently now "
    "these days this past last few couple year years anymore"
)
# ...between them ("still being studied"), never last ("well being")
_WHEN_LINKS = word_set("being been getting")
# Where the topic starts: after a preposition, or after a verb of what papers do with it.
LEADS_IN = word_set(
    "on about for in of to into by from regarding concerning around with using via between study studies use uses "
    "discuss discusses address addresses tackle tackles explore explores investigate investigates propose proposes "
    "improve improves like analyze analyzes analyse analyses examine examines characterize characterise"
)
# A request for papers like a named one ("papers similar to TokSuite")
LIKE = word_set("similar like")
TRAILING = word_set("paper papers published survey surveys work")  # ("help me find grokking work")
_TRAILING = {(w,) for w in TRAILING}  # as one term's words
# Which papers: with "papers" at either end of the topic ("any code generation papers", "papers grokking"), a lead of
# these words is the request; anywhere else "new", "good" or "find" may begin a topic.
PAPERS = word_set("papers articles publications work works")
WHICH = word_set(
    "any anyone some recent latest new newest good great interesting important notable cool nice please show me "
    "find list give recommend suggest i we you there"
)
# Kinds of paper: a topic beside -llm
KINDS = word_set("survey surveys overview overviews tutorial tutorials")
# What leads into a filter after the topic ("with code")
AT_FILTER = {("at",), ("in",), ("from",), ("with",)}
# Words that open a question or a request: with only asking and function words after them ("how can I", "do you",
# "explain"), the opening ends where another word starts. A light verb may end it ("how do I make ...").
OPENING = word_set(
    "what which who how why where when can could do does is are should would will explain summarize summarise "
    "describe compare find list recommend suggest show tell give help"
)
LIGHT_VERBS = word_set("make get")
_REQUEST = COMPARING | WANTED | ASKING | DESCRIBED | LEADS_IN | FUNCTION_WORDS


def topic_span(
    terms: Sequence[tuple[str, ...] | None],
    field_of: Callable[[str], str | None],
    beside: bool = False,
    question: bool = False,
) -> tuple[int, int]:
    """The [start, end) of the terms that are the topic, given each term's words (None: a quoted or fielded term,
    which is always topic) and the filter a word names (`oral`: status, `2024`: year, `code`: has; the query
    language knows them): everything when no request is found, or when nothing else would be left. `beside`: other
    terms (an author:, an exclusion, a person's name) stand beside these, so words that only ask for papers may all
    go (`recent papers author:Finn`; `survey -llm` keeps its topic), words that lead into the topic are a request on
    their own (`Chelsea Finn | about robotics`), and function words alone are no topic (`who is | Sergey Levine`).
    A `question` (asked with a question mark, or opening with an asking word) ends before words that only say when
    or that it is asked (`... this year`, `... lately`, `... still being studied`)."""

    def is_filter(word: str) -> bool:
        return field_of(word) is not None

    said = [w for words in terms for w in words or ("",)]
    only_which = all((w in _REQUEST or w in WHICH) and w not in KINDS for w in said)
    if beside and only_which and any(w in PAPERS for w in said):
        # "papers author:Finn", "recent papers -llm": only which papers
        return len(terms), len(terms)

    lead = 0
    while lead < len(terms) and _may_ask(terms[lead], is_filter):
        lead += 1
    start = _request_end(terms, lead, field_of, beside)
    first = terms[0] if terms else None
    # "how can I speed up ...", "do you know ..."
    if start == 0 and first is not None and first[0] in OPENING:
        opening = _asking(terms, 0, lead)
        if opening < len(terms) - 1 and (verb := terms[opening]) is not None and verb[0] in LIGHT_VERBS:
            opening = _asking(terms, opening + 1, len(terms) - 1)  # "how do I make (my) ..."
        if any(w not in FUNCTION_WORDS for words in terms[:opening] for w in words or ()):
            # Function words alone are no topic anyway: a title such as "Which Heads ..." stays
            start = opening
    # "any benchmarks for ...", "anyone looking at ..."
    if start == 0 and first is not None and first[0] in ANY:
        start = _asking(terms, 0, lead, DESCRIBED)
    question = question or (first is not None and (first[0] in OPENING or first[0] in ANY))
    end = tail = _before_when(terms, start) if question else len(terms)
    while tail > start + 1 and (words := terms[tail - 1]) is not None and all(map(is_filter, words)):
        tail -= 1  # "... at ICML 2024", "... with code": filters, after the topic
    if tail < end and terms[tail - 1] in AT_FILTER and tail - 1 > start:
        end = tail - 1
    trailing = False
    while end > start + 1 and (last := terms[end - 1]) is not None and last in _TRAILING:
        end, trailing = end - 1, True  # "grokking papers", "RLHF survey paper"
    # "any recent papers grokking"
    start = max(start, _which_papers(terms[:end], lead, trailing, field_of))
    topic = [w for words in terms[start:end] for w in words or ("",)]
    if not topic or all(w in FUNCTION_WORDS for w in topic):
        return (len(terms), len(terms)) if beside else (0, len(terms))
    if all(map(is_filter, topic)) and (start or end < len(terms) or all(field_of(w) == "status" for w in topic)):
        # "ICML 2024 papers", "oral papers", "orals": the filters are all that is asked
        return start, start
    return start, end


def _request_end(
    terms: Sequence[tuple[str, ...] | None], lead: int, field_of: Callable[[str], str | None], beside: bool
) -> int:
    """Where the longest request among the first `lead` terms ends, when a topic starts there: it leads in (`on`,
    `about`) after words that want papers, ask, name a status or compare (0: no such request)."""
    for i in range(lead, 0, -1):
        asked = [w for words in terms[:i] for w in words or ()]
        if asked[-1] in LEADS_IN and (
            any(
                w in WANTED or w in ASKING or field_of(w) == "status" or (w in COMPARING and asked[-1] == "between")
                for w in asked
            )
            or (beside and all(w in LEADS_IN and w not in FUNCTION_WORDS for w in asked))
        ):  # (orals and spotlights are papers wanted: "ICML 2026 orals on reasoning")
            return i
    return 0


def names_no_topic(words: Sequence[str], asked: bool = True) -> bool:
    """Whether a request names no topic at all ("who works on", "any papers on this?", "related work?"): every word
    asks, names what is wanted, describes it, leads into a topic or points at the conversation (a kind of paper,
    `survey`, is a topic), and (`asked`) one of them asks or points: `recent papers` and `papers` typed as a search
    stay searches for their words, but they name no topic a digest could follow."""
    return (not asked or any(w in OPENING or w in _POINTING for w in words)) and all(
        (w in _REQUEST or w in WHICH or w in _POINTING) and w not in KINDS for w in words
    )


def only_asks(words: Sequence[str]) -> bool:
    """Whether words beside a person's name only ask for their papers (`publish`, `find`, `show me`, `list works`),
    naming no topic: a kind of paper (`survey`) is a topic."""
    return bool(words) and all((w in _REQUEST or w in WHICH or w in TRAILING) and w not in KINDS for w in words)


# Words that ask, or point at what is being discussed ("any papers on this?", "related work here?").
_POINTING = word_set(
    "any anyone anybody someone whats this that these those it here thread discussion related relevant"
)


def _which_papers(
    terms: Sequence[tuple[str, ...] | None], lead: int, trailing: bool, field_of: Callable[[str], str | None]
) -> int:
    """Where the topic starts after a lead that only says which papers ("any recent", "recent ICML 2024 ...", not
    "any code ...": code begins topics), when "papers" ends that lead or, `trailing`, the query (0: no such lead)."""
    said = 0
    while said < min(lead, len(terms) - 1) and all(
        w in WHICH or w in OPENING or w in FUNCTION_WORDS or field_of(w) not in (None, "has") for w in terms[said] or ()
    ):
        said += 1
    if said < lead and said + 1 < len(terms) and (words := terms[said]) is not None and words[-1] in PAPERS:
        return said + 1  # "recent papers grokking"
    which = [w for t in terms[:said] for w in t or () if w not in FUNCTION_WORDS]
    # not "oral cancer papers"
    return said if trailing and any(w in WHICH or w in OPENING for w in which) else 0


def _asking(terms: Sequence[tuple[str, ...] | None], i: int, stop: int, also: frozenset[str] = frozenset()) -> int:
    """Where a run of asking and function words (and words `also` holds) from term i ends (at most at `stop`)."""
    while i < stop and all(w in ASKING or w in FUNCTION_WORDS or w in also for w in terms[i] or ()):
        i += 1
    return i


def _before_when(terms: Sequence[tuple[str, ...] | None], start: int) -> int:
    """Where a question's topic ends before words that only say when, or that it is asked about (`this year`,
    `lately`, `still being studied`): the end of the terms when none trail it."""
    if not terms or terms[-1] is None or not set(terms[-1]) & WHEN:
        return len(terms)
    end = len(terms)
    while (
        end > start + 1 and (words := terms[end - 1]) is not None and set(words) <= WHEN | _WHEN_LINKS | FUNCTION_WORDS
    ):
        end -= 1
    return end


def _may_ask(words: tuple[str, ...] | None, is_filter: Callable[[str], bool]) -> bool:
    """Whether a term may be part of a request: every word asks, names what is wanted, describes it, leads into the
    topic, names a filter or is a function word."""
    return words is not None and all(w in _REQUEST or is_filter(w) for w in words)
