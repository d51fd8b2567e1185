"""Text cleanup for paper titles and abstracts: LaTeX/Markdown/HTML → Slack mrkdwn or plain text, plus derived names.

Everything here is pure and fast (it runs on every abstract at indexing time); regexes are compiled once.
Internally ``_core`` turns raw text into readable Unicode with private-use emphasis markers, which ``clean``
renders as Slack ``*bold*``/``_italic_`` and ``plain`` drops.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from urllib.parse import urlsplit

__all__ = [
    "clean",
    "code_url",
    "derive_name",
    "derive_title",
    "headline",
    "name_from_title",
    "normalize_title",
    "plain",
    "urls",
    "words",
]


def _ws(words: str) -> frozenset[str]:
    """A frozenset from a whitespace-separated word list (keeps the long tables below readable)."""
    return frozenset(words.split())


# ---------------------------------------------------------------------------------------------------------------
# Private-use markers. They never occur in real abstracts and survive every regex below untouched.
_BO, _BC, _IO, _IC = "\ue010", "\ue011", "\ue012", "\ue013"  # bold open/close, italic open/close
_LBR, _RBR = "\ue014", "\ue015"  # literal braces from \{ \}
_USC, _CAR, _TIL = "\ue016", "\ue017", "\ue018"  # literal _ ^ ~ produced by math conversion
_URL0 = 0xF0000  # URL placeholders: one supplementary private-use char each
_MARKERS_RE = re.compile("[\ue010-\ue013]")
_SPACE_BEFORE_CLOSE_RE = re.compile("(\\s+)([\ue011\ue013]+)")
_SPACE_AFTER_OPEN_RE = re.compile("([\ue010\ue012]+)(\\s+)")
_URL_PH_RE = re.compile("[\U000f0000-\U000f0fff]")

# ---------------------------------------------------------------------------------------------------------------
# URLs
_URL_TRAIL = ".,;:!?)]}'\"*_>’”"
_CODE_HOSTS = ("github.com", "gitlab.com", "huggingface.co", "bitbucket.org", "codeberg.org", "anonymous.4open.science")
_SCHEMELESS = (
    r"(?:www\.|(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|codeberg\.org)/|[\w-]+\.github\.io\b)"
)
_URL_BODY = r"(?:[^\s<>\"{}\\`*]|\\[_%#&~])+"
_BARE_URL_RE = re.compile(rf"https?://{_URL_BODY}", re.I)
_SCHEMELESS_URL_RE = re.compile(rf"(?<![\w./@-]){_SCHEMELESS}{_URL_BODY}", re.I)
_SCHEMELESS_HINTS = (
    "www.", "github.com/", "gitlab.com/", "huggingface.co/", "bitbucket.org/", "codeberg.org/", ".github.io",
)  # fmt: skip
_URL_ESC_RE = re.compile(r"\\([_%#&~])")
_TEX_URL_RE = re.compile(r"\\+(?:url|path)\s*\{([^{}]*)\}")
_TEX_HREF_RE = re.compile(r"\\+(?:href|hyperlink)\s*\{([^{}]*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_MD_LINK_RE = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*(https?://[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_ANGLE_URL_RE = re.compile(r"<(https?://[^\s<>]+)>")


def _strip_url(url: str) -> str:
    """Drop trailing punctuation from a URL, keeping a closing bracket that closes one inside the URL."""
    while url and url[-1] in _URL_TRAIL:
        last = url[-1]
        if last == ")" and url.count("(") >= url.count(")"):
            break
        if last == "]" and url.count("[") >= url.count("]"):
            break
        url = url[:-1]
    return url


def _looks_like_url(s: str) -> bool:
    s = s.strip()
    return (
        bool(s) and " " not in s and (s.lower().startswith(("http://", "https://", "www.")) or ("/" in s and "." in s))
    )


class _UrlStash:
    """Replaces URLs with single placeholder characters so later passes cannot mangle `_`, `~` or `%` in them."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def put(self, url: str) -> str:
        url = _strip_url(_URL_ESC_RE.sub(r"\1", url.strip()))
        if not url:
            return ""
        self.items.append(url)
        return chr(_URL0 + len(self.items) - 1)

    def put_with_tail(self, url: str) -> str:
        """Stash a bare URL; punctuation stripped from its end goes back into the text."""
        stripped = _strip_url(url)
        return self.put(stripped) + url[len(stripped) :]

    def restore(self, text: str) -> str:
        if not self.items:
            return text
        return _URL_PH_RE.sub(lambda m: self.items[ord(m.group()) - _URL0], text)


def _stash_urls(text: str, stash: _UrlStash) -> str:
    if "\\" in text:
        text = _TEX_URL_RE.sub(lambda m: stash.put(m.group(1)), text)
        if "href" in text or "hyperlink" in text:

            def _href(m: re.Match[str]) -> str:
                label = m.group(2).strip()
                ph = stash.put(m.group(1))
                if not label or _looks_like_url(label):
                    return ph
                return f"{label} ({ph})"

            text = _TEX_HREF_RE.sub(_href, text)
    if "](" in text:

        def _md(m: re.Match[str]) -> str:
            label = m.group(1).strip()
            ph = stash.put(m.group(2))
            if not label or _looks_like_url(label):
                return ph
            return f"{label} ({ph})"

        text = _MD_LINK_RE.sub(_md, text)
    if "<" in text:
        text = _ANGLE_URL_RE.sub(lambda m: stash.put(m.group(1)), text)
    if "://" in text:
        text = _BARE_URL_RE.sub(lambda m: stash.put_with_tail(m.group()), text)
    lower = text.lower()
    if any(h in lower for h in _SCHEMELESS_HINTS):
        text = _SCHEMELESS_URL_RE.sub(lambda m: stash.put_with_tail(m.group()), text)
    return text


