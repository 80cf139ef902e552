package exec_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// servingReader is a RowReader over one store that runs each Pushdown as
// a remote node would, rows crossing as their row encoding, and counts
// the rows sent.
type servingReader struct {
	*storage.Engine
	sent int
}

// ScanRows implements exec.RowReader.
func (r *servingReader) ScanRows(p *exec.Pushdown, epoch uint64, fn func(row []types.Datum) error) error {
	var buf []byte
	var row []types.Datum
	return p.Serve(context.Background(), r.Engine, epoch, func(sent []types.Datum) error {
		r.sent++
		buf = types.AppendRow(buf[:0], sent)
		var err error
		if row, err = types.DecodeRow(buf, p.Types, row[:0]); err != nil {
			return err
		}
		return fn(row)
	})
}

// TestPushdownKeepsResults runs filters and projections over a scan with
// and without a Pushdown: the rows, and the errors, are the same; rows
// the filter rules out are not sent.
func TestPushdownKeepsResults(t *testing.T) {
	e, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Tables 1 and 2 (2 in row blocks of ten rows) hold the same rows of
	// (a int4, b int4, c text): a is 0 in one row of ten (10 / a fails),
	// b NULL in one of seven.
	ts := []types.T{types.TInt4, types.TInt4, types.TText}
	b := e.NewBatch()
	var block []byte
	for i := range 100 {
		row := []types.Datum{types.NewInt(int64(i % 10)), types.NewInt(int64(i % 13)), types.NewString(fmt.Sprintf("s%d", i%4))}
		if i%7 == 0 {
			row[1] = types.Null
		}
		key := binary.BigEndian.AppendUint64(nil, uint64(i))
		b.Put(storage.AppendKey(nil, 1, 0, key), 1, types.AppendRow(nil, row))
		if block = types.AppendRow(block, row); i%10 == 9 {
			b.Put(storage.AppendKey(nil, 2, 0, key), 1, block)
			block = nil
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	col := func(i int) expr.Expr { return &expr.ColRef{Idx: i, T: ts[i]} }
	num := func(v int64) expr.Expr { return expr.NewConst(types.NewInt(v), types.TInt4) }
	bin := func(op string, l, r expr.Expr) expr.Expr {
		x, err := expr.NewBinary(op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	random, err := expr.NewFunc("random", nil)
	if err != nil {
		t.Fatal(err)
	}
	param := &expr.Param{Idx: 0, T: types.TInt4}
	tests := []struct {
		name  string
		conds []expr.Expr
		reads []int // the columns read above the filter; nil: all
		sent  int   // rows sent with the Pushdown
		err   bool
	}{
		{"selective", []expr.Expr{bin(">", col(1), num(10))}, []int{2}, 12, false},
		{"error first", []expr.Expr{bin(">", bin("/", num(10), col(0)), num(1)), bin("=", col(1), num(1))}, nil, 0, true},
		{"error after a false", []expr.Expr{bin("=", col(1), num(1)), bin(">", bin("/", num(10), col(0)), num(1))}, nil, 7, true},
		{"no error after a false", []expr.Expr{&expr.NullSafeEq{L: col(1), R: num(3)}, bin(">", bin("/", num(10), col(0)), num(1))}, []int{}, 4, false},
		{"or", []expr.Expr{&expr.Or{Args: []expr.Expr{&expr.IsNull{E: col(1)}, bin("=", col(2), expr.NewConst(types.NewString("s1"), types.TText))}}}, []int{0}, 37, false},
		{"parameter", []expr.Expr{bin("=", col(0), param)}, []int{1, 2}, 10, false},
		// The volatile conjunct stays: a NULL from the first one is sent.
		{"prefix", []expr.Expr{bin("<", col(1), num(2)), bin("<", random, expr.NewConst(types.NewFloat(2), types.TFloat8))}, nil, 13 + 15, false},
	}
	r := &servingReader{Engine: e}
	for _, tt := range tests {
		for table := range uint32(2) {
			t.Run(fmt.Sprintf("%s/table%d", tt.name, table+1), func(t *testing.T) {
				scan := &exec.TableScan{TableID: table + 1, Types: ts, RowBlocks: table == 1, Conds: tt.conds}
				var op exec.Op = &exec.Filter{Input: scan, Cond: &expr.And{Args: tt.conds}}
				if tt.reads != nil {
					scan.Needed = make([]bool, len(ts))
					var exprs []expr.Expr
					for _, i := range tt.reads {
						scan.Needed[i] = true
						exprs = append(exprs, col(i))
					}
					expr.Walk(op.(*exec.Filter).Cond, func(x expr.Expr) bool {
						if c, ok := x.(*expr.ColRef); ok {
							scan.Needed[c.Idx] = true
						}
						return true
					})
					op = &exec.Project{Input: op, Exprs: exprs}
				}
				run := func(noPushdown bool) ([][]types.Datum, error) {
					env := &exec.Env{Engine: r, Epoch: 1, NoPushdown: noPushdown}
					return exec.Collect(expr.NewCtx(exec.WithEnv(context.Background(), env), []types.Datum{types.NewInt(4)}), op)
				}
				want, wantErr := run(true)
				r.sent = 0
				got, gotErr := run(false)
				if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Errorf("pushed: %v, %v\nnot pushed: %v, %v", got, gotErr, want, wantErr)
				}
				if (wantErr != nil) != tt.err {
					t.Errorf("error %v, want one: %v", wantErr, tt.err)
				}
				if !tt.err && r.sent != tt.sent {
					t.Errorf("%d rows sent, want %d", r.sent, tt.sent)
				}
			})
		}
	}
}
