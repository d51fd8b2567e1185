"""LaTeX in abstracts (math spans, commands, accents, escapes) turned into readable Unicode with emphasis markers."""

from __future__ import annotations

import re

from bot.text import latex_names as tex
from bot.text.markers import (
    BOLD_CLOSE,
    BOLD_OPEN,
    CARET,
    ITALIC_CLOSE,
    ITALIC_OPEN,
    LBRACE,
    RBRACE,
    TILDE,
    UNDERSCORE,
)

# Regexes (what the names mean: bot/text/latex_names.py)
# from a run's start only: linear
_MULTI_BS_RE = re.compile(r"(?<!\\)\\{2,}(?=[A-Za-z%$&_#{}<>|])")
_LINEBREAK_RE = re.compile(r"\\\\(?:\[[^\]]*\])?")
_ESC_DOLLAR_RE = re.compile(r"\\\$\s?(?=(\d)?)")
_MATH_RE = re.compile(
    r"\$\$(?P<d>(?:(?!\n\s*\n)[^$])+?)\$\$|\$(?P<s>(?:(?!\n\s*\n)[^$])+?)\$"
    r"|\\\((?P<p>(?:(?!\n\s*\n|\\\().)+?)\\\)|\\\[(?P<b>(?:(?!\n\s*\n|\\\[).)+?)\\\]",
    re.S,
)
_VERB_RE = re.compile(r"\\verb\*?([^A-Za-z\s])(.*?)\1")
_ROMAN_RE = re.compile(r"\\romannumeral\s*(\d+)\s?")
_ACCENT_RE = re.compile(r"\\(['`\"^~=.])\s*(?:\{\s*\\?([A-Za-z])\s*\}|\\?([A-Za-z]))")
_TEXT_LETTER_SPACE_RE = re.compile(r"\\(L|l|o|O|ss|ae|AE|oe|OE|aa|AA|i|j)\s+(?=[a-z])")
_ACCENT_LETTER_RE = re.compile(r"\\([uvHckrdb])\s*\{\s*\\?([A-Za-z])\s*\}")
_NOT_RE = re.compile(r"\\not\s*(?:\\(in|equiv|subset|sim|mid)\b|(=))")
_NOT_MAP = {"in": "∉", "=": "≠", "equiv": "≢", "subset": "⊄", "sim": "≁", "mid": "∤"}
_CMD_RE = re.compile(r"\\([A-Za-z]+)\*?(?![A-Za-z])")
_TWO_ARG_RE = re.compile(
    r"\\(d?t?frac|cfrac|binom|dbinom|tbinom|textcolor|colorbox|stackrel|overset|underset|xrightarrow|"
    r"hyperref|texorpdfstring)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}\s*\{([^{}]*)\}"
)
_ONE_ARG_RE = re.compile(r"\\([A-Za-z]+)\*?\s*(?:\[[^\]{}]*\])?\s*\{([^{}]*)\}")
_SWITCH_RE = re.compile(
    r"\{\s*\\(bf|bfseries|it|itshape|em|sl|slshape|sc|scshape|tt|ttfamily|rm|sf|sffamily|cal|boldmath|"
    r"upshape|normalfont)(?![A-Za-z])\s*([^{}]*)\}"
)
_BARE_SWITCH_RE = re.compile(r"\\(?:bf|it|em|sl|sc|tt|rm|sf|cal|bfseries|itshape|boldmath)(?![A-Za-z])\s*")
_SQRT_RE = re.compile(r"\\sqrt\s*(?:\[([^\]]*)\])?\s*\{([^{}]*)\}")
_UNBRACED_ARG_RE = re.compile(
    r"\\(mathcal|mathbb|mathbf|mathrm|mathsf|mathfrak|mathscr|mathit|mathtt|mathds|mathbbm|boldsymbol|bm|tilde|"
    r"widetilde|hat|widehat|bar|overline|vec|dot|ddot|check|breve|sqrt|operatorname)(?![A-Za-z])\s*([^\s{}\\\[])"
)
_SUPSUB_BRACE_RE = re.compile(r"([\^_])\s*\{([^{}]*)\}")
_SUPSUB_ONE_RE = re.compile(r"([\^_])\s*([^\s{}\^_\\])")
_GROUP_RE = re.compile(r"\{([^{}]*)\}")
_UNKNOWN_CMD_RE = re.compile(r"\\([A-Za-z]+)\*?(?:\s*\{\s*\})?")
_ESCAPED_RE = re.compile(r"\\([%&#_{}<>|$])")
_SPACING_RE = re.compile(r"\\[,;:! ]|\\(?=\s)")
_MATH_SPACE_RE = re.compile(r"\s+")
_WORD_EDGE_START_RE = re.compile(r"[A-Za-z]{2}")
_WORD_EDGE_END_RE = re.compile(r"[A-Za-z]{2}$")
_TEX_COMMENT_LINE_RE = re.compile(r"(?m)^[ \t]*%[ \t]*")
_OPERATOR_CHARS = frozenset(" +-−/·×=<>≤≥,|")
_TIE_RE = re.compile(r"(?<=[A-Za-z.,;:)\]}])~(?=[A-Za-z(\[\\$])")


