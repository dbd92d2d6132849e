"""The interactive reference at /docs: served, complete, and with nothing from a CDN."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import PurePosixPath
from typing import Any

import pytest
from litestar import Litestar
from litestar.routes import HTTPRoute

from service.http.problems import CATALOGUE
from service.release import API_VERSION
from tests.api.test_openapi import COMMITTED

ASSET = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


async def test_the_docs_page_loads_swagger_ui_from_the_service_itself(client: Any) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assets = ASSET.findall(page.text)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    for asset in assets:
        assert asset.startswith("/docs/assets/"), f"{asset} is not served by the service"
        served = await client.get(asset)
        assert served.status_code == 200, asset
        assert len(served.content) > 500, asset
    script = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert "javascript" in script.headers["content-type"]


async def test_the_docs_page_lists_every_operation(client: Any, app: Litestar) -> None:
    page = (await client.get("/docs")).text
    embedded = json.loads(page.split("spec: ", 1)[1].split(",\n", 1)[0])
    assert embedded == json.loads(COMMITTED.read_text())
    listed = {op["operationId"] for item in embedded["paths"].values() for op in item.values()}
    handlers = {
        handler.operation_id
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if handler.include_in_schema and isinstance(handler.operation_id, str)
    }
    assert listed == handlers


def test_every_problem_type_is_listed_with_its_meaning() -> None:
    description = json.loads(COMMITTED.read_text())["info"]["description"]
    for code, kind in CATALOGUE.items():
        assert f"| `{code}` | {kind.status} | {kind.meaning} |" in description, code


def test_the_spec_carries_the_api_version_and_the_changelog_its_changes() -> None:
    assert json.loads(COMMITTED.read_text())["info"]["version"] == API_VERSION
    changelog = (COMMITTED.parents[1] / "docs" / "changelog.md").read_text()
    assert f"\n## {API_VERSION}\n" in changelog, f"docs/changelog.md: no entry for {API_VERSION}"


CSP_HASH = re.compile(r"'sha256-([A-Za-z0-9+/=]+)'")
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.DOTALL)


def policy(header: str) -> dict[str, list[str]]:
    directives = [d.split() for d in header.split(";") if d.strip()]
    return {d[0]: d[1:] for d in directives}


@pytest.mark.parametrize("path", ["/docs", "/docs/oauth2-redirect.html"])
async def test_docs_pages_run_only_their_own_scripts_and_are_never_framed(
    client: Any, path: str
) -> None:
    page = await client.get(path)
    assert page.status_code == 200
    assert page.headers["x-frame-options"] == "DENY"
    csp = policy(page.headers["content-security-policy"])
    assert csp["default-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
    scripts = csp["script-src"]
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
    inline = INLINE_SCRIPT.findall(page.text)
    assert inline, "the page starts Swagger UI from an inline script"
    digests = {
        base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() for script in inline
    }
    assert digests == set(CSP_HASH.findall(" ".join(scripts)))
    assert scripts[0] == "'self'" and csp["connect-src"] == ["'self'"]
    sources = [s for values in csp.values() for s in values]
    assert not [s for s in sources if "://" in s or s in ("*", "https:", "http:")], sources


async def test_the_docs_policy_admits_every_asset_the_page_loads(client: Any) -> None:
    """Every script and style the page names comes from this origin ('self')."""
    page = await client.get("/docs")
    csp = policy(page.headers["content-security-policy"])
    directives = {".js": "script-src", ".css": "style-src"}
    for asset in ASSET.findall(page.text):
        assert asset.startswith("/"), asset
        directive = directives.get(PurePosixPath(asset).suffix, "img-src")
        assert "'self'" in csp[directive], (asset, csp)


INSTANT_NAMES = {"at", "since", "deadline"}


def _instant_fields(schemas: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every property named as an instant is (``*_at``, ``at``, ``since``, ``deadline``),
    in ``schemas``, with its schema."""
    return [
        (f"{name}.{prop}", shape)
        for name, schema in schemas.items()
        for prop, shape in schema.get("properties", {}).items()
        if prop in INSTANT_NAMES or prop.endswith("_at")
    ]


def _strings(shape: dict[str, Any]) -> list[dict[str, Any]]:
    """The string choices of a property: itself, its items, its ``anyOf``'s."""
    if "items" in shape:
        return _strings(shape["items"])
    if "anyOf" in shape:
        return [s for choice in shape["anyOf"] for s in _strings(choice)]
    return [shape] if shape.get("type") == "string" else []


@pytest.mark.parametrize("document", ["openapi.json", "asyncapi.json"])
def test_every_instant_is_typed_date_time(document: str) -> None:
    """A generated client parses them as instants, and a validator checks them (msgspec
    says ``date-time`` only of a datetime declared with ``tz=True``: they were strings)."""
    schemas = json.loads((COMMITTED.parent / document).read_text())["components"]["schemas"]
    fields = _instant_fields(schemas)
    assert len(fields) >= (20 if document == "openapi.json" else 5)
    for where, shape in fields:
        strings = _strings(shape)
        assert strings, f"{where}: no string choice"
        assert all(s.get("format") == "date-time" for s in strings), f"{where}: {shape}"
