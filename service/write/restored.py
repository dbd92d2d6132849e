"""A store restored into another Postgres cluster, made readable to its consumers again.

Consumers tail ``events`` and ``tournament_events`` in ``(tx, position)`` order, below
the current snapshot's ``xmin`` (:mod:`service.write.store`), where ``tx`` is the id of
the transaction that wrote the row. A logical copy (``pg_dump`` and ``pg_restore`` onto
a new server, a major upgrade by dump, a move to a managed service) keeps the rows'
``tx`` from the cluster they were written on, while the new cluster counts its own ids
from the start: every event it wrote sorted behind the consumers' checkpoints and was
never read. The relay, the read models and their lag figures stood still at the dump,
for good, and a rebuild could not see the restored rows either.

Such a store is told apart by a row whose ``tx`` this cluster has not reached yet (no
transaction of its own can have written it), and restamped once, at migration time,
under the migrations' lock and with the writers held off: every row's ``tx`` becomes
:data:`RESTAMPED`, below any transaction to come, so that the rows already there are
read in ``position`` order and before whatever comes next. A consumer's checkpoint is
moved to just before the first row it had not read, so that nothing is skipped: the relay
may publish again what it had published (Redis refuses a repeat), and the read models,
which may not fold an event twice, are built again from the first event.
"""

from __future__ import annotations

import logging

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow

log = logging.getLogger("cardroom.migrate")

# The consumers' checkpoints (consumer_checkpoints), by the table they tail.
RELAY = "relay"
TOURNAMENT_RELAY = "relay-tournaments"
READ_MODEL_PREFIX = "projection:"  # a read model's, which folds ``events``
RESTAMPED = 3  # the first normal transaction id: below any a cluster hands out
_STREAMS = {  # the table, its append-only trigger, its relay's checkpoint
    "events": ("events_append_only", RELAY),
    "tournament_events": ("tournament_events_append_only", TOURNAMENT_RELAY),
}


def restamp_if_restored(conn: psycopg.Connection[TupleRow]) -> bool:
    """Restamp a store restored from another cluster (see the module); whether it was.
    ``conn`` is in autocommit mode; the restamp is one transaction. Every process start
    asks: the first look takes no lock, so writers wait only when there is work."""
    if not any(_ahead_of_this_cluster(conn, table) for table in _STREAMS):
        return False
    with conn.transaction():
        # Writers wait (readers go on) until this commits: none may slip a row in between.
        conn.execute("LOCK TABLE events, tournament_events IN SHARE ROW EXCLUSIVE MODE")
        ahead = [table for table in _STREAMS if _ahead_of_this_cluster(conn, table)]
        if not ahead:
            return False  # another process restamped it meanwhile
        # The read models, which may not fold an event twice, are built again.
        conn.execute("DELETE FROM read_models")
        conn.execute(
            "UPDATE consumer_checkpoints SET tx = 0, position = 0, updated_at = now()"
            " WHERE name LIKE %s",
            (READ_MODEL_PREFIX + "%",),
        )
        for table, (trigger, relay) in _STREAMS.items():
            _restamp(conn, sql.Identifier(table), sql.Identifier(trigger), relay)
    log.warning(
        "%s hold transaction ids this cluster has not reached: the store was restored"
        " from another cluster; restamped, and the read models are being built again",
        " and ".join(ahead),
    )
    return True


def _ahead_of_this_cluster(conn: psycopg.Connection[TupleRow], table: str) -> bool:
    query = sql.SQL("SELECT max(tx) >= pg_snapshot_xmax(pg_current_snapshot()) FROM {}")
    row = conn.execute(query.format(sql.Identifier(table))).fetchone()
    return bool(row and row[0])


def _restamp(
    conn: psycopg.Connection[TupleRow], rows: sql.Identifier, trigger: sql.Identifier, relay: str
) -> None:
    """Every row of ``rows`` at :data:`RESTAMPED`; its relay's checkpoint just before the
    first row it had not read, in the order it read them."""
    conn.execute(
        sql.SQL(
            "UPDATE consumer_checkpoints c SET tx = %s, updated_at = now(), position ="
            " coalesce((SELECT min(t.position) - 1 FROM {rows} t"
            "   WHERE (t.tx, t.position) > (c.tx::text::xid8, c.position)),"
            " (SELECT max(position) FROM {rows}), 0)"
            " WHERE name = %s"
        ).format(rows=rows),
        (RESTAMPED, relay),
    )
    conn.execute(sql.SQL("ALTER TABLE {} DISABLE TRIGGER {}").format(rows, trigger))
    conn.execute(sql.SQL("UPDATE {} SET tx = %s::text::xid8").format(rows), (str(RESTAMPED),))
    conn.execute(sql.SQL("ALTER TABLE {} ENABLE TRIGGER {}").format(rows, trigger))