# ---------------------------------------------------------------------------------------------------------------
# LaTeX tables
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "varkappa": "ϰ", "lambda": "λ",
    "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ρ",
    "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "varGamma": "Γ", "varDelta": "Δ",
    "varTheta": "Θ", "varLambda": "Λ", "varXi": "Ξ", "varPi": "Π", "varSigma": "Σ", "varPhi": "Φ",
    "varPsi": "Ψ", "varOmega": "Ω", "eps": "ε", "digamma": "ϝ",
}  # fmt: skip
_SYMBOLS = {
    # operators
    "times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓", "ast": "∗", "star": "⋆", "circ": "∘",
    "bullet": "•", "oplus": "⊕", "otimes": "⊗", "odot": "⊙", "oslash": "⊘", "ominus": "⊖", "cup": "∪",
    "cap": "∩", "setminus": "∖", "wedge": "∧", "land": "∧", "vee": "∨", "lor": "∨", "neg": "¬", "lnot": "¬",
    "rtimes": "⋊", "ltimes": "⋉", "sqcup": "⊔", "sqcap": "⊓", "uplus": "⊎", "amalg": "⨿", "diamond": "⋄",
    # relations
    "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥", "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠",
    "approx": "≈", "sim": "~", "simeq": "≃", "cong": "≅", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫",
    "lesssim": "≲", "gtrsim": "≳", "asymp": "≍", "prec": "≺", "succ": "≻", "preceq": "⪯", "succeq": "⪰",
    "subset": "⊂", "subseteq": "⊆", "subsetneq": "⊊", "supset": "⊃", "supseteq": "⊇", "in": "∈",
    "notin": "∉", "ni": "∋", "perp": "⊥", "parallel": "∥", "mid": "|", "nmid": "∤", "triangleq": "≜",
    "coloneqq": "≔", "coloneq": "≔", "doteq": "≐", "models": "⊨", "vdash": "⊢", "lt": "<", "gt": ">",
    "approxeq": "≊", "nsim": "≁", "leftrightharpoons": "⇋", "sqsubseteq": "⊑",
    # arrows
    "to": "→", "rightarrow": "→", "leftarrow": "←", "gets": "←", "Rightarrow": "⇒", "Leftarrow": "⇐",
    "Leftrightarrow": "⇔", "leftrightarrow": "↔", "implies": "⟹", "iff": "⟺", "mapsto": "↦",
    "uparrow": "↑", "downarrow": "↓", "Uparrow": "⇑", "Downarrow": "⇓", "longrightarrow": "⟶",
    "longleftarrow": "⟵", "Longrightarrow": "⟹", "longmapsto": "⟼", "hookrightarrow": "↪",
    "rightsquigarrow": "⇝", "leadsto": "⇝", "nearrow": "↗", "searrow": "↘", "rightleftharpoons": "⇌",
    # big operators
    "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬", "oint": "∮", "bigcup": "⋃",
    "bigcap": "⋂", "bigoplus": "⨁", "bigotimes": "⨂", "bigvee": "⋁", "bigwedge": "⋀",
    # misc symbols
    "infty": "∞", "partial": "∂", "nabla": "∇", "emptyset": "∅", "varnothing": "∅", "ell": "ℓ", "hbar": "ℏ",
    "aleph": "ℵ", "wp": "℘", "Re": "ℜ", "Im": "ℑ", "top": "⊤", "bot": "⊥", "dagger": "†", "dag": "†",
    "ddagger": "‡", "ddag": "‡", "prime": "′", "forall": "∀", "exists": "∃", "nexists": "∄",
    "ldots": "…", "cdots": "⋯", "dots": "…", "dotsc": "…", "dotsb": "⋯", "vdots": "⋮", "ddots": "⋱",
    "square": "□", "Box": "□", "blacksquare": "■", "triangle": "△", "angle": "∠", "sharp": "♯", "flat": "♭",
    "natural": "♮", "checkmark": "✓", "cmark": "✓", "xmark": "✗", "surd": "√", "S": "§", "P": "¶",
    "copyright": "©", "pounds": "£", "euro": "€", "degree": "°", "clubsuit": "♣", "spadesuit": "♠",
    "heartsuit": "♡", "diamondsuit": "♢", "lozenge": "◊", "imath": "ı", "jmath": "ȷ",
    # delimiters
    "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "lVert": "‖",
    "rVert": "‖", "Vert": "‖", "vert": "|", "lvert": "|", "rvert": "|", "lbrace": _LBR, "rbrace": _RBR,
    "lbrack": "[", "rbrack": "]", "backslash": "∖",
    # text symbols and letters
    "textemdash": "—", "textendash": "–", "textdegree": "°", "texttimes": "×", "textasciitilde": "~",
    "textless": "<", "textgreater": ">", "textperthousand": "‰", "textbar": "|", "textbullet": "•",
    "textquoteright": "’", "textquoteleft": "‘", "textquotedblleft": "“", "textquotedblright": "”",
    "textregistered": "®", "texttrademark": "™", "textsection": "§", "textasciicircum": "^",
    "textunderscore": "_", "textbackslash": "∖", "dollar": "USD",
    "AA": "Å", "aa": "å", "L": "Ł", "l": "ł", "o": "ø", "O": "Ø", "ss": "ß", "ae": "æ", "AE": "Æ",
    "oe": "œ", "OE": "Œ", "i": "ı", "j": "ȷ",
    "LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX",
    "eg": "e.g.", "ie": "i.e.", "etc": "etc.", "wrt": "w.r.t.", "aka": "a.k.a.", "vs": "vs.", "etal": "et al.",
    "cf": "cf.", "iid": "i.i.d.", "Eg": "E.g.", "Ie": "I.e.",
    # common user macros for blackboard letters
    "R": "ℝ", "RR": "ℝ", "N": "N", "NN": "ℕ", "ZZ": "ℤ", "QQ": "ℚ", "CC": "ℂ", "E": "𝔼", "EE": "𝔼",
    "Var": "Var", "Cov": "Cov", "Pr": "Pr",
    # spacing
    "quad": " ", "qquad": " ", "enspace": " ", "thinspace": " ", "medspace": " ", "thickspace": " ",
    "newline": " ", "linebreak": " ", "par": "\n\n", "item": " • ", "hfill": " ", "space": " ", "break": " ",
    # function names
    "log": "log", "ln": "ln", "lg": "lg", "exp": "exp", "min": "min", "max": "max", "sup": "sup",
    "inf": "inf", "lim": "lim", "limsup": "lim sup", "liminf": "lim inf", "arg": "arg", "argmin": "argmin",
    "argmax": "argmax", "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "det": "det", "dim": "dim",
    "ker": "ker", "deg": "deg", "gcd": "gcd", "lcm": "lcm", "hom": "hom", "Tr": "Tr", "tr": "tr",
    "rank": "rank", "diag": "diag", "sgn": "sgn", "sign": "sign", "softmax": "softmax", "poly": "poly",
    "polylog": "polylog", "mod": " mod ", "bmod": " mod ", "choose": " choose ", "over": "/",
}  # fmt: skip
_DROP_CMDS = _ws(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle displaystyle textstyle "
    "scriptstyle scriptscriptstyle limits nolimits nonumber notag noindent centering raggedright raggedleft "
    "selectfont small large Large LARGE huge Huge tiny scriptsize footnotesize normalsize relax xspace "
    "maketitle hline toprule midrule bottomrule vfill smallskip medskip bigskip protect phantom "
    "strut allowbreak nobreak mathstrut faGithub faCode faLink normalfont upshape mdseries rmfamily sffamily "
    "ttfamily scshape footnotemark ignorespaces unskip not"
)  # fmt: skip
_BOLD_CMDS = frozenset({"textbf"})
_ITALIC_CMDS = frozenset({"textit", "emph", "textsl", "textem"})
_CONTENT_CMDS = _ws(
    "text textrm textsf texttt textsc textnormal textup textmd mathrm mathsf mathtt mathcal mathscr mathfrak "
    "mathbf boldsymbol bm symbf symbfit symbit symrm symsf symtt symcal mathit mathnormal mathord mathop "
    "mathrel mathbin mbox hbox fbox framebox makebox underline uline ul textul overline smash ensuremath "
    "operatorname operatornamewithlimits mathds mathbbm hl sout st textsuperscript textsubscript "
    "boxed cancel underbrace overbrace lowercase uppercase MakeUppercase MakeLowercase textnumero"
)  # fmt: skip
_QUOTE_CMDS = frozenset({"say", "enquote", "textquote", "q", "qq"})
_REMOVE_CMDS = _ws(
    "cite citep citet citealp citealt citeauthor citeyear citenum nocite ref cref Cref eqref autoref pageref "
    "label color begin end vspace hspace usepackage fontfamily fontsize fontseries fontshape pagestyle "
    "thispagestyle bibliography bibliographystyle input include setlength addtolength footnotetext "
    "includegraphics newcommand renewcommand def"
)  # fmt: skip
_BB = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ", "H": "ℍ", "1": "𝟙", "I": "𝕀"}
_ACCENT_MARKS = {
    "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323",
    "b": "\u0331",
}  # fmt: skip
_MATH_ACCENTS = {
    "tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304",
    "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306", "acute": "\u0301",
    "grave": "\u0300", "mathring": "\u030a", "overrightarrow": "\u20d7",
}  # fmt: skip

_SUP = dict(
    zip(
        "0123456789+-−=()aAbBcdDeEfgGhHiIjJkKlLmMnNoOpPrRstTuUvVwWxyzαβγδεθφχ⊤ι",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᴬᵇᴮᶜᵈᴰᵉᴱᶠᵍᴳʰᴴⁱᴵʲᴶᵏᴷˡᴸᵐᴹⁿᴺᵒᴼᵖᴾʳᴿˢᵗᵀᵘᵁᵛⱽʷᵂˣʸᶻᵅᵝᵞᵟᵋᶿᵠᵡᵀᶥ",
        strict=True,
    )
)
_SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))
# Characters that already read as superscripts: kept as they are after ^.
_SUP_KEEP = frozenset("′″‴†‡∗⋆★°∘*'")
_DINGS = {**{172 + i: chr(0x2460 + i) for i in range(10)}, **{182 + i: chr(0x2776 + i) for i in range(10)}}

