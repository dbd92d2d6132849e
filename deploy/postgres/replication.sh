#!/bin/bash
# Runs once, when the primary's data directory is created (docker-entrypoint-initdb.d):
# a role that streaming replicas connect as, and the pg_hba.conf line that lets it.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD}';
SQL
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
