"""The documentation's shape: a README a newcomer reads in five minutes with the two set-up
commands on its first screen, a results page of bounded length, every reference page
reachable from the README, and every relative link pointing at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO_ROOT

FIRST_SCREEN = 40
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def lines(name: str) -> list[str]:
    return (REPO_ROOT / name).read_text(encoding="utf-8").splitlines()


def markdown_files() -> list[Path]:
    return [
        REPO_ROOT / "README.md",
        REPO_ROOT / "BENCHMARKS.md",
        *sorted((REPO_ROOT / "docs").rglob("*.md")),
    ]


def relative_links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [link for link in LINK.findall(text) if "://" not in link]


def test_readme_fits_five_minutes_and_opens_with_the_two_set_up_commands() -> None:
    readme = lines("README.md")
    assert len(readme) <= 250
    first_screen = "\n".join(readme[:FIRST_SCREEN])
    commands = re.findall(r"```bash\n(.*?)\n```", first_screen, re.S)
    assert len(commands) == 2
    assert commands[0].endswith("&& langmemcore demo")
    assert "python -m pytest -q" in commands[1]


def test_benchmarks_is_a_results_page_of_bounded_length() -> None:
    benchmarks = lines("BENCHMARKS.md")
    assert len(benchmarks) <= 400
    sections = "\n".join(benchmarks).split("\n## ")[1:]
    assert sections
    # every section's figures come with the command that produced them
    assert [
        s.splitlines()[0] for s in sections if "python " not in s and "langmemcore " not in s
    ] == []


def test_every_reference_page_is_linked_from_the_readme_or_the_docs_index() -> None:
    linked = {
        (path.parent / link).resolve()
        for path in (REPO_ROOT / "README.md", REPO_ROOT / "docs" / "README.md")
        for link in relative_links(path)
    }
    pages = {page.resolve() for page in (REPO_ROOT / "docs").glob("*.md")}
    pages.discard((REPO_ROOT / "docs" / "README.md").resolve())
    assert pages - linked == set()
    from_readme = {(REPO_ROOT / link).resolve() for link in relative_links(REPO_ROOT / "README.md")}
    assert (REPO_ROOT / "docs" / "README.md").resolve() in from_readme


def test_every_relative_link_points_at_an_existing_file() -> None:
    broken = [
        f"{path.relative_to(REPO_ROOT)} -> {link}"
        for path in markdown_files()
        for link in relative_links(path)
        if not (path.parent / link).exists()
    ]
    assert broken == []