# ---------------------------------------------------------------------------------------------------------------
# LaTeX regexes
_MULTI_BS_RE = re.compile(r"\\{2,}(?=[A-Za-z%$&_#{}<>|])")
_LINEBREAK_RE = re.compile(r"\\\\(?:\[[^\]]*\])?")
_ESC_DOLLAR_RE = re.compile(r"\\\$\s?(?=(\d)?)")
_MATH_RE = re.compile(
    r"\$\$(?P<d>(?:(?!\n\s*\n)[^$])+?)\$\$|\$(?P<s>(?:(?!\n\s*\n)[^$])+?)\$"
    r"|\\\((?P<p>(?:(?!\n\s*\n).)+?)\\\)|\\\[(?P<b>(?:(?!\n\s*\n).)+?)\\\]",
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


def _sup(text: str) -> str:
    """Render a superscript with Unicode when every character has one, else ``^(..)``."""
    t = text.replace(" ", "")
    if not t:
        return ""
    if all(c in _SUP_KEEP for c in t):
        return t.replace("*", "∗").replace("'", "′")
    if all(c in _SUP for c in t):
        return "".join(_SUP[c] for c in t)
    return f"{_CAR}{t}" if len(t) == 1 else f"{_CAR}({t})"


def _sub(text: str) -> str:
    """Render a subscript with Unicode when every character has one, else ``_(..)``."""
    t = text.replace(" ", "")
    if not t:
        return ""
    if all(c in _SUB for c in t):
        return "".join(_SUB[c] for c in t)
    return f"{_USC}{t}" if len(t) == 1 else f"{_USC}({t})"


def _paren(s: str) -> str:
    s = s.strip()
    return f"({s})" if len(s) > 1 and any(c in _OPERATOR_CHARS for c in s) else s


def _accent(base: str, mark: str) -> str:
    base = base.strip()
    if len(base) == 1:
        return base + mark
    return base


def _symbol(m: re.Match[str]) -> str:
    name = m.group(1)
    sym = _GREEK.get(name) or _SYMBOLS.get(name)
    if sym is not None:
        return sym
    if name in _DROP_CMDS:
        return ""
    return m.group(0)


def _one_arg(m: re.Match[str], math: bool) -> str:
    name, arg = m.group(1), m.group(2)
    if name in _BOLD_CMDS:
        return f"{_BO}{arg}{_BC}" if arg.strip() else arg
    if name in _ITALIC_CMDS:
        return f"{_IO}{arg}{_IC}" if arg.strip() else arg
    if name in _CONTENT_CMDS:
        return arg
    if name == "mathbb" or name == "mathbbm" or name == "mathds":
        a = arg.strip()
        return _BB.get(a, a)
    if name in _MATH_ACCENTS:
        return _accent(arg, _MATH_ACCENTS[name])
    if name in _REMOVE_CMDS:
        return ""
    if name in _QUOTE_CMDS:
        return f"“{arg}”"
    if name == "footnote":
        return f" ({arg.strip()})" if arg.strip() else ""
    if name == "ding":
        try:
            return _DINGS.get(int(arg), "•")
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
    if name in _GREEK or name in _SYMBOLS:
        return (_GREEK.get(name) or _SYMBOLS[name]) + arg
    if name in _DROP_CMDS:
        return arg
    # Unknown (usually a user macro such as \method{} or a formatting macro such as \b{Co}).
    return arg if arg.strip() else name


def _two_arg(m: re.Match[str]) -> str:
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
    kind, body = m.group(1), m.group(2)
    if not body.strip():
        return body
    if kind in ("bf", "bfseries", "boldmath"):
        return f"{_BO}{body}{_BC}"
    if kind in ("it", "itshape", "em", "sl", "slshape"):
        return f"{_IO}{body}{_IC}"
    return body


def _sqrt(m: re.Match[str]) -> str:
    root = {"3": "∛", "4": "∜"}.get((m.group(1) or "").strip(), "√")
    return root + _paren(m.group(2))


def _accents(s: str) -> str:
    if "\\" not in s:
        return s
    s = _ACCENT_RE.sub(lambda m: (m.group(2) or m.group(3)) + _ACCENT_MARKS[m.group(1)], s)
    return _ACCENT_LETTER_RE.sub(lambda m: m.group(2) + _ACCENT_MARKS[m.group(1)], s)


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
            s = _SUPSUB_BRACE_RE.sub(lambda m: _sup(m.group(2)) if m.group(1) == "^" else _sub(m.group(2)), s)
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
        s = _SUPSUB_ONE_RE.sub(lambda m: _sup(m.group(2)) if m.group(1) == "^" else _sub(m.group(2)), s)
        s = s.replace("^", _CAR).replace("_", _USC)
    s = s.replace("*", "∗").replace("~", _TIL)
    return _MATH_SPACE_RE.sub(" ", s).strip()


def _math_sub(m: re.Match[str]) -> str:
    content = m.group("d") or m.group("s") or m.group("p") or m.group("b") or ""
    out = _math(content)
    # A "$ and $" span is usually two mis-paired dollars around prose: keep the spaces around its words.
    if content[:1].isspace() and _WORD_EDGE_START_RE.match(out):
        out = " " + out
    if content[-1:].isspace() and _WORD_EDGE_END_RE.search(out):
        out += " "
    return out


def _latex(s: str) -> str:
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
            s = _ROMAN_RE.sub(lambda m: _roman(int(m.group(1))), s)
        s = _accents(s)
        s = _TEXT_LETTER_SPACE_RE.sub(r"\\\1{}", s)
        s = s.replace("\\{", _LBR).replace("\\}", _RBR).replace("\\*", "∗")
    if "$" in s or "\\(" in s or "\\[" in s:
        s = _MATH_RE.sub(_math_sub, s)
        s = s.replace("$", "")
    if "\\" in s or "{" in s:
        s = _tex_pass(s, math=False)
    if "\\" in s:
        s = _ESCAPED_RE.sub(r"\1", s)
        s = _LINEBREAK_RE.sub(" ", s)
        s = _SPACING_RE.sub(" ", s)
        s = _UNKNOWN_CMD_RE.sub(lambda m: _GREEK.get(m.group(1)) or _SYMBOLS.get(m.group(1)) or m.group(1), s)
        s = s.replace("\\", "")
    if "{" in s or "}" in s:
        s = s.replace("{", "").replace("}", "")
    return s


def _drop_unbalanced_braces(s: str) -> str:
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


def _roman(n: int) -> str:
    if not 0 < n < 4000:
        return str(n)
    out = []
    for value, letters in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# Markdown, quotes, dashes, spacing
_MD_BOLD_RE = re.compile(r"(\*\*|__)(?=\S)((?:(?!\1)[^\n])+?)(?<=\S)\1")
_MD_BOLD_ITALIC_RE = re.compile(r"\*\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*\*")
_STAR_RUN_RE = re.compile(r"\*{2,}")
_MD_ITALIC_STAR_RE = re.compile(r"(?<![*])(?<![^\W_])\*(?=[^\s*])([^*\n]{1,2000}?)(?<=[^\s*])\*(?![*])(?![^\W_])")
_MD_ITALIC_US_RE = re.compile(
    r"(?<![^\s(\[{“\"'‘/,;:\-—–\ue010-\ue013])_(?=[^\s_])([^_\n]{1,2000}?)(?<=[^\s_])_(?![\w_])"
)
_TEX_QUOTES_RE = re.compile(r"``(.+?)(?:''|\"|”)", re.S)
_TWO_SINGLE_QUOTES_RE = re.compile(r"(?<![\w'])''(?=\S)(.+?)(?:''|\"|”)", re.S)
_SINGLE_TEX_QUOTE_RE = re.compile(r"(?<![\w`])`(?=\S)([^`'\n]{1,200}?)'(?!\w)")
_DASH3_RE = re.compile(r"(?<![-<])---(?![->])")
_DASH2_RE = re.compile(r"(?<![-<!])--(?![->])")
_TIE_RE = re.compile(r"(?<=[A-Za-z.,;:)\]}])~(?=[A-Za-z(\[\\$])")
_SPACE_BEFORE_PUNCT_RE = re.compile(r" +(?=[,;:.](?:\s|$))")
_PUNCT_LEFT_OK = frozenset(")]”’%\ue011\ue013")
_SPACE_INSIDE_PARENS_RE = re.compile(r"\([ \t]+|[ \t]+\)")
_HSPACE_RE = re.compile(
    r"[\t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000][ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]*"
    r"| [ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+"
)
_PARA_RE = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_NEWLINE_RE = re.compile(r"[ \t]*\n[ \t]*")
_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")

# PDF hyphenation repair
_HYPHEN_BREAK_RE = re.compile(r"(?<=\w)- (?=[a-z])")
_LEFT_WORD_RE = re.compile(r"(?<![\w-])[^\W\d_]\w*$")
_RIGHT_WORD_RE = re.compile(r"[a-z]+(?![\w-])")
_CONNECTORS = _ws("and or to nor versus vs than but we a an the with as of in on at by for from into via not")
_COMPOUND_PARTS = _ws(
    "driven based aware free specific level wise scale time agnostic efficient guided constrained conditioned "
    "oriented intensive dependent independent invariant preserving augmented informed centric like tuned "
    "trained supervised controlled enhanced induced related style only friendly sensitive critical optimal "
    "consistent compatible ready grained order step shot stage class domain task token world source "
    "resolution dimensional agent specific bounded regularized weighted guided learning"
)  # fmt: skip
_KEEP_PREFIXES = _ws(
    "self cross non multi semi post pre co anti meta pseudo quasi sub super inter intra over under out "
    "fine long short high low well state end open zero few one two three single dual"
)  # fmt: skip
_GLUE_SUFFIXES = _ws(
    "driven based aware constrained conditioned guided agnostic specific efficient intensive oriented centric "
    "invariant preserving augmented informed free"
)
_GLUE_SUFFIXES_T = tuple(sorted(_GLUE_SUFFIXES))
_GLUE_RE = re.compile(r"([a-z]{4,})(" + "|".join(_GLUE_SUFFIXES_T) + r")")
_GLUE_BAD_PREFIXES = _ws("under over multi inter intra self semi super sub counter post anti hyper care carefree")
_WORD_RE = re.compile(r"[^\W_]+")


def _repair_hyphenation(s: str) -> str:
    """Fix PDF line-break artefacts: ``sem- inal`` → ``seminal``, ``causality- driven`` → ``causality-driven``."""
    vocab: dict[str, int] | None = None
    lower = s.lower()

    def _vocab() -> dict[str, int]:
        nonlocal vocab
        if vocab is None:
            vocab = {}
            for w in _WORD_RE.findall(lower):
                vocab[w] = vocab.get(w, 0) + 1
        return vocab

    if "- " in s:

        def _fix(left: str, right: str) -> str:
            ll = left.lower()
            if right in _CONNECTORS:
                return f"{left}- {right}"
            v = _vocab()
            if ll + right in v:
                return left + right
            if f"{ll}-{right}" in lower:
                return f"{left}-{right}"
            if right in _COMPOUND_PARTS:
                return f"{left}-{right}"
            # both halves also occur on their own elsewhere in the text (the break itself counts once)
            left_ok = ll in _KEEP_PREFIXES or (len(ll) >= 4 and v.get(ll, 0) >= 2)
            if len(right) >= 3 and v.get(right, 0) >= 2 and left_ok:
                return f"{left}-{right}"
            if not left.islower() and not left[:1].isupper():
                return f"{left}- {right}"
            if any(c.isupper() for c in left[1:]) or any(c.isdigit() for c in left):
                return f"{left}-{right}"  # "GRPO- based", "3D- printing": never glue onto an acronym
            return left + right

        out: list[str] = []
        pos = 0
        for hb in _HYPHEN_BREAK_RE.finditer(s):
            lm = _LEFT_WORD_RE.search(s, max(pos, hb.start() - 40), hb.start())
            rm = _RIGHT_WORD_RE.match(s, hb.end())
            if not lm or not rm:
                continue
            out.append(s[pos : lm.start()])
            out.append(_fix(lm.group(), rm.group()))
            pos = rm.end()
        if out:
            out.append(s[pos:])
            s = "".join(out)
            lower = s.lower()

    if not any(suffix in lower for suffix in _GLUE_SUFFIXES):
        return s
    v = _vocab()
    for word, n in list(v.items()):
        if n != 1 or len(word) < 10 or not word.endswith(_GLUE_SUFFIXES_T) or not word.isascii():
            continue
        m = _GLUE_RE.fullmatch(word)
        if m and m.group(1) not in _GLUE_BAD_PREFIXES and m.group(1) in v:
            s = re.sub(rf"\b{word}\b", f"{m.group(1)}-{m.group(2)}", s)
    return s


def _drop_space_before_punct(s: str) -> str:
    """``Large Language Models , which`` → ``Large Language Models, which`` (a PDF/HTML extraction artefact)."""

    def _one(m: re.Match[str]) -> str:
        before = s[m.start() - 1] if m.start() else " "
        return "" if before.isalnum() or before in _PUNCT_LEFT_OK else m[0]

    return _SPACE_BEFORE_PUNCT_RE.sub(_one, s)


def _fix_quotes(s: str) -> str:
    if "`" in s:
        s = _TEX_QUOTES_RE.sub(r"“\1”", s)
        s = _SINGLE_TEX_QUOTE_RE.sub(r"‘\1’", s)
    if "''" in s:
        s = _TWO_SINGLE_QUOTES_RE.sub(r"“\1”", s)
        s = s.replace("''", "”")
    return s


def _markdown(s: str) -> str:
    if "**" in s or "__" in s:
        if "****" in s:
            s = s.replace("****", "")  # "**A****B**": a bold span closed and reopened at once
        if "***" in s:
            s = _MD_BOLD_ITALIC_RE.sub(lambda m: f"{_BO}{_IO}{m.group(1)}{_IC}{_BC}", s)
        s = _MD_BOLD_RE.sub(lambda m: f"{_BO}{m.group(2)}{_BC}", s)
        s = _STAR_RUN_RE.sub("", s).replace("__", "")
    if "*" in s:
        s = _MD_ITALIC_STAR_RE.sub(lambda m: f"{_IO}{m.group(1)}{_IC}", s)
        s = s.replace("*", "∗")  # a lone literal asterisk must not pair up with another one in Slack
    if "_" in s:
        s = _MD_ITALIC_US_RE.sub(lambda m: f"{_IO}{m.group(1)}{_IC}", s)
    return s


def _whitespace(s: str) -> str:
    s = _HSPACE_RE.sub(" ", s)
    if "\n" in s:
        s = _PARA_RE.sub("\u2029", s)
        s = _NEWLINE_RE.sub(" ", s)
        s = _HSPACE_RE.sub(" ", s)
        s = "\n\n".join(p.strip() for p in s.split("\u2029") if p.strip())
    return s.strip()


_PRIVATE_USE_RE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def _no_private_use(s: str) -> str:
    """Drop private-use characters so input can never forge the markers and placeholders used here."""
    return _PRIVATE_USE_RE.sub("", s) if not s.isascii() and _PRIVATE_USE_RE.search(s) else s


@lru_cache(maxsize=4096)
def _core(text: str) -> str:
    """Raw title/abstract → readable Unicode text with private-use emphasis markers (shared by clean/plain)."""
    if not text:
        return ""
    s = text.replace("\r\n", "\n").replace("\r", "\n")
    s = _no_private_use(s)
    if "&" in s and ";" in s:
        s = html.unescape(s)
    s = _ZERO_WIDTH_RE.sub("", s)
    stash = _UrlStash()
    if "://" in s or "\\url" in s or "www." in s or ".io" in s or ".com/" in s or ".co/" in s or ".org/" in s:
        s = _stash_urls(s, stash)
    if "~" in s:
        s = _TIE_RE.sub(" ", s)
    if "\\" in s or "$" in s:
        s = _latex(s)
    elif "{" in s or "}" in s:
        s = _drop_unbalanced_braces(s)  # plain text may use braces for sets: "{0, 1}"
    s = _markdown(s)
    s = _fix_quotes(s)
    if "--" in s:
        s = _DASH3_RE.sub("—", s)
        s = _DASH2_RE.sub("–", s)
    s = s.replace(_LBR, "{").replace(_RBR, "}").replace(_USC, "_").replace(_CAR, "^").replace(_TIL, "~")
    if _BO in s or _IO in s:
        s = _SPACE_BEFORE_CLOSE_RE.sub(r"\2\1", s)  # "**x **" → "**x** ": emphasis hugs its text
        s = _SPACE_AFTER_OPEN_RE.sub(r"\2\1", s)
    s = _whitespace(s)
    if " " in s:
        if " ," in s or " ." in s or " ;" in s or " :" in s:
            s = _drop_space_before_punct(s)
        if "( " in s or " )" in s:
            s = _SPACE_INSIDE_PARENS_RE.sub(lambda m: m.group().strip(), s)
    s = _repair_hyphenation(s)
    s = stash.restore(s)
    if not s.isascii() and not unicodedata.is_normalized("NFC", s):
        s = unicodedata.normalize("NFC", s)
    return s


# ---------------------------------------------------------------------------------------------------------------
# Rendering
_SPAN_RE = {
    "b": re.compile(f"{_BO}([^{_BO}{_BC}]*){_BC}"),
    "i": re.compile(f"{_IO}([^{_IO}{_IC}]*){_IC}"),
}


_MARKER_CHARS = frozenset("\ue010\ue011\ue012\ue013")
_OPEN_OK = frozenset(" \t\n([{“‘\"'/-—–:;,")
_CLOSE_OK = frozenset(" \t\n.,;:!?)]}”’\"'/-—–")


def _render(s: str) -> str:
    """Turn emphasis markers into Slack mrkdwn, dropping markers Slack could not render (mid-word, empty)."""
    for kind, mark in (("i", "_"), ("b", "*")):
        rx = _SPAN_RE[kind]
        for _ in range(6):
            if not rx.search(s):
                break

            def _one(m: re.Match[str], mark: str = mark, s: str = s) -> str:
                body = m.group(1)
                inner = body.strip()
                lead = body[: len(body) - len(body.lstrip())]
                trail = body[len(body.rstrip()) :]
                start, end = m.start(), m.end()
                while start and s[start - 1] in _MARKER_CHARS:
                    start -= 1
                while end < len(s) and s[end] in _MARKER_CHARS:
                    end += 1
                before = lead[:1] or (s[start - 1] if start else " ")
                after = trail[:1] or (s[end] if end < len(s) else " ")
                # Slack only renders *x* / _x_ at word boundaries and on one line; otherwise keep the bare text.
                if (
                    not inner
                    or mark in inner
                    or "\n" in inner
                    or "://" in inner
                    or before not in _OPEN_OK
                    or after not in _CLOSE_OK
                ):
                    return body
                return f"{lead}{mark}{inner}{mark}{trail}"

            s = rx.sub(_one, s)
    return _MARKERS_RE.sub("", s)


_DOUBLE_SPACE_RE = re.compile(r" {2,}")


def clean(text: str) -> str:
    """Turn a raw title/abstract (LaTeX, Markdown, HTML entities, PDF artefacts) into Slack mrkdwn for display."""
    if not text:
        return ""
    core = _core(text)
    if _BO not in core and _IO not in core:
        return core
    s = _render(core)
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s


def plain(text: str) -> str:
    """Like ``clean`` but with no emphasis markers: the text the search index and name derivation should see."""
    if not text:
        return ""
    core = _core(text)
    if _BO not in core and _IO not in core:
        return core
    s = _MARKERS_RE.sub("", core)
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s


def urls(text: str) -> list[str]:
    """Return the URLs in a raw text, in order and deduplicated, without trailing punctuation (for link buttons)."""
    if not text:
        return []
    stash = _UrlStash()
    s = _no_private_use(html.unescape(text) if "&" in text else text)
    marked = _stash_urls(s.replace("\\\\", "\\"), stash)
    out: list[str] = []
    for ph in _URL_PH_RE.findall(marked):  # in reading order, whatever syntax each link used
        u = stash.items[ord(ph) - _URL0]
        if not u.lower().startswith(("http://", "https://")):
            u = "https://" + u
        if u not in out:
            out.append(u)
    return out


def _is_code_url(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    host = host.removeprefix("www.")
    return host in _CODE_HOSTS or host.endswith(".github.io") or host.endswith(".gitlab.io")


def code_url(text: str) -> str | None:
    """Return the first code or project-page link (GitHub, GitLab, Hugging Face, *.github.io, ...) in a text."""
    for u in urls(text):
        if _is_code_url(u):
            return u
    return None


# ---------------------------------------------------------------------------------------------------------------
# Sentences and contribution phrases
_ABBREV_END_RE = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|al|vs|cf|Fig|Figs|Eq|Eqs|Sec|resp|approx|incl|No|Ref|Tab|Dr|Mr|Ms|St|Thm|Prop|w\.r\.t)\.|"
    r"\b[A-Z]\.)$"
)
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“‘(]?[A-Z0-9μ])")
_CONTRIB_VERBS = (
    "propose|introduce|present|develop|design|describe|build|construct|create|release|contribute|formulate|devise|"
    "establish|offer|provide|put forward|study|investigate|identify|explore|analy[sz]e|show|demonstrate"
)
_AND_VERB_RE = re.compile(
    r"(?:\band|\bthen|,)\s+(?:then\s+|further\s+|also\s+|thus\s+|therefore\s+)?"
    r"(propose|introduce|present|develop|design|devise|build)(?:s|d|ed)?\b(.*)",
    re.S,
)
_STRONG_VERBS = frozenset({"propose", "introduce", "present", "develop", "design", "describe", "devise", "build"})
_SUBJECT = (
    r"(?:[Ww]e|[Tt]his (?:paper|work|study|article|submission|report|note)|[Oo]ur (?:work|paper|study)|[Hh]ere,? we)"
)
_CONTRIB_RE = re.compile(
    rf"\b{_SUBJECT}\s+(?:(?:first|then|further|also|additionally|therefore|thus|hence|instead|now|here|newly|"
    rf"formally|theoretically|empirically|systematically|subsequently|finally|next|jointly|simply)\s+)*"
    rf"(?P<verb>{_CONTRIB_VERBS})(?:s|es|d|ed)?\b(?P<rest>.*)",
    re.S,
)
_LEADING_FRAME_RE = re.compile(
    r"^(?:(?:In|Within) (?:this|the present|our) (?:paper|work|study|article|note),?\s*|"
    r"To (?:this end|address (?:this|these)(?: [\w-]+){0,3}|bridge this gap|fill this gap|tackle (?:this|these)"
    r"(?: [\w-]+){0,2}|overcome (?:this|these)(?: [\w-]+){0,2}|solve (?:this|these)(?: [\w-]+){0,2}),\s*|"
    r"(?:Here|Therefore|Thus|Hence|Instead|Consequently|Motivated by (?:this|these)(?: [\w-]+){0,3}|"
    r"Building on (?:this|these)(?: [\w-]+){0,3}|Based on (?:this|these)(?: [\w-]+){0,3}|First|Second|Third|"
    r"Finally|Specifically|In response|In contrast|Accordingly|To this end),\s*)+"
)


