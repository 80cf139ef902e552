package dataflow

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// readLog returns the log's changes in epochs (after, upto] as "epoch op
// row" lines, in the order ReadChangelog gives them.
func readLog(t *testing.T, env *Env, spec *ChangelogSpec, after, upto uint64) ([]string, error) {
	t.Helper()
	blocks, err := ReadChangelog(env.Store.Engine(), spec.TableID, env.VNodeCount, after, upto, upto)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range blocks {
		err := DecodeChangelog(b.Value, spec.Types, func(op Op, row []types.Datum) error {
			out = append(out, fmt.Sprintf("%d %v %s", b.Epoch, op, rowString(row)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out, nil
}

func TestChangelog(t *testing.T) {
	env := newEnv(t)
	ts := []types.T{types.TInt8, types.TText}
	spec := &ChangelogSpec{TableID: 7, Key: []int{0}, Types: ts, Retention: 10 * time.Second}
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	checkpoint := func(epoch uint64, at time.Duration) {
		t.Helper()
		if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true, Time: at.Microseconds()}, nil); err != nil {
			t.Fatal(err)
		}
		if err := env.Store.Seal(epoch, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	process := func(lines ...string) {
		t.Helper()
		if err := op.Process(0, parseChunk(t, ts, lines...), func(*Chunk) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	process("+ 1 a", "+ 2 b", "U- 1 a", "U+ 1 c")
	// A barrier that is no checkpoint writes nothing.
	if err := op.Barrier(&Barrier{Epoch: 1, Time: 1}, nil); err != nil {
		t.Fatal(err)
	}
	checkpoint(2, time.Second)
	process("- 2 b")
	checkpoint(3, 2*time.Second)
	got, err := readLog(t, env, spec, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	// The changes of a key keep their order; the epochs are in order.
	var key1 []string
	for _, l := range got {
		if strings.Fields(l)[2] == "1" {
			key1 = append(key1, l)
		}
	}
	want := []string{"2 + 1 a", "2 U- 1 a", "2 U+ 1 c"}
	if !slices.Equal(key1, want) {
		t.Fatalf("key 1's changes %v, want %v (log %v)", key1, want, got)
	}
	if len(got) != 5 || got[4] != "3 - 2 b" {
		t.Fatalf("log %v: want 5 changes ending with epoch 3's delete", got)
	}
	if later, _ := readLog(t, env, spec, 2, 3); !slices.Equal(later, []string{"3 - 2 b"}) {
		t.Fatalf("epochs (2, 3]: %v", later)
	}

	// Full blocks are written before the barrier and still get its epoch.
	var many []string
	for i := range maxBlockRows + 10 {
		many = append(many, fmt.Sprintf("+ 5 r%d", i))
	}
	process(many...)
	checkpoint(4, 3*time.Second)
	got, err = readLog(t, env, spec, 3, 4)
	if err != nil || len(got) != len(many) || got[0] != "4 + 5 r0" || got[len(got)-1] != fmt.Sprintf("4 + 5 r%d", len(many)-1) {
		t.Fatalf("epoch 4: %d changes, first %q, err %v", len(got), got[:1], err)
	}

	// Once past retention, the old epochs go; a reader that still wanted
	// them learns it, one that did not reads on.
	for e := uint64(5); e < 30; e++ {
		checkpoint(e, time.Duration(e)*time.Second)
	}
	if _, err := readLog(t, env, spec, 0, 29); !errors.Is(err, ErrTrimmed) {
		t.Fatalf("reading trimmed epochs: %v, want ErrTrimmed", err)
	}
	process("+ 9 z")
	checkpoint(30, 30*time.Second)
	if got, err := readLog(t, env, spec, 29, 30); err != nil || !slices.Equal(got, []string{"30 + 9 z"}) {
		t.Fatalf("after trimming: %v, %v", got, err)
	}
	// A window that ends below the trim's marker does not meet it:
	// ChangelogTrimmed tells the reader the epochs it missed.
	to, err := ChangelogTrimmed(env.Store.Engine(), spec.TableID, env.VNodeCount, 0, 30)
	if err != nil || to < 4 || to >= 30 {
		t.Fatalf("trimmed up to epoch %d (%v), want one from 4 to 29", to, err)
	}
	if again, err := ChangelogTrimmed(env.Store.Engine(), spec.TableID, env.VNodeCount, to, 30); err != nil || again != to {
		t.Fatalf("trimmed after epoch %d: %d (%v), want none", to, again, err)
	}
}
