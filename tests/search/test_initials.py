"""Reading a name typed with initials, and which listed names fit it (no index: pure functions on strings)."""

from __future__ import annotations

import pytest

from bot.search.initials import TypedInitials, fits, read_initials


@pytest.mark.parametrize(
    ("typed", "initials", "surname", "marked"),
    [
        ("M. Bansal", ("m",), ("bansal",), True),
        ("M Bansal", ("m",), ("bansal",), False),
        ("m bansal", ("m",), ("bansal",), False),
        ("Bansal M.", ("m",), ("bansal",), True),
        ("Bansal, M.", ("m",), ("bansal",), True),
        ("Bansal, M", ("m",), ("bansal",), True),  # the comma says surname first
        ("Bansal M", ("m",), ("bansal",), False),
        ("M. J. Smith", ("m", "j"), ("smith",), True),
        ("M.J. Smith", ("m", "j"), ("smith",), True),
        # Capitals may be an acronym: `LLM long context`
        ("MJ Smith", ("m", "j"), ("smith",), False),
        ("Smith MJ", ("m", "j"), ("smith",), False),
        ("Smith, M. J.", ("m", "j"), ("smith",), True),
        ("X. LIN", ("x",), ("lin",), True),  # a surname in capitals is still the surname
        ("H. Müller", ("h",), ("muller",), True),
        ("H.-G. Müller", ("h", "g"), ("muller",), True),
        ("E. Stengel-Eskin", ("e",), ("stengel", "eskin"), True),
        ("M. van der Schaar", ("m",), ("van", "der", "schaar"), True),
        ("K means", ("k",), ("means",), False),
        # SNE is the only word, so the surname: unmarked, maybe text
        ("t SNE", ("t",), ("sne",), False),
    ],
)
def test_initials_and_surname_in_either_order(
    typed: str, initials: tuple[str, ...], surname: tuple[str, ...], marked: bool
) -> None:
    assert read_initials(typed) == TypedInitials(initials, surname, marked)


@pytest.mark.parametrize(
    "typed", ["Mohit Bansal", "Bansal", "M.", "M J", "Mohit J. Bansal", "M. Bansal J.", "M. 3", "X. Y", ""]
)
def test_text_not_typed_as_initials_and_a_surname_is_none(typed: str) -> None:
    assert read_initials(typed) is None


def test_a_listed_name_fits_when_its_given_names_start_with_the_initials() -> None:
    mj = read_initials("M. J. Smith")
    assert mj is not None
    assert fits(("mary", "jane", "smith"), mj)
    assert not fits(("michael", "smith"), mj)  # no second given name to start with J
    assert fits(("michael", "smith"), mj, strict=False)  # ...but loosely, the first initial fits
    assert not fits(("jane", "mary", "smith"), mj)  # initials in order
    assert not fits(("mary", "jane", "smithson"), mj)  # the whole surname
    vds = read_initials("M. van der Schaar")
    assert vds is not None
    assert fits(("mihaela", "van", "der", "schaar"), vds)
    assert not fits(("mihaela", "schaar"), vds)
