"""Cardroom's service: the HTTP API, the event store, auth, settings and the CLI."""
