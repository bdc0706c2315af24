"""Persistence: the tables, the embedded PostgreSQL, engines and sessions, migrations."""
