"""The write path: the event store, the command path, and the schema migrations."""
