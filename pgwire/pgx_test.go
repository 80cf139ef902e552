package pgwire

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgx drives the server with pgx, in its default (prepared, binary)
// mode and in its simple-protocol mode, where arguments are interpolated as
// literals.
func TestPgx(t *testing.T) {
	srv := startServer(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg, err := pgx.ParseConfig("postgres://u@" + srv.addr + "/db?sslmode=prefer&application_name=pgxtest")
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)

			t.Run("values", func(t *testing.T) { testPgxValues(t, conn) })
			t.Run("rows", func(t *testing.T) {
				rows, _ := conn.Query(ctx, "series 3")
				got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil || !reflect.DeepEqual(got, []int64{1, 2, 3}) {
					t.Errorf("got %v, %v", got, err)
				}
			})
			t.Run("error", func(t *testing.T) {
				_, err := conn.Exec(ctx, "fail 22012")
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "22012" || pe.Detail != "detail" || pe.Hint != "hint" {
					t.Errorf("got %v", err)
				}
			})
			t.Run("parameter status", func(t *testing.T) {
				if got := conn.PgConn().ParameterStatus("application_name"); got != "pgxtest" {
					t.Errorf("application_name at startup: %q", got)
				}
				if _, err := conn.Exec(ctx, "set application_name other"); err != nil {
					t.Fatal(err)
				}
				if got := conn.PgConn().ParameterStatus("application_name"); got != "other" {
					t.Errorf("application_name after set: %q", got)
				}
			})
			t.Run("implicit transaction", func(t *testing.T) {
				tag, err := conn.Exec(ctx, "write")
				if err != nil || tag.String() != "WRITE last" {
					t.Errorf("a lone statement: %q, %v", tag, err)
				}
				b := &pgx.Batch{}
				b.Queue("write")
				b.Queue("write")
				br := conn.SendBatch(ctx, b)
				var tags []string
				for range 2 {
					tag, err := br.Exec()
					if err != nil {
						t.Fatal(err)
					}
					tags = append(tags, tag.String())
				}
				if err := br.Close(); err != nil {
					t.Fatal(err)
				}
				if want := []string{"WRITE more", "WRITE last"}; !reflect.DeepEqual(tags, want) {
					t.Errorf("a batch: %q, want %q", tags, want)
				}
				_, err = conn.Exec(ctx, "syncfail")
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "40001" {
					t.Errorf("a failed Sync: %v", err)
				}
				if _, err := conn.Exec(ctx, "write"); err != nil {
					t.Errorf("after a failed Sync: %v", err)
				}
			})
			t.Run("transaction", func(t *testing.T) {
				tx, err := conn.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if status := conn.PgConn().TxStatus(); status != 'T' {
					t.Errorf("status in transaction: %c", status)
				}
				if err := tx.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("cancel", func(t *testing.T) {
				go func() {
					<-srv.h.sleeping
					if err := conn.PgConn().CancelRequest(ctx); err != nil {
						t.Error(err)
					}
				}()
				_, err := conn.Exec(ctx, "sleep")
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "57014" {
					t.Errorf("got %v", err)
				}
			})
		})
	}
}

func testPgxValues(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	tests := []struct {
		query string
		arg   any
		dst   any // pointer to scan into; its element must equal arg
	}{
		{"select $1::int8", int64(-42), new(int64)},
		{"select $1::int4", int32(7), new(int32)},
		{"select $1::bool", true, new(bool)},
		{"select $1::float8", 1.5, new(float64)},
		{"select $1::text", "it's", new(string)},
		{"select $1::bytea", []byte{0, 1, 0xff}, new([]byte)},
		{"select $1::int8", nil, new(*int64)},
		{"select $1::numeric", 12.25, new(float64)},
		{"select $1::date", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), new(time.Time)},
		{"select $1::timestamptz", time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC), new(time.Time)},
		{"select $1::timestamp", time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), new(time.Time)},
		{"select $1::interval", 90 * time.Minute, new(time.Duration)},
		{"select $1::jsonb", `{"a": [true], "b": 1}`, new(string)},
		{"select $1::int4[]", []int32{1, -2}, new([]int32)},
		{"select $1::int8[]", []int64{}, new([]int64)},
		{"select $1::int8[]", []*int64{new(int64(7)), nil}, new([]*int64)},
		{"select $1::text[]", []string{"a b", "", "NULL", `q"\`, "{,}"}, new([]string)},
		{"select $1::float8[]", []float64{1.5, -0.25}, new([]float64)},
		{"select $1::bool[]", []bool{true, false}, new([]bool)},
	}
	for _, tc := range tests {
		if err := conn.QueryRow(ctx, tc.query, tc.arg).Scan(tc.dst); err != nil {
			t.Errorf("%s with %v: %v", tc.query, tc.arg, err)
			continue
		}
		got := reflect.ValueOf(tc.dst).Elem()
		if tc.arg == nil {
			if !got.IsNil() {
				t.Errorf("%s: got %v, want NULL", tc.query, got)
			}
		} else if want, ok := tc.arg.(time.Time); ok {
			if !want.Equal(got.Interface().(time.Time)) {
				t.Errorf("%s: got %v, want %v", tc.query, got, want)
			}
		} else if !reflect.DeepEqual(got.Interface(), tc.arg) {
			t.Errorf("%s: got %#v, want %#v", tc.query, got, tc.arg)
		}
	}
}
