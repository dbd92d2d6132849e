"""DESIGN 2: ``domain/`` does no I/O — no clock, no randomness, no database, no logging."""

from __future__ import annotations

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
ALLOWED_MODULES = {
    "__future__",
    "collections",
    "collections.abc",
    "dataclasses",
    "datetime",  # instants as values; reading the clock is refused below
    "enum",
    "functools",
    "hashlib",
    "itertools",
    "math",
    "operator",
    "re",
    "typing",
    "msgspec",
    "msgspec.structs",
    "msgspec.inspect",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}
# Time comes in on the command (DESIGN 10): nothing in the domain may ask for it.
CLOCK_READS = {"now", "utcnow", "today", "time", "monotonic", "perf_counter"}


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_domain_imports_only_pure_modules() -> None:
    offenders = {}
    for path in DOMAIN.rglob("*.py"):
        modules = imported_modules(ast.parse(path.read_text(), str(path)))
        bad = {m for m in modules if m not in ALLOWED_MODULES and m.split(".")[0] != "domain"}
        if bad:
            offenders[str(path.relative_to(DOMAIN))] = sorted(bad)
    assert not offenders, f"domain modules import I/O-capable modules: {offenders}"


def test_domain_calls_no_io_builtins() -> None:
    offenders = []
    for path in DOMAIN.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in FORBIDDEN_CALLS
            ):
                offenders.append(f"{path.relative_to(DOMAIN)}:{node.lineno} {node.func.id}()")
    assert not offenders, offenders


def test_the_purity_check_would_catch_an_import_of_random() -> None:
    tree = ast.parse("import random\nfrom time import time\n")
    assert imported_modules(tree) - ALLOWED_MODULES == {"random", "time"}


def clock_reads(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCK_READS
    ]


def test_domain_never_reads_the_clock() -> None:
    offenders = [
        f"{path.relative_to(DOMAIN)}:{line}"
        for path in DOMAIN.rglob("*.py")
        for line in clock_reads(ast.parse(path.read_text(), str(path)))
    ]
    assert not offenders, offenders


def test_a_clock_read_is_noticed() -> None:
    assert clock_reads(ast.parse("from datetime import datetime\nx = datetime.now()\n")) == [2]
