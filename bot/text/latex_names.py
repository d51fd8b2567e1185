"""What LaTeX's names stand for in Unicode: Greek letters, symbols and operators, blackboard letters, accents, super-
and subscripts, Roman numerals; and which commands keep, drop, emphasise or quote their argument (bot/text/latex.py
applies them)."""

from __future__ import annotations

from bot.text.markers import CARET, LBRACE, RBRACE, UNDERSCORE
from bot.text.words import word_set

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "varkappa": "ϰ", "lambda": "λ",
    "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ρ",
    "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "varGamma": "Γ", "varDelta": "Δ",
    "varTheta": "Θ", "varLambda": "Λ", "varXi": "Ξ", "varPi": "Π", "varSigma": "Σ", "varPhi": "Φ",
    "varPsi": "Ψ", "varOmega": "Ω", "eps": "ε", "digamma": "ϝ",
}  # fmt: skip
SYMBOLS = {
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
    "rVert": "‖", "Vert": "‖", "vert": "|", "lvert": "|", "rvert": "|", "lbrace": LBRACE, "rbrace": RBRACE,
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
DROP_CMDS = word_set(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle displaystyle textstyle "
    "scriptstyle scriptscriptstyle limits nolimits nonumber notag noindent centering raggedright raggedleft "
    "selectfont small large Large LARGE huge Huge tiny scriptsize footnotesize normalsize relax xspace "
    "maketitle hline toprule midrule bottomrule vfill smallskip medskip bigskip protect phantom "
    "strut allowbreak nobreak mathstrut faGithub faCode faLink normalfont upshape mdseries rmfamily sffamily "
    "ttfamily scshape footnotemark ignorespaces unskip not"
)  # fmt: skip
BOLD_CMDS = frozenset({"textbf"})
ITALIC_CMDS = frozenset({"textit", "emph", "textsl", "textem"})
CONTENT_CMDS = word_set(
    "text textrm textsf texttt textsc textnormal textup textmd mathrm mathsf mathtt mathcal mathscr mathfrak "
    "mathbf boldsymbol bm symbf symbfit symbit symrm symsf symtt symcal mathit mathnormal mathord mathop "
    "mathrel mathbin mbox hbox fbox framebox makebox underline uline ul textul overline smash ensuremath "
    "operatorname operatornamewithlimits mathds mathbbm hl sout st textsuperscript textsubscript "
    "boxed cancel underbrace overbrace lowercase uppercase MakeUppercase MakeLowercase textnumero"
)  # fmt: skip
QUOTE_CMDS = frozenset({"say", "enquote", "textquote", "q", "qq"})
REMOVE_CMDS = word_set(
    "cite citep citet citealp citealt citeauthor citeyear citenum nocite ref cref Cref eqref autoref pageref "
    "label color begin end vspace hspace usepackage fontfamily fontsize fontseries fontshape pagestyle "
    "thispagestyle bibliography bibliographystyle input include setlength addtolength footnotetext "
    "includegraphics newcommand renewcommand def"
)  # fmt: skip
BB = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ", "H": "ℍ", "1": "𝟙", "I": "𝕀"}
ACCENT_MARKS = {
    "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323",
    "b": "\u0331",
}  # fmt: skip
MATH_ACCENTS = {
    "tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304",
    "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306", "acute": "\u0301",
    "grave": "\u0300", "mathring": "\u030a", "overrightarrow": "\u20d7",
}  # fmt: skip

SUP = dict(
    zip(
        "0123456789+-−=()aAbBcdDeEfgGhHiIjJkKlLmMnNoOpPrRstTuUvVwWxyzαβγδεθφχ⊤ι",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᴬᵇᴮᶜᵈᴰᵉᴱᶠᵍᴳʰᴴⁱᴵʲᴶᵏᴷˡᴸᵐᴹⁿᴺᵒᴼᵖᴾʳᴿˢᵗᵀᵘᵁᵛⱽʷᵂˣʸᶻᵅᵝᵞᵟᵋᶿᵠᵡᵀᶥ",
        strict=True,
    )
)
SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))
# Characters that already read as superscripts: kept as they are after ^.
SUP_KEEP = frozenset("′″‴†‡∗⋆★°∘*'")
DINGS = {**{172 + i: chr(0x2460 + i) for i in range(10)}, **{182 + i: chr(0x2776 + i) for i in range(10)}}


def sup(text: str) -> str:
    """Render a superscript with Unicode when every character has one, else ``^(..)``."""
    t = text.replace(" ", "")
    if not t:
        return ""
    if all(c in SUP_KEEP for c in t):
        return t.replace("*", "∗").replace("'", "′")
    if all(c in SUP for c in t):
        return "".join(SUP[c] for c in t)
    return f"{CARET}{t}" if len(t) == 1 else f"{CARET}({t})"


def sub(text: str) -> str:
    """Render a subscript with Unicode when every character has one, else ``_(..)``."""
    t = text.replace(" ", "")
    if not t:
        return ""
    if all(c in SUB for c in t):
        return "".join(SUB[c] for c in t)
    return f"{UNDERSCORE}{t}" if len(t) == 1 else f"{UNDERSCORE}({t})"


def roman(n: int) -> str:
    """``\\romannumeral`` as lowercase Roman numerals."""
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
