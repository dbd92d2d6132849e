"""The release this process serves: its API version, and what a strong entity tag of a
table's view carries so that it changes with the release.

A table's ETag names its version and the audience; a release that changes what a view
shows of the same version (a field added, a phase named differently) must change the tag
as well, or a client that cached the old view is told 304 for good, and during a rolling
update a phone alternating between an old and a new process is told each body is the
other. So the tag also carries a short digest of the API version and the rules engine
version: every release that changes a view raises one of them (docs/changelog.md).
"""

from __future__ import annotations

import hashlib

from domain import RULES_ENGINE_VERSION

API_VERSION = "1.20.1"  # docs/changelog.md says what each version changed

VIEW_RELEASE = hashlib.sha256(f"{API_VERSION}/{RULES_ENGINE_VERSION}".encode()).hexdigest()[:6]
