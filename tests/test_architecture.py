"""DESIGN 2: imports run one way — domain ← projections ← service — the service knows
no game's internals, and inside the service only the app knows HTTP: the write path,
the read side, the workers and the audit never import the HTTP layer or the tools."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

GAME_PACKAGES = ("domain.fortyfive", "domain.pitch", "domain.pinochle", "domain.bridge")

# Each room, and the rooms it must never import. The service reaches the games only
# through the protocol (domain.table, domain.registry), never one game's internals.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "service": GAME_PACKAGES,
    "domain": ("projections", "service"),
    "projections": ("service",),
    "service.write": ("service.http", "service.tools", "service.workers"),
    "service.read": ("service.http", "service.tools", "service.workers"),
    "service.workers": ("service.http", "service.tools"),
    "service.audit": ("service.http", "service.tools", "service.workers"),
    "service.http": ("service.tools",),
    "service.refusals": ("service.http",),
    "service.settings": ("service.http",),
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module in ("domain", "projections", "service"):  # from service import x
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _inside(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


def wrong_way_arrows() -> list[str]:
    arrows = []
    for package in ("domain", "projections", "service"):
        for path in sorted((ROOT / package).rglob("*.py")):
            module = _module(path)
            for room, forbidden in FORBIDDEN.items():
                if not _inside(module, room):
                    continue
                for imported in sorted(_imports(path)):
                    if any(_inside(imported, f) for f in forbidden):
                        arrows.append(f"{module} imports {imported}")
    return arrows


def test_imports_never_run_the_wrong_way() -> None:
    assert wrong_way_arrows() == []


def test_the_check_sees_a_wrong_way_arrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself fails on a write-path module that imports the HTTP layer."""
    fake = tmp_path / "service" / "write" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from service.http.problems import ApiProblem\n")
    for package in ("domain", "projections"):
        (tmp_path / package).mkdir()
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert wrong_way_arrows() == ["service.write.bad imports service.http.problems"]
