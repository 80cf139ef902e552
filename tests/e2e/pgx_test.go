package e2e

import (
	"context"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/tests/testkit"
)

// typedRow is one row of every wire type point 3 of the skeleton lists,
// and arrays.
type typedRow struct {
	ID      int64
	B       bool
	I2      int16
	I4      int32
	I8      int64
	F4      float32
	F8      float64
	Num     pgtype.Numeric
	Text    string
	Varchar string
	Bytes   []byte
	Date    time.Time
	TS      time.Time
	TSTZ    time.Time
	IV      pgtype.Interval
	Ints    []int32
	Bigs    []*int64
	Texts   []string
	Floats  []float64
	Bools   []bool
}

const createTyped = `CREATE TABLE typed (
	id BIGINT PRIMARY KEY, b BOOL, i2 SMALLINT, i4 INT, i8 BIGINT, f4 REAL, f8 DOUBLE PRECISION,
	num NUMERIC(12,3), txt TEXT, vc VARCHAR(20), bin BYTEA, d DATE, ts TIMESTAMP, tstz TIMESTAMPTZ, iv INTERVAL,
	ints INT[], bigs BIGINT[], texts TEXT[], floats FLOAT8[], bools BOOL ARRAY)`

func sampleRow(id int64) typedRow {
	return typedRow{
		ID: id, B: true, I2: -12, I4: 123456, I8: -9_000_000_000_000, F4: 1.5, F8: 3.25,
		Num:  pgtype.Numeric{Int: big.NewInt(1234567), Exp: -3, Valid: true},
		Text: "héllo, wörld", Varchar: "v'c", Bytes: []byte{0, 1, 2, 0xff},
		Date: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		TS:   time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC),
		TSTZ: time.Date(1999, 12, 31, 23, 59, 59, 500000000, time.UTC),
		IV:   pgtype.Interval{Months: 14, Days: 3, Microseconds: 4*3600e6 + 5*60e6 + 6e6 + 500000, Valid: true},
		Ints: []int32{1, -2, 3}, Bigs: []*int64{new(int64(-9_000_000_000_000)), nil},
		Texts:  []string{"a b", "", "NULL", `q"\`, "{,}", "é"},
		Floats: []float64{1.5, -0.25}, Bools: []bool{true, false},
	}
}

func (r typedRow) args() []any {
	return []any{r.ID, r.B, r.I2, r.I4, r.I8, r.F4, r.F8, r.Num, r.Text, r.Varchar, r.Bytes, r.Date, r.TS, r.TSTZ, r.IV,
		r.Ints, r.Bigs, r.Texts, r.Floats, r.Bools}
}

func (r *typedRow) dest() []any {
	return []any{&r.ID, &r.B, &r.I2, &r.I4, &r.I8, &r.F4, &r.F8, &r.Num, &r.Text, &r.Varchar, &r.Bytes, &r.Date, &r.TS, &r.TSTZ, &r.IV,
		&r.Ints, &r.Bigs, &r.Texts, &r.Floats, &r.Bools}
}

func checkRow(t *testing.T, mode string, got, want typedRow) {
	t.Helper()
	gotNum, _ := got.Num.Float64Value()
	wantNum, _ := want.Num.Float64Value()
	switch {
	case got.ID != want.ID || got.B != want.B || got.I2 != want.I2 || got.I4 != want.I4 || got.I8 != want.I8,
		got.F4 != want.F4 || got.F8 != want.F8 || gotNum != wantNum,
		got.Text != want.Text || got.Varchar != want.Varchar || string(got.Bytes) != string(want.Bytes),
		!got.Date.Equal(want.Date) || !got.TS.Equal(want.TS) || !got.TSTZ.Equal(want.TSTZ),
		got.IV != want.IV,
		!slices.Equal(got.Ints, want.Ints) || !slices.Equal(got.Texts, want.Texts) || !slices.Equal(got.Floats, want.Floats),
		!slices.Equal(got.Bools, want.Bools) || !slices.EqualFunc(got.Bigs, want.Bigs, func(a, b *int64) bool {
			return (a == nil) == (b == nil) && (a == nil || *a == *b)
		}):
		t.Errorf("%s: row mismatch\n got  %+v\n want %+v", mode, got, want)
	}
}

// TestPgxAllTypes runs the same parameters and results through pgx's
// default mode (Parse/Describe, cached statements, binary formats) and its
// simple protocol (text, client-side interpolation).
func TestPgxAllTypes(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	setup := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, createTyped); err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name string
		mode pgx.QueryExecMode
		id   int64
	}{
		{"cache_statement", pgx.QueryExecModeCacheStatement, 1},
		{"cache_describe", pgx.QueryExecModeCacheDescribe, 2},
		{"describe_exec", pgx.QueryExecModeDescribeExec, 3},
		{"simple_protocol", pgx.QueryExecModeSimpleProtocol, 4},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			conn := connect(t, n.Addr(), m.mode)
			want := sampleRow(m.id)
			insert := `INSERT INTO typed VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)`
			if _, err := conn.Exec(ctx, insert, want.args()...); err != nil {
				t.Fatalf("insert: %v", err)
			}
			// Run the select three times: pgx prepares on first use, then
			// only binds and executes the cached statement.
			for i := 0; i < 3; i++ {
				var got typedRow
				if err := conn.QueryRow(ctx, `SELECT * FROM typed WHERE id = $1`, m.id).Scan(got.dest()...); err != nil {
					t.Fatalf("select #%d: %v", i, err)
				}
				checkRow(t, m.name, got, want)
			}
			// Parameters echoed through expressions, typed by casts.
			var echo typedRow
			err := conn.QueryRow(ctx, `SELECT $1::int8, $2::bool, $3::int2, $4::int4, $5::int8, $6::float4, $7::float8,
				$8::numeric, $9::text, $10::varchar, $11::bytea, $12::date, $13::timestamp, $14::timestamptz, $15::interval,
				$16::int[], $17::int8[], $18::text[], $19::float8[], $20::bool[]`, want.args()...).Scan(echo.dest()...)
			if err != nil {
				t.Fatalf("echo: %v", err)
			}
			checkRow(t, m.name+" echo", echo, want)
		})
	}
}

// TestPgxBatch sends a pgx.Batch of inserts (one round trip) and reads
// them back with an aggregate.
func TestPgxBatch(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	conn := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `CREATE TABLE items (id INT PRIMARY KEY, name TEXT, qty INT)`); err != nil {
		t.Fatal(err)
	}
	batch := &pgx.Batch{}
	for i := 1; i <= 100; i++ {
		batch.Queue(`INSERT INTO items VALUES ($1, $2, $3)`, i, "item", i%7)
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	var count, sum int64
	if err := conn.QueryRow(ctx, `SELECT count(*), sum(qty) FROM items`).Scan(&count, &sum); err != nil {
		t.Fatal(err)
	}
	wantSum := int64(0)
	for i := 1; i <= 100; i++ {
		wantSum += int64(i % 7)
	}
	if count != 100 || sum != wantSum {
		t.Fatalf("count=%d sum=%d, want 100 and %d", count, sum, wantSum)
	}
	// A duplicate key inside a batch fails that statement with 23505.
	batch = &pgx.Batch{}
	batch.Queue(`INSERT INTO items VALUES (1, 'dup', 0)`)
	err := conn.SendBatch(ctx, batch).Close()
	if code := sqlState(err); code != "23505" {
		t.Fatalf("duplicate insert: got %v (SQLSTATE %q), want 23505", err, code)
	}
}

// TestPgxRowsStream checks that a query's rows reach the client as they
// are computed, in both protocols: the rows before a data error arrive
// before the error, as in PostgreSQL, and a session whose client closed a
// large result after a few rows goes on.
func TestPgxRowsStream(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		conn := connect(t, n.Addr(), mode)
		rows, err := conn.Query(ctx, `SELECT 1 / (1000 - g) FROM generate_series(1, 2000) AS g`)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for rows.Next() {
			got++
		}
		if code := sqlState(rows.Err()); got != 999 || code != "22012" {
			t.Fatalf("%v: %d rows, then %v; want 999 rows, then 22012", mode, got, rows.Err())
		}
		rows, err = conn.Query(ctx, `SELECT g FROM generate_series(1, 200000) AS g`)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10 && rows.Next(); i++ {
		}
		rows.Close()
		var one int
		if err := conn.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
			t.Fatalf("%v: after closing a large result early: %v", mode, err)
		}
		conn.Close(ctx)
	}
}

// TestPgxReturning checks INSERT ... RETURNING as applications use it:
// QueryRow(...).Scan of the new row's key and defaults, in both protocols,
// as a prepared statement (whose Describe gives the RETURNING columns)
// and inside a transaction; UPDATE and DELETE ... RETURNING alike.
func TestPgxReturning(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	setup := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	if _, err := setup.Exec(ctx, `CREATE TABLE accounts (id INT PRIMARY KEY, name TEXT, balance NUMERIC(10,2) DEFAULT 0, tag TEXT DEFAULT 'new')`); err != nil {
		t.Fatal(err)
	}
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec} {
		conn := connect(t, n.Addr(), mode)
		var id int32
		var tag string
		if err := conn.QueryRow(ctx, `INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING id, tag`, 10*i+1, "a").Scan(&id, &tag); err != nil || id != int32(10*i+1) || tag != "new" {
			t.Fatalf("%v: INSERT RETURNING scanned %d, %q, %v", mode, id, tag, err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, `INSERT INTO accounts (id, name) VALUES ($1, 'b') RETURNING id`, 10*i+2).Scan(&id); err != nil || id != int32(10*i+2) {
			t.Fatalf("%v: INSERT RETURNING in a transaction scanned %d, %v", mode, id, err)
		}
		var balance float64
		if err := tx.QueryRow(ctx, `UPDATE accounts SET balance = balance + 2.5 WHERE id = $1 RETURNING balance::float8`, 10*i+2).Scan(&balance); err != nil || balance != 2.5 {
			t.Fatalf("%v: UPDATE RETURNING in a transaction scanned %v, %v", mode, balance, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		var name string
		if err := conn.QueryRow(ctx, `DELETE FROM accounts WHERE id = $1 RETURNING name`, 10*i+1).Scan(&name); err != nil || name != "a" {
			t.Fatalf("%v: DELETE RETURNING scanned %q, %v", mode, name, err)
		}
		conn.Close(ctx)
	}

	// A prepared INSERT ... RETURNING describes its columns; run twice.
	conn := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	sd, err := conn.Prepare(ctx, "ins", `INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING id, upper(name), balance`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range sd.Fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"id", "upper", "balance"}) || len(sd.ParamOIDs) != 2 {
		t.Fatalf("prepared INSERT RETURNING describes columns %q and %d parameters", names, len(sd.ParamOIDs))
	}
	for _, id := range []int32{100, 101} {
		var got int32
		var upper string
		var balance pgtype.Numeric
		if err := conn.QueryRow(ctx, "ins", id, "x").Scan(&got, &upper, &balance); err != nil || got != id || upper != "X" {
			t.Fatalf("prepared INSERT RETURNING scanned %d, %q, %v", got, upper, err)
		}
	}
	// A subquery in the list sees the table as each execution finds it.
	for i, want := range []int64{5, 6} {
		var before int64
		if err := conn.QueryRow(ctx, `INSERT INTO accounts (id) VALUES ($1) RETURNING (SELECT count(*) FROM accounts)`, 200+i).Scan(&before); err != nil || before != want {
			t.Fatalf("RETURNING (SELECT count(*)) run %d scanned %d, %v; want %d", i+1, before, err, want)
		}
	}
	// Exec of a RETURNING statement reports the rows it wrote.
	ct, err := conn.Exec(ctx, `UPDATE accounts SET tag = 'old' WHERE id >= 200 RETURNING id`)
	if err != nil || ct.String() != "UPDATE 2" {
		t.Fatalf("UPDATE RETURNING tag %q, %v", ct, err)
	}
	var count int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&count); err != nil || count != 7 {
		t.Fatalf("%d accounts, %v; want 7", count, err)
	}
}
