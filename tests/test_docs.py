"""The README and docs/: generated tables match the code, links land, and the README's commands are CI's."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bot import docs

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
# The bound: a pitch, the two commands, Slack setup in short and links to docs/
README_MAX_LINES = 150
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_generated_tables_are_current() -> None:
    stale = docs.stale()
    assert not stale, f"{', '.join('docs/' + p for p in stale)} out of date with the code: run `{docs.REFRESH}`"


def test_a_stale_table_is_found_and_refreshed(tmp_path: Path) -> None:
    for page in docs.GENERATED:
        shutil.copy(ROOT / "docs" / page, tmp_path / page)
    config = tmp_path / "configuration.md"
    fresh = config.read_text(encoding="utf-8")
    config.write_text(fresh.replace("| `ICML_DIGEST_SIZE` | `3` |", "| `ICML_DIGEST_SIZE` | `5` |"), encoding="utf-8")

    assert docs.stale(tmp_path) == ["configuration.md"]
    assert docs.write(tmp_path) == ["configuration.md"]
    assert config.read_text(encoding="utf-8") == fresh
    assert docs.stale(tmp_path) == []


def test_check_names_a_stale_page_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for page in docs.GENERATED:
        shutil.copy(ROOT / "docs" / page, tmp_path / page)
    config = tmp_path / "configuration.md"
    stale_text = config.read_text(encoding="utf-8").replace(
        "| `ICML_DIGEST_SIZE` | `3` |", "| `ICML_DIGEST_SIZE` | `5` |"
    )
    config.write_text(stale_text, encoding="utf-8")
    assert docs.main(["--check"], tmp_path) == 1
    assert capsys.readouterr().out == "stale: docs/configuration.md (run `python -m bot.docs`)\n"
    assert config.read_text(encoding="utf-8") == stale_text


def test_a_page_without_its_markers_is_an_error() -> None:
    with pytest.raises(ValueError, match="generated:settings"):
        docs.refreshed("# Configuration\n", {"settings": docs.settings_table})


def test_readme_stays_a_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move details to a page of docs/"


def test_readme_commands_are_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "pip install -e '.[test]' && python -m pytest" in readme
    assert "python -m pip install --quiet -e '.[test]'" in ci
    assert "python -m pytest" in ci


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_relative_links_land(path: Path) -> None:
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        landing = (path.parent / file).resolve() if file else path
        assert landing.exists(), f"{path.name}: link to missing {target}"
        if anchor:
            assert anchor in _anchors(landing), f"{path.name}: no heading for #{anchor} in {landing.name}"


def test_every_page_is_linked_and_links_back() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# "), f"{page.name}: starts with its title"
        assert lines[2], f"{page.name}: a one-line summary under the title"
        assert not lines[3], f"{page.name}: the summary is one line"
        assert "](../README.md)" in "\n".join(lines[:6]), f"{page.name}: links back to the README at the top"
        assert f"](docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"