def _paren(s: str) -> str:
    """Parenthesise a fraction part with operators in it, so ``a+b/2`` keeps its meaning as ``(a+b)/2``."""
    s = s.strip()
    return f"({s})" if len(s) > 1 and any(c in _OPERATOR_CHARS for c in s) else s


def _accent(base: str, mark: str) -> str:
    """Put a combining accent on a single letter; longer bases keep none (Unicode cannot accent them)."""
    base = base.strip()
    if len(base) == 1:
        return base + mark
    return base


def _symbol(m: re.Match[str]) -> str:
    """A bare command as its symbol (``\\alpha`` → α), nothing for layout commands, else left for later passes."""
    name = m.group(1)
    sym = tex.GREEK.get(name) or tex.SYMBOLS.get(name)
    if sym is not None:
        return sym
    if name in tex.DROP_CMDS:
        return ""
    return m.group(0)


def _one_arg(m: re.Match[str], math: bool) -> str:
    """A one-argument command as what a reader sees: emphasis markers, its content, a symbol, or nothing."""
    name, arg = m.group(1), m.group(2)
    if name in tex.BOLD_CMDS:
        return f"{BOLD_OPEN}{arg}{BOLD_CLOSE}" if arg.strip() else arg
    if name in tex.ITALIC_CMDS:
        return f"{ITALIC_OPEN}{arg}{ITALIC_CLOSE}" if arg.strip() else arg
    if name in tex.CONTENT_CMDS:
        return arg
    if name == "mathbb" or name == "mathbbm" or name == "mathds":
        a = arg.strip()
        return tex.BB.get(a, a)
    if name in tex.MATH_ACCENTS:
        return _accent(arg, tex.MATH_ACCENTS[name])
    if name in tex.REMOVE_CMDS:
        return ""
    if name in tex.QUOTE_CMDS:
        return f"“{arg}”"
    if name == "footnote":
        return f" ({arg.strip()})" if arg.strip() else ""
    if name == "ding":
        try:
            return tex.DINGS.get(int(arg), "•")
        except ValueError:
            return "•"
    if name == "unicode":
        a = arg.strip().lower()
        try:
            return chr(int(a[1:], 16) if a.startswith("x") else int(a))
        except (ValueError, OverflowError):
            return ""
    if name == "pmod":
        return f" (mod {arg})"
    if name in tex.GREEK or name in tex.SYMBOLS:
        return (tex.GREEK.get(name) or tex.SYMBOLS[name]) + arg
    if name in tex.DROP_CMDS:
        return arg
    # Unknown (usually a user macro such as \method{} or a formatting macro such as \b{Co}).
    return arg if arg.strip() else name


def _two_arg(m: re.Match[str]) -> str:
    """A two-argument command (fractions, binomials, colours, stacked symbols) as readable text."""
    name, a, b = m.group(1), m.group(2), m.group(3)
    if name.endswith("frac"):
        return f"{_paren(a)}/{_paren(b)}"
    if name.endswith("binom"):
        return f"C({a.strip()}, {b.strip()})"
    if name in ("textcolor", "colorbox"):
        return b
    if name in ("stackrel", "overset", "underset"):
        return b
    if name == "xrightarrow":
        return "→"
    return a if name == "texorpdfstring" else b


def _switch(m: re.Match[str]) -> str:
    """A ``{\\bf ...}`` style group as emphasis markers around its body."""
    kind, body = m.group(1), m.group(2)
    if not body.strip():
        return body
    if kind in ("bf", "bfseries", "boldmath"):
        return f"{BOLD_OPEN}{body}{BOLD_CLOSE}"
    if kind in ("it", "itshape", "em", "sl", "slshape"):
        return f"{ITALIC_OPEN}{body}{ITALIC_CLOSE}"
    return body


def _sqrt(m: re.Match[str]) -> str:
    """``\\sqrt[3]{x}`` as ∛x: root signs read better than the command."""
    root = {"3": "∛", "4": "∜"}.get((m.group(1) or "").strip(), "√")
    return root + _paren(m.group(2))


def _accents(s: str) -> str:
    """Text accents (``\\'{e}``, ``\\v{c}``) as combining characters, so names read as written."""
    if "\\" not in s:
        return s
    s = _ACCENT_RE.sub(lambda m: (m.group(2) or m.group(3)) + tex.ACCENT_MARKS[m.group(1)], s)
    return _ACCENT_LETTER_RE.sub(lambda m: m.group(2) + tex.ACCENT_MARKS[m.group(1)], s)


