package control

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/meta"
)

// TestCommitQueue plays seals into a generation's queue and checks which
// epochs become ready to commit after each.
func TestCommitQueue(t *testing.T) {
	step := &meta.RescaleStep{}
	type seal struct {
		node  string
		epoch uint64
		ready string // the epochs handed out, "5 6*" (* with the step)
	}
	for _, tc := range []struct {
		name  string
		seals []seal
	}{
		{"an epoch commits once every node sealed it", []seal{
			{"n1", 11, ""}, {"n2", 11, ""}, {"n3", 11, "11"},
		}},
		{"in order, however the seals come", []seal{
			{"n1", 12, ""}, {"n2", 12, ""}, {"n3", 12, ""},
			{"n3", 11, ""}, {"n1", 11, ""}, {"n2", 11, "11 12*"},
		}},
		{"late, repeated and foreign seals change nothing", []seal{
			{"n1", 10, ""}, {"n4", 11, ""}, {"n1", 11, ""}, {"n1", 11, ""}, {"n2", 11, ""},
			{"n3", 11, "11"}, {"n3", 11, ""}, {"n1", 9, ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newCommitQueue([]string{"n1", "n2", "n3"}, 10)
			q.record(12, step)
			for i, s := range tc.seals {
				var got string
				for _, r := range q.seal(s.node, s.epoch) {
					if got != "" {
						got += " "
					}
					got += fmt.Sprint(r.epoch)
					if r.step == step {
						got += "*"
					}
				}
				if got != s.ready {
					t.Fatalf("seal %d (%s sealed %d): ready %q, want %q", i, s.node, s.epoch, got, s.ready)
				}
			}
		})
	}
}