@lru_cache(maxsize=1024)
def _sentences(text: str) -> tuple[str, ...]:
    """Split plain text into sentences without breaking at e.g./i.e./et al./initials."""
    out: list[str] = []
    for para in text.split("\n\n"):
        start = 0
        for m in _SENT_SPLIT_RE.finditer(para):
            piece = para[start : m.start()].rstrip()
            if _ABBREV_END_RE.search(piece[-12:]):
                continue
            out.append(piece.strip())
            start = m.end()
        tail = para[start:].strip()
        if tail:
            out.append(tail)
    return tuple(s for s in out if s)


_CLAUSE_OPENERS = ("that ", "how ", "why ", "whether ")


@lru_cache(maxsize=8192)
def _claims(sent: str) -> tuple[tuple[int, str, str], ...]:
    """Contribution clauses in one sentence as (rank, verb, text after the verb); rank 0 is strongest."""
    out: list[tuple[int, str, str]] = []
    for m in _CONTRIB_RE.finditer(sent):
        verb, rest = m.group("verb"), m.group("rest")
        if verb not in _STRONG_VERBS:
            again = _AND_VERB_RE.search(rest)
            if again:  # "We study X and propose Y"
                verb, rest = again.group(1), again.group(2)
        if verb in _STRONG_VERBS:
            rank = 0
        elif verb.startswith(("show", "demonstrate")) or rest.lstrip().startswith(_CLAUSE_OPENERS):
            rank = 3
        elif verb in ("study", "investigate", "explore", "identify", "analyze", "analyse"):
            rank = 2
        else:
            rank = 1
        out.append((rank, verb, rest))
    return tuple(out)


