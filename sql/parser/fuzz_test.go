package parser

import (
	"errors"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// fuzzHangLimit is how long Parse may take on one input before the fuzz
// test calls it a hang (go test -fuzz reports none itself); real inputs
// take microseconds.
const fuzzHangLimit = 10 * time.Second

// FuzzParse checks that Parse never panics nor hangs and only returns
// *pgerror.Error errors with a position inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"select a::int, 'x' || b from t where c is distinct from $1 order by 1 nulls first limit 2",
		"create table t (a int primary key, b text default 'x') append only",
		"insert into t values (1, E'\\n') returning *",
		"select * from a full join b on a.x = b.x, generate_series(1, 3) g(n)",
		"with x(a) as (select 1) select extract(epoch from ts) from x",
		"set search_path to public; show all; begin; commit",
		"alter materialized view v set parallelism = default with (strategy = 'fluid', step = 4); show jobs; show parallelism",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err = Parse(sql)
		}()
		select {
		case <-done:
		case <-time.After(fuzzHangLimit):
			t.Fatalf("Parse hung on %q", sql)
		}
		if err == nil {
			return
		}
		var pe *pgerror.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %T %v is not a *pgerror.Error", sql, err, err)
		}
		if pe.Position < 0 || pe.Position > len([]rune(sql))+1 {
			t.Fatalf("%q: position %d out of range", sql, pe.Position)
		}
	})
}
