"""The HTTP API (DESIGN 6): one controller per resource, thin handlers."""