def _contribution(sentences: tuple[str, ...]) -> tuple[int, str, str] | None:
    """Find the sentence that says what the paper does: (index, verb, rest); strong verbs win over weak ones."""
    best: tuple[int, int, str, str] | None = None
    for i, sent in enumerate(sentences):
        for rank, verb, rest in _claims(sent):
            if best is None or rank < best[0]:
                best = (rank, i, verb, rest)
        if best is not None and best[0] == 0:
            break
    if best is None or best[0] >= 3:
        return None
    return best[1], best[2], best[3]


# ---------------------------------------------------------------------------------------------------------------
# Names
_COMMON_ACRONYMS = _ws(
    """llm llms lm lms mllm mllms lvlm lvlms vlm vlms vla vlas slm slms rl rlhf rlvr rlaif grpo ppo dpo trpo sac ddpg
    dqn moe moes cot cots tot uq kv gpu gpus tpu tpus cpu sota auroc auc auprc roc lora qlora peft sft qaf vqa nlp
    nlu nlg cv cnn cnns rnn rnns lstm gru gnn gnns mlp mlps vit vits bert gpt gpts ai agi ml dl dnn dnns api apis
    sdk ocr asr tts pde pdes ode odes sde sdes mcts mdp mdps pomdp pomdps rag iid kl js ot em vae vaes gan gans
    ddpm ddim ntk svd pca ica lda knn svm nas fl hpo hp eeg ecg fmri mri ct 2d 3d 4d 1d nd io url html json sql
    gsm8k math mmlu imagenet cifar coco humaneval mbpp swe sat smt ner qa mcq fid is clip dino sam llama qwen gemma
    mistral mixtral deepseek claude gemini gpt4 gpt4o o1 o3 r1 iou psnr ssim lpips bleu rouge wer cer mse mae rmse
    ece nll ppl elbo sgd adam adamw relu gelu ffn attn rope gqa mha mqa bpe eos bos cls fp16 fp8 bf16 int8 int4 fp32
    cuda tf pytorch jax ssm ssms rnnt ctc sim2real nerf 3dgs gs sds icl ood id mil ssl gcn gat sota rlvf prm prms
    orm orms rm rms dpo simpo kto orpo ipo vllm sglang fsdp zero moa mcp ui gui guis llava internvl ocr vlm ar nar
    dit dits unet vit usd eu us uk aaai icml iclr neurips cvpr acl emnlp arxiv hf rlft kd pt ft ood ie eg wrt
    mcmc sae saes erm lidar marl mas fhe irl automl dp llmops mlops sota lrm lrms mllm vla imu rlhf sgd
    fft dft gp bo ea ga pso ilp milp lp qp sdp admm pinn pinns fno deeponet kan kans mamba transformer
    transformers resnet unet vae dm dms ldm ldms sd sdxl flux wan hunyuan cogvideox sora veo dalle midjourney
    webarena swebench osworld alfworld minigrid atari mujoco d4rl dmc metaworld libero calvin robomimic
    openai anthropic google meta microsoft nvidia openreview github huggingface"""
)
_GENERIC_NAME_WORDS = frozenset(
    """a an the our this that these those it its their we they two three four several novel new simple
    unified general generic method methods model models framework frameworks approach approaches algorithm
    algorithms system systems benchmark benchmarks dataset datasets task tasks paper work study analysis
    technique techniques strategy strategies pipeline architecture module modules loss objective theory
    ours name sys tool alg algo proposed ourmethod modelname methodname system network networks agent agents
    llm llms results experiments extensive large small first second finally"""
)
_FRAMEWORK_NOUNS = (
    "framework|method|model|approach|algorithm|system|benchmark|dataset|agent|pipeline|architecture|technique|"
    "strategy|toolkit|library|suite|procedure|scheme|paradigm|estimator|optimizer|policy|network|module|loss|"
    "objective|attack|defense|protocol|metric|family|recipe|solver|planner|engine|platform|tool|environment"
)
_FAMILY_SPLIT_RE = re.compile(r"[-\d.]")
_DIGIT_RE = re.compile(r"\d")
_ADJ_TAIL_RE = re.compile(r"-[a-z]{3,}$")
_PLURAL_ACR_RE = re.compile(r"^[A-Z]{2,}s$")
_OUR_NAME_RE = re.compile(rf"\b[Oo]ur\s+(?:proposed\s+|new\s+|novel\s+)?([^\s,;:()]+)\s+(?:{_FRAMEWORK_NOUNS})s?\b")
_ADJ_SUFFIX_RE = re.compile(
    r"-(?:inspired|based|driven|aware|free|guided|style|like|specific|level|wise|scale|agnostic|efficient|"
    r"constrained|oriented|centric|informed|augmented|enhanced|preserving|conditioned|only|shot|stage)$",
    re.I,
)
_SIZE_RE = re.compile(r"^\d+(?:\.\d+)?[KMBT]?$|^\d+(?:\.\d+)?[kmb]$|^\d+(?:st|nd|rd|th|D|x|×)$")
_TOKEN_RE = re.compile(r"(?<![\w-])[^\W_][\w.+²³¹⁰-⁹₀-₉-]*(?:[\w²³¹⁰-⁹₀-₉+]|(?<=\w)\+\+?)?(?![\w-])")
_NAME_TOKEN = r"[^\W\d_a-z][\w+²³¹⁰-⁹₀-₉-]*|[\d][\w-]*[A-Za-z][\w-]*|[a-zμ][\w-]*[A-Z][\w+-]*"
_NAME_AFTER_VERB_RE = re.compile(
    rf"^\s*(?P<name>(?:{_NAME_TOKEN})(?:\s+(?:{_NAME_TOKEN})){{0,3}})(?P<after>\s*(?:,|:|—|–|\(|\s+-\s+|\.?$)"
    rf"\s*(?P<next>[\w“\"]+)?|\s+(?P<rel>which|that|as|to|for|with|wherein|where)\b)"
)
_PAREN_ANY_RE = re.compile(r"\(([^()\s,;]{2,20})\)")
_ACR_LEFT = frozenset(" ”\"'*")
_PAREN_ACR_RE = re.compile(r"(?<=[\w”\"'*]) ?\(([^()\s,;]{2,20})\)")
_LOWER_FUNC_WORDS = _ws("of for and in on to with via the a an by from under over at as")


