"""A psycopg2 session against streamdb, as a Python user writes one.

Run by TestPsycopg2Session with the server's DSN as argv[1]; an assertion
failure exits non-zero with the line that failed.
"""
import sys

import psycopg2
import psycopg2.errors
import psycopg2.extras

dsn = sys.argv[1]
conn = psycopg2.connect(dsn)
cur = conn.cursor()

# Catalog changes run outside a transaction block (psycopg2 opens one on
# the first statement): streamdb refuses DDL inside a block with 25001.
try:
    cur.execute("CREATE TABLE py_in_tx (k int)")
    raise AssertionError("DDL inside a block was accepted")
except psycopg2.errors.ActiveSqlTransaction:
    conn.rollback()
conn.autocommit = True
cur.execute("CREATE TABLE py_orders (id int PRIMARY KEY, item text, qty int, meta jsonb, at timestamptz)")
cur.execute("CREATE MATERIALIZED VIEW py_totals AS SELECT item, sum(qty) AS qty FROM py_orders GROUP BY item")
conn.autocommit = False

# A transaction: executemany, read your own writes, commit.
cur.executemany("INSERT INTO py_orders VALUES (%s, %s, %s, %s, %s)", [
    (1, "apple", 3, psycopg2.extras.Json({"color": "red"}), "2024-03-10 12:00:00+00"),
    (2, "pear", 5, psycopg2.extras.Json({"color": "green", "tags": ["a", "b"]}), "2024-03-10 13:00:00+00"),
])
cur.execute("SELECT count(*) FROM py_orders")
assert cur.fetchone()[0] == 2
conn.commit()

# Rollback discards; an error aborts the block until rollback.
cur.execute("INSERT INTO py_orders VALUES (3, 'plum', 1, NULL, NULL)")
conn.rollback()
try:
    cur.execute("INSERT INTO py_orders VALUES (1, 'dup', 1, NULL, NULL)")
    raise AssertionError("duplicate key accepted")
except psycopg2.errors.UniqueViolation:
    pass
try:
    cur.execute("SELECT 1")
    raise AssertionError("statement accepted in an aborted block")
except psycopg2.errors.InFailedSqlTransaction:
    conn.rollback()
cur.execute("SELECT id FROM py_orders ORDER BY id")
assert [r[0] for r in cur.fetchall()] == [1, 2]
conn.commit()

# Views follow the committed writes.
cur.execute("FLUSH")
cur.execute("SELECT item, qty FROM py_totals ORDER BY item")
assert cur.fetchall() == [("apple", 3), ("pear", 5)], "view"

# jsonb both ways, time zones, parameters.
cur.execute("SELECT meta -> 'tags' ->> 1, meta @> %s FROM py_orders WHERE id = %s", (psycopg2.extras.Json({"color": "green"}), 2))
assert cur.fetchone() == ("b", True)
cur.execute("SET TIME ZONE 'America/New_York'")
cur.execute("SELECT at::text, extract(hour FROM at) FROM py_orders WHERE id = 1")
row = cur.fetchone()
assert row[0] == "2024-03-10 08:00:00-04", row
cur.execute("SELECT at FROM py_orders WHERE id = 1")
at = cur.fetchone()[0]
assert at.utcoffset().total_seconds() == -4 * 3600 and at.hour == 8, at
conn.commit()

# COPY out and in.
import io
buf = io.StringIO()
cur.copy_expert("COPY (SELECT id, item FROM py_orders ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", buf)
assert buf.getvalue() == "id,item\n1,apple\n2,pear\n", buf.getvalue()
cur.copy_expert("COPY py_orders (id, item, qty) FROM STDIN WITH (FORMAT csv)", io.StringIO("10,fig,2\n11,kiwi,4\n"))
conn.commit()
cur.execute("SELECT count(*), sum(qty) FROM py_orders")
assert cur.fetchone() == (4, 14)
conn.commit()

# pg_stat_activity sees this session.
cur.execute("SELECT state, query FROM pg_stat_activity WHERE pid = pg_backend_pid()")
assert cur.fetchone()[0] == "active"
conn.close()
print("ok")
