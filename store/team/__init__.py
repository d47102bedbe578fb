"""The team store: a PostgreSQL server that holds only ciphertext, shared by several memvet
homes (docs/team.md). psycopg is imported lazily, inside server.py, never on the hook path."""