def _is_acronymish(tok: str) -> bool:
    """True for ``GPS``, ``μA``, ``ExSQF``, ``RACO``: short, several capitals or a Greek prefix, no spaces."""
    core = tok.rstrip("s") if tok.endswith("s") and sum(c.isupper() for c in tok) >= 2 else tok
    if not core or len(core) > 15 or " " in core:
        return False
    caps = sum(1 for c in core if c.isupper())
    if caps >= 2:
        return True
    return bool(re.match(r"^[α-ωΑ-Ω][A-Za-z0-9-]*$", core) and caps >= 1)


def _is_coined(tok: str) -> bool:
    """True for an invented name: a part in CamelCase (HiDe), letters with digits (GSM8K) or all capitals (RL)."""
    t = tok.strip("-")
    if len(t) < 2 or _SIZE_RE.match(t):
        return False
    segs = t.split("-")
    if len(segs) > 1 and segs[0] in _KEEP_PREFIXES:
        return False  # "non-Euclidean", "pre-SFT"
    for seg in segs:
        letters = sum(1 for c in seg if c.isalpha())
        if not letters:
            continue
        upper = sum(1 for c in seg if c.isupper())
        if upper and upper < letters and any(c.isupper() for c in seg[1:]):
            return True  # CamelCase / mixed: HiDe, TokSuite, μA, sEEG
        if letters >= 2 and any(c.isdigit() for c in seg):
            return True
        if letters >= 2 and upper == letters:
            return True
    return False


def _common(tok: str) -> bool:
    """True for a well-known acronym or model family (LLMs, GRPO, Qwen2.5-VL) that a paper does not introduce."""
    t = tok.rstrip("'’")
    if t.endswith(("'s", "’s")):
        t = t[:-2]
    low = t.lower()
    if low in _COMMON_ACRONYMS or (t.endswith("s") and low[:-1] in _COMMON_ACRONYMS):
        return True
    # model families with versions: "Qwen2.5-VL", "Llama-3", "GPT-4o", "Gemma-3"
    head = _FAMILY_SPLIT_RE.split(low, maxsplit=1)[0]
    return head in _COMMON_ACRONYMS and head != low


def _valid_name(name: str) -> bool:
    name = name.strip()
    if not name or len(name) < 2 or len(name) > 40:
        return False
    parts = name.split()
    if parts[0].lower() in _GENERIC_NAME_WORDS or len(parts) > 4:
        return False
    if any(p.lower() in _LOWER_FUNC_WORDS for p in parts):
        return False
    if len(parts) == 1 and _common(name):
        return False
    if all(_common(p) for p in parts):
        return False
    if _SIZE_RE.match(parts[0]):
        return False
    return not _ADJ_SUFFIX_RE.search(name)


def _defined_acronyms(text: str) -> set[str]:
    """Every ``(ACR)`` that directly follows a word: an abbreviation the text defines for something else."""
    return {m.group(1) for m in _PAREN_ANY_RE.finditer(text) if m.start() and text[m.start() - 1] in _ACR_LEFT}


_BREAK_BEFORE_ACR_RE = re.compile(r"[;.]\s|\b(?:which|that|where|such as|including|based on|e\.g|i\.e)\b")
_AFTER_ACR_OK = _ws(
    "that which to for as with where whereby wherein whose in on by and is are a an the via using from of"
)
_NEXT_WORD_RE = re.compile(r"\s*([A-Za-z]+)")


