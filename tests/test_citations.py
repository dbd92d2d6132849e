"""Every rule and design citation in the code resolves: a "RULES" clause cited in domain/,
projections/, service/, tests/ or the README has a heading in docs/rules/, and a "DESIGN"
section has one in docs/design.md. The rulebook also states every option a game takes.

A citation is the word RULES or DESIGN, a space, and one or more clause numbers joined by
commas, dashes or "and": ``RULES 1.3``, ``RULES 3A.6–3A.8``, ``RULES 3.B, 3.C``,
``DESIGN 10``. A clause is defined by a Markdown heading that starts with its number.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from domain.events import ClockSettings
from domain.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT / "docs" / "rules"
DESIGN = ROOT / "docs" / "design.md"
SCANNED = [ROOT / "domain", ROOT / "projections", ROOT / "service", ROOT / "tests"]
ALSO_SCANNED = [
    ROOT / "README.md",
    ROOT / "docs" / "changelog.md",
    ROOT / "docs" / "performance.md",
]
SKIPPED_DIRS = {"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}

# One clause number: 0, 1.3, 3A, 3A.4, 3.B.
CLAUSE = r"\d+[A-Z]?(?:\.(?:\d+|[A-Z]))*"
JOIN = r"(?:\s*(?:,|–|—|-|\band\b)\s*)"
RULES_CITATION = re.compile(rf"\bRULES\s+({CLAUSE}(?:{JOIN}{CLAUSE})*)")
DESIGN_CITATION = re.compile(rf"\bDESIGN\s+(\d+(?:{JOIN}\d+)*)\b")
HEADING = re.compile(rf"^#{{1,6}}\s+({CLAUSE})\.?(?:\s|$)", re.MULTILINE)

# Where each game's options are stated.
GAME_PAGES = {
    "forty-five": "forty-five.md",
    "pitch": "pitch.md",
    "pinochle": "pinochle.md",
    "pinochle-three": "pinochle.md",
    "pinochle-widow": "pinochle.md",
    "pinochle-four": "pinochle.md",
    "reserve-bridge": "reserve-bridge.md",
}


def defined(pages: Iterable[Path]) -> list[str]:
    """Every clause number a heading of ``pages`` defines, repeats included."""
    return [number for page in pages for number in HEADING.findall(page.read_text())]


def rule_clauses() -> set[str]:
    return set(defined(sorted(RULES_DIR.glob("*.md"))))


def design_sections() -> set[str]:
    return set(defined([DESIGN]))


def scanned_files(roots: Iterable[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and not SKIPPED_DIRS.intersection(path.parts):
                yield path


def citations(path: Path) -> Iterator[tuple[int, str, str]]:
    """``(line, kind, number)`` for every clause cited in ``path``; kind RULES or DESIGN."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return  # not a text file
    found = []
    for kind, pattern, number in (
        ("RULES", RULES_CITATION, re.compile(CLAUSE)),
        ("DESIGN", DESIGN_CITATION, re.compile(r"\d+")),
    ):
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found += [(match.start(), line, kind, cited) for cited in number.findall(match[1])]
    for _, line, kind, cited in sorted(found):
        yield line, kind, cited


def unresolved(
    files: Iterable[Path], rules: set[str], design: set[str], root: Path = ROOT
) -> list[str]:
    """``file:line: RULES n`` for each citation with no clause or section behind it."""
    known = {"RULES": rules, "DESIGN": design}
    missing = []
    for path in files:
        for line, kind, number in citations(path):
            if number not in known[kind]:
                where = path.relative_to(root) if path.is_relative_to(root) else path
                missing.append(f"{where}:{line}: {kind} {number}")
    return missing


def test_every_citation_names_a_clause_of_the_rulebook_or_a_design_section() -> None:
    files = [*scanned_files(SCANNED), *ALSO_SCANNED]
    missing = unresolved(files, rule_clauses(), design_sections())
    assert not missing, "cited, but not in docs/rules/ or docs/design.md:\n" + "\n".join(missing)


def test_the_code_cites_the_rulebook_and_the_design() -> None:
    """The scan finds what it is meant to find (a broken pattern would pass anything)."""
    found = {
        (kind, number) for path in scanned_files(SCANNED) for _, kind, number in citations(path)
    }
    for cited in [("RULES", "1.3"), ("RULES", "3A.9"), ("RULES", "3.B"), ("DESIGN", "10")]:
        assert cited in found, cited


def test_a_made_up_citation_is_caught(tmp_path: Path) -> None:
    rules, design = "RULES", "DESIGN"  # kept apart, so that this file cites nothing made up
    source = tmp_path / "cites.py"
    source.write_text(
        f"x = 1  # {rules} 1.3, 9.4\n"
        f'"""{rules} 3A.6–3A.12 and {design} 99."""\n'
        f"# {rules} 3.B and 3.Z; {design} 10\n"
    )
    missing = unresolved([source], rule_clauses(), design_sections(), root=tmp_path)
    assert missing == [
        f"cites.py:1: {rules} 9.4",
        f"cites.py:2: {rules} 3A.12",
        f"cites.py:2: {design} 99",
        f"cites.py:3: {rules} 3.Z",
    ]


def test_each_clause_and_section_is_defined_once() -> None:
    for pages in (sorted(RULES_DIR.glob("*.md")), [DESIGN]):
        repeated = [n for n, count in Counter(defined(pages)).items() if count > 1]
        assert not repeated, f"defined more than once: {repeated}"


def test_design_sections_one_to_fourteen() -> None:
    assert design_sections() == {str(n) for n in range(1, 15)}


def test_every_game_option_and_clock_setting_is_stated_in_the_rulebook() -> None:
    for game_id, game in GAMES.items():
        page = (RULES_DIR / GAME_PAGES[game_id]).read_text()
        for field in msgspec.structs.fields(game.options_type):
            assert f"`{field.encode_name}`" in page, f"{game_id}: option {field.encode_name}"
    general = (RULES_DIR / "index.md").read_text()
    for field in msgspec.structs.fields(ClockSettings):
        assert f"`{field.encode_name}`" in general, f"clock setting {field.encode_name}"
    for setting in ("clock", "first_dealer", "deals"):
        assert f"`{setting}`" in general, setting