def _tex_pass(s: str, math: bool) -> str:
    """Resolve LaTeX commands innermost-first until nothing changes (bounded)."""
    if "\\not" in s:
        s = _NOT_RE.sub(lambda m: _NOT_MAP[m.group(1) or "="], s)
    if "\\" in s:
        s = _CMD_RE.sub(_symbol, s)
        s = _UNBRACED_ARG_RE.sub(r"\\\1{\2}", s)
    for _ in range(16):
        if "{" not in s:
            break
        before = s
        if "\\" in s:
            s = _SQRT_RE.sub(_sqrt, s)
            s = _TWO_ARG_RE.sub(_two_arg, s)
            s = _ONE_ARG_RE.sub(lambda m: _one_arg(m, math), s)
        s = _SWITCH_RE.sub(_switch, s)
        if math:
            s = _SUPSUB_BRACE_RE.sub(lambda m: tex.sup(m.group(2)) if m.group(1) == "^" else tex.sub(m.group(2)), s)
        if s == before:
            # Only when no command could take its argument: unwrap plain groups, innermost first.
            s = _GROUP_RE.sub(r"\1", s)
            if s == before:
                break
    if "\\" in s:
        s = _BARE_SWITCH_RE.sub("", s)
        s = s.replace("\\sqrt", "√")
    return s


def _math(content: str) -> str:
    """Convert the inside of one ``$..$`` span to readable Unicode."""
    s = content.replace("&", " ").replace("~", " ")
    s = _LINEBREAK_RE.sub("; ", s)
    s = _tex_pass(s, math=True)
    if "^" in s or "_" in s:
        s = _SUPSUB_ONE_RE.sub(lambda m: tex.sup(m.group(2)) if m.group(1) == "^" else tex.sub(m.group(2)), s)
        s = s.replace("^", CARET).replace("_", UNDERSCORE)
    s = s.replace("*", "∗").replace("~", TILDE)
    return _MATH_SPACE_RE.sub(" ", s).strip()


def _math_sub(m: re.Match[str]) -> str:
    """One matched math span converted, keeping spaces around prose caught between two stray dollars."""
    content = m.group("d") or m.group("s") or m.group("p") or m.group("b") or ""
    out = _math(content)
    # A "$ and $" span is usually two mis-paired dollars around prose: keep the spaces around its words.
    if content[:1].isspace() and _WORD_EDGE_START_RE.match(out):
        out = " " + out
    if content[-1:].isspace() and _WORD_EDGE_END_RE.search(out):
        out += " "
    return out


def latex_to_unicode(s: str) -> str:
    """All LaTeX handling for one text: escapes, math spans, commands, groups."""
    if "\\" in s:
        s = _MULTI_BS_RE.sub("\\\\", s)
        if "\n%" in s or s.startswith("%"):
            s = _TEX_COMMENT_LINE_RE.sub("", s)
        if "\\$" in s:
            s = _ESC_DOLLAR_RE.sub(lambda m: "USD " if m.group(1) else "USD", s)
        if "\\verb" in s:
            s = _VERB_RE.sub(lambda m: m.group(2), s)
        if "\\romannumeral" in s:
            s = _ROMAN_RE.sub(lambda m: tex.roman(int(m.group(1))), s)
        s = _accents(s)
        s = _TEXT_LETTER_SPACE_RE.sub(r"\\\1{}", s)
        s = s.replace("\\{", LBRACE).replace("\\}", RBRACE).replace("\\*", "∗")
    if "$" in s or "\\(" in s or "\\[" in s:
        s = _MATH_RE.sub(_math_sub, s)
        s = s.replace("$", "")
    if "\\" in s or "{" in s:
        s = _tex_pass(s, math=False)
    if "\\" in s:
        s = _ESCAPED_RE.sub(r"\1", s)
        s = _LINEBREAK_RE.sub(" ", s)
        s = _SPACING_RE.sub(" ", s)
        s = _UNKNOWN_CMD_RE.sub(lambda m: tex.GREEK.get(m.group(1)) or tex.SYMBOLS.get(m.group(1)) or m.group(1), s)
        s = s.replace("\\", "")
    if "{" in s or "}" in s:
        s = s.replace("{", "").replace("}", "")
    return s


def drop_unbalanced_braces(s: str) -> str:
    """Remove braces without a partner ("Bi-Level GRPO}") and keep balanced ones."""
    opens: list[int] = []
    drop: set[int] = set()
    for i, c in enumerate(s):
        if c == "{":
            opens.append(i)
        elif c == "}":
            if opens:
                opens.pop()
            else:
                drop.add(i)
    drop.update(opens)
    if not drop:
        return s
    return "".join(c for i, c in enumerate(s) if i not in drop)


def ties_to_spaces(s: str) -> str:
    """LaTeX ties (``Agents~(PRA)``) as plain spaces; a ``~`` elsewhere means "about" and stays."""
    return _TIE_RE.sub(" ", s)