def _name_from_contribution(rest: str, loose: bool = False) -> tuple[str | None, str | None]:
    """Name introduced right after a contribution verb: acronym pair first, else a name followed by ', a ...'."""
    clause = rest
    # (a) Long Form (ACR) within the first dozen words after the verb
    for m in _PAREN_ACR_RE.finditer(clause, 0, 200):
        acr = m.group(1).strip()
        between = clause[: m.start()]
        if not between.strip() or _BREAK_BEFORE_ACR_RE.search(between):
            break
        nxt = _NEXT_WORD_RE.match(clause, m.end())
        if nxt and nxt.group(1).islower() and nxt.group(1) not in _AFTER_ACR_OK:
            continue  # "distributional dynamic programming (DP) methods": a modifier, not a name
        if _is_acronymish(acr) and not _common(acr) and _valid_name(acr):
            return acr, between
    # (b) a name right after the verb
    m = _NAME_AFTER_VERB_RE.match(clause)
    if m:
        name = m.group("name").strip()
        after = m.group("after") or ""
        nxt = (m.group("next") or "").lower()
        ok = False
        if m.group("rel"):
            ok = True
        elif after.lstrip().startswith(("(",)):
            ok = False
        elif after.strip().startswith((",", ":", "—", "–", "-")):
            ok = nxt in ("a", "an", "the", "which", "that", "our", "one", "two", "three", "consisting", "comprising")
            ok = ok or (len(name.split()) == 1 and _is_coined(name)) or nxt.endswith("ing")
        elif not after.strip():
            ok = len(name.split()) == 1 and (_is_coined(name) or name[:1].isupper())
        if loose and after.strip()[:1] in (",", ".", ";", ":", ")", ""):
            ok = True
        parts = name.split()
        if len(parts) > 1 and not any(_is_coined(p) for p in parts):
            ok = False  # "Preference Learning", "Proactive Document-Guided Action": a phrase, not a name
        if ok and _valid_name(name):
            return name, None
    return None, None


_CALLED_RE = re.compile(r"\b(?:called|named|dubbed|termed|coined|denoted)\s+(?:as\s+)?")
_REPO_GENERIC = _ws(
    """code codes src source main master repo repository project projects paper papers release official
    implementation impl demo home page website site github io index anonymous r tree blob"""
)


def _repo_name(url: str | None) -> str | None:
    """Coined repository name from a code URL (``github.com/FFY0/DefensiveKV`` → ``DefensiveKV``)."""
    if not url:
        return None
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    segs = [p for p in parts.path.split("/") if p]
    cand: str | None = None
    if host.endswith(".github.io"):
        cand = segs[0] if segs else None
        if cand:
            cand = re.sub(r"\.github\.io$", "", cand, flags=re.I)
    elif host == "anonymous.4open.science":
        cand = segs[1] if len(segs) >= 2 and segs[0] in ("r", "anonymize") else None
        if cand:
            cand = re.sub(r"-[0-9A-F]{4}$", "", cand)
    elif len(segs) >= 2:
        cand = segs[1] if host != "huggingface.co" or segs[0] not in ("datasets", "spaces") else segs[-1]
    if not cand:
        return None
    cand = re.sub(r"\.git$", "", cand)
    if cand.count("-") > 2 or any(p.islower() and len(p) <= 3 for p in cand.split("-")[1:]):
        return None  # "Spectral-Energy-Shifts-in-GAD" is a description, not a name
    if cand.lower() in _REPO_GENERIC or not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{1,30}", cand):
        return None
    has_internal_cap = any(c.isupper() for c in cand[1:]) and any(c.islower() for c in cand)
    if has_internal_cap and not _common(cand):
        return cand
    if cand.isupper() and 3 <= len(cand) <= 10 and not _common(cand):
        return cand
    return None


def derive_name(abstract: str, code_url: str | None = None) -> str | None:
    """Return the short name a paper introduces (``Vegas``, ``RACO``, ``μA``) or None, for titles and search."""
    if not abstract or not abstract.strip():
        return _repo_name(code_url)
    text = plain(abstract)
    sentences = _sentences(text)
    acronyms = _defined_acronyms(text)
    # (a)/(b): right after a contribution verb, in any sentence (strongest evidence first)
    for wanted in (0, 1):  # "we propose/introduce X" before "we formulate ... as Y (ACR)"
        for sent in sentences:
            for rank, _verb, rest in _claims(sent):
                if rank != wanted:
                    continue
                name, _long = _name_from_contribution(rest)
                if name:
                    return name
    # Names given with "called/named/dubbed/termed NAME"
    for m in _CALLED_RE.finditer(text):
        cand, _long = _name_from_contribution(text[m.end() : m.end() + 200].split(". ", 1)[0], loose=True)
        if cand and not _common(cand):
            return cand
    # (c) "our NAME framework"
    for m in _OUR_NAME_RE.finditer(text):
        cand = m.group(1).strip(".")
        if _is_coined(cand) and _valid_name(cand) and not _common(cand):
            return cand
    # (e, strong) repository name that also appears in the abstract
    repo = _repo_name(code_url) or _repo_name(next((u for u in urls(abstract) if _is_code_url(u)), None))
    if repo and repo in text and repo in _TOKEN_RE.findall(text):
        return repo
    # (d) a coined token repeated at least twice that is not an acronym of something else
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    bare = _BARE_URL_RE.sub(" ", text) if "." in text else text
    for i, m in enumerate(_TOKEN_RE.finditer(bare)):
        tok = m.group().rstrip(".-")
        rest = tok[1:]
        if (rest.islower() or not rest) and not _DIGIT_RE.search(rest):
            continue  # cheap pre-check: no inner capital and no digit, so not coined
        if tok.endswith(("'s", "’s")):
            tok = tok[:-2]
        if not _is_coined(tok) or _common(tok) or _PLURAL_ACR_RE.match(tok) or "." in tok:
            continue
        if _ADJ_TAIL_RE.search(tok):
            continue  # "AC-trivial", "LLM-based": an adjective built on an acronym
        if tok.endswith("s") and tok[:-1] in counts:
            tok = tok[:-1]  # "InvGNNs" counts for "InvGNN"
        counts[tok] = counts.get(tok, 0) + 1
        first.setdefault(tok, i)
    best: tuple[int, int, int, str] | None = None
    for tok, n in counts.items():
        if n < 2 or tok in acronyms or tok.rstrip("s") in acronyms:
            continue
        if len(tok) < 3 or (tok.isupper() and sum(c.isalpha() for c in tok) < 3):
            continue
        if tok.lower() in _GENERIC_NAME_WORDS:
            continue
        camel = 0 if any(c.islower() for c in tok) else 1  # prefer HiDe over an all-caps token
        key = (camel, -n, first[tok], tok)
        if best is None or key < best:
            best = key
    if best:
        return best[3]
    # (e) repository name alone
    return repo


# ---------------------------------------------------------------------------------------------------------------
# Titles from real conference data
_GENERIC_TITLE_PREFIX = _ws(
    """position survey overview review introduction tutorial perspective perspectives commentary abstract preface
    erratum correction corrigendum note notes editorial keynote report vision opinion rebuttal summary conclusion
    beyond on towards toward rethinking revisiting understanding when why how what where which who is are do does
    can should learning scaling not no less more closing breaking bridging unlocking mind lost from into through
    against tracing mapping measuring benchmarking evaluating escaping stop don't one the a an"""
)
_TITLE_PAREN_ACR_RE = re.compile(r"\(([^\W_][\w²³¹⁰-⁹₀-₉-]{1,15})\)\s*$")


def name_from_title(title: str) -> str | None:
    """Return the system name a title leads with (``TokSuite: Measuring ...`` → ``TokSuite``), else None."""
    if not title or ":" not in title:
        return None
    text = plain(title)
    if ":" not in text:
        return None
    head = text.split(":", 1)[0].strip()
    if not head:
        return None
    m = _TITLE_PAREN_ACR_RE.search(head)
    if m and _is_acronymish(m.group(1)):
        return m.group(1)
    tokens = head.split()
    if not 1 <= len(tokens) <= 4 or len(head) > 40:
        return None
    if tokens[0].lower().strip("'’") in _GENERIC_TITLE_PREFIX:
        return None
    if len(tokens) == 1:
        tok = tokens[0]
        if len(tok) < 2 or (tok.lower().endswith("ing") and tok[1:].islower()):
            return None
        return tok
    if any(t.isalpha() and t.islower() for t in tokens) or any(t.lower() in _LOWER_FUNC_WORDS for t in tokens):
        return None  # "RePack then Refine", "Reasoning in LLMs": a phrase, not a name
    if any(_is_coined(t) and not _common(t) for t in tokens):
        return head
    if any(any(c.isdigit() for c in t) for t in tokens[1:]) and not tokens[0].lower().endswith("ing"):
        return head  # "NaturalSpeech 3", "Gemma 3"
    return None


# ---------------------------------------------------------------------------------------------------------------
# Titles and headlines derived from abstracts
_TITLE_MAX = 90
_HEADLINE_MAX = 200
_TRAILING_CLAUSE_RE = re.compile(r"[,;:]?\s+(?:which|that|and|thereby|while|whereby)\s*$")
_WHICH_VERB_RE = re.compile(
    r"^(?:which|that)\s+(?:is|are)\s+(?=(?:a|an|the)\b)|^(?:which|that)\s+(?:([a-z]+ly)\s+)?([a-z]+)\b"
)


def _shorten(s: str, limit: int) -> str:
    """Cut at a word boundary and add an ellipsis when longer than limit."""
    s = s.strip()
    if len(s) <= limit:
        return s
    cut = s[: limit - 1]
    sp = cut.rfind(" ")
    if sp > limit // 2:
        cut = cut[:sp]
    cut = cut.rstrip(" ,;:–—-(")
    return cut + "…"


def _gerund(verb: str) -> str:
    """``replaces`` → ``replacing``; crude but right for the usual "X, which <verb>s ..." case."""
    v = verb
    if v.endswith("ies") and len(v) > 4:
        v = v[:-3] + "y"
    elif v.endswith(("sses", "shes", "ches", "xes", "zes")):
        v = v[:-2]
    elif v.endswith("s") and not v.endswith("ss"):
        v = v[:-1]
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    vowels = "aeiou"
    if 2 < len(v) <= 4 and v[-1] not in vowels + "wxy" and v[-2] in vowels and v[-3] not in vowels:
        return v + v[-1] + "ing"  # run → running, map → mapping
    return v + "ing"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


_LEAD_ADVERB_RE = re.compile(r"^(?:here|first|also)\s+")
_AUXILIARIES = _ws("is are was were be has have had can could may might will would shall should must does do")
_LEAD_TO_RE = re.compile(r"^to\s+([a-z]+)\b")
_LEAD_THAT_RE = re.compile(r"^(?:that|how)\s+")
_NOVEL_RE = re.compile(r"^(an?|An?)\s+(?:novel|new)\s+(?!and\b|or\b)")
_AFTER_NAME_RE = re.compile(r"^\s*(?:\([^()]*\))?\s*(?:,|:|—|–|-)?\s*")


def _describe(rest: str, name: str | None, long_form: str | None) -> str:
    """Turn the text after a contribution verb into a noun phrase describing the paper's contribution."""
    phrase = _LEAD_ADVERB_RE.sub("", rest.strip().rstrip(".").strip())
    to = _LEAD_TO_RE.match(phrase)
    if to:  # "we propose to bridge X" → "Bridging X"
        phrase = _gerund(to.group(1)) + phrase[to.end() :]
    if name:
        if long_form:
            return _drop_novel(long_form.rsplit(" as ", 1)[-1])
        bare = phrase[4:] if phrase.startswith("the ") else phrase
        if bare.startswith(name):
            phrase = _AFTER_NAME_RE.sub("", bare[len(name) :], count=1)
            w = _WHICH_VERB_RE.match(phrase)
            if w:
                adverb, verb = w.group(1), w.group(2)
                if not verb or verb in _AUXILIARIES:  # "which is designed to ..." → "Designed to ..."
                    phrase = phrase[w.end() :].lstrip()
                else:  # "which (adaptively) allocates ..." → "(Adaptively) allocating ..."
                    phrase = (f"{adverb} " if adverb else "") + _gerund(verb) + phrase[w.end() :]
        if f"({name})" in phrase:
            phrase = phrase.replace(f" ({name})", "").replace(f"({name})", "")
    else:
        phrase = _LEAD_THAT_RE.sub("", phrase)
    return _drop_novel(phrase.strip())


def _drop_novel(phrase: str) -> str:
    """``a novel approach`` → ``an approach``: the adjective adds nothing to a title."""
    m = _NOVEL_RE.match(phrase)
    if not m:
        return phrase
    rest = phrase[m.end() :]
    article = "an" if rest[:1].lower() in "aeiou" and rest[:1] else "a"
    if m.group(1)[0].isupper():
        article = article.capitalize()
    return f"{article} {rest}"


_CLAUSE_BREAK_RE = re.compile(
    r"(?:,|;|\s[–—])\s+(?=(?:which|while|where|whereby|thereby|thus|and thus|resulting|leading|allowing|enabling|"
    r"providing|achieving|making|yielding|treating|using|and|but)\b|[a-z]+ing\b)"
)


def _cut_clause(title: str) -> str:
    """Drop a trailing participle/relative clause ("…, allowing …") when that brings the title under the limit."""
    for m in _CLAUSE_BREAK_RE.finditer(title):
        if m.start() < 30:
            continue
        if m.start() <= _TITLE_MAX:
            return title[: m.start()]
        break
    return title


def _fallback_sentence(sentences: tuple[str, ...]) -> str:
    return sentences[0] if sentences else ""


def derive_title(abstract: str, name: str | None) -> str:
    """Build a short headline-style title (≤ 90 chars) from the contribution sentence, for papers without titles."""
    text = plain(abstract or "")
    if not text.strip():
        return _shorten(name, _TITLE_MAX) if name else "Untitled paper"
    sentences = _sentences(text)
    phrase = ""
    chosen: tuple[int, str, str] | None = None
    if name:
        for i, sent in enumerate(sentences):
            claim = next((c for c in _claims(sent) if c[0] < 3 and name in c[2]), None)
            if claim:
                chosen = (i, claim[1], claim[2])
                break
    if chosen is None:
        chosen = _contribution(sentences)
    if chosen is not None:
        rest = chosen[2]
        long_form = None
        if name:
            found, between = _name_from_contribution(rest)
            if found == name and between:
                long_form = between.strip()
        phrase = _describe(rest, name, long_form)
    if not phrase:
        phrase = _fallback_sentence(sentences).rstrip(".")
    phrase = _LEADING_FRAME_RE.sub("", phrase).strip()
    phrase = _cap(phrase)
    if name and phrase and not phrase.startswith(name):
        title = f"{name}: {phrase}"
    elif name and not phrase:
        title = name
    else:
        title = phrase or name or "Untitled paper"
    if len(title) > _TITLE_MAX:
        title = _cut_clause(title)
    title = _shorten(title, _TITLE_MAX)
    title = _TRAILING_CLAUSE_RE.sub("…", title) if title.endswith("…") else title
    return title.strip() or "Untitled paper"


def headline(abstract: str) -> str:
    """One line (≤ 200 chars) saying what the paper does: its contribution sentence, else its first sentence."""
    text = plain(abstract or "")
    if not text.strip():
        return ""
    sentences = _sentences(text)
    found = _contribution(sentences)
    sent = sentences[found[0]] if found else _fallback_sentence(sentences)
    sent = _cap(_LEADING_FRAME_RE.sub("", sent).strip())
    return _shorten(sent.replace("\n", " "), _HEADLINE_MAX)


# ---------------------------------------------------------------------------------------------------------------
# Tokens
_POSSESSIVE_RE = re.compile(r"(?<=\w)['’]s\b")


def words(text: str) -> list[str]:
    """Lowercase word tokens (hyphenated words split into parts), for the typo-correction vocabulary."""
    if not text:
        return []
    s = plain(text) if any(c in text for c in "\\$*_&{`") else text
    return _WORD_RE.findall(_POSSESSIVE_RE.sub("", s).lower())


def normalize_title(title: str) -> str:
    """Fold a title to lowercase alphanumerics and single spaces so the same paper matches across sources."""
    if not title:
        return ""
    s = unicodedata.normalize("NFKD", plain(title))
    s = "".join(c for c in s if not unicodedata.combining(c)).casefold()
    s = unicodedata.normalize("NFKC", s)
    return " ".join(_WORD_RE.findall(s))
