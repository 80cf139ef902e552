package dataflow

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// TestAlignment checks when a source actor holds back: only while its
// watermark is more than maxDrift ahead of another member that is reading
// and has one; never the lowest; not after the slow member stops reading
// or leaves; and never without a group.
func TestAlignment(t *testing.T) {
	at := func(d time.Duration) types.Datum { return types.NewTimestamp(d.Microseconds()) }
	var g alignGroup
	fast, slow := g.join(), g.join()
	fast.setReading(true)
	slow.setReading(true)
	if fast.ahead() || slow.ahead() {
		t.Fatal("members without watermarks hold back")
	}
	fast.advance(at(10 * time.Second))
	if fast.ahead() {
		t.Fatal("held back by a member without a watermark")
	}
	slow.advance(at(9 * time.Second))
	if fast.ahead() || slow.ahead() {
		t.Fatal("held back within maxDrift")
	}
	fast.advance(at(9*time.Second + maxDrift + time.Millisecond))
	if !fast.ahead() || slow.ahead() {
		t.Fatalf("beyond maxDrift: fast ahead %v (want true), slow ahead %v (want false)", fast.ahead(), slow.ahead())
	}
	slow.setReading(false)
	if fast.ahead() {
		t.Fatal("held back by a member with nothing due")
	}
	slow.setReading(true)
	slow.leave()
	if fast.ahead() {
		t.Fatal("held back by a member that left")
	}
	fast.advance(types.NewInt(5)) // not a timestamp: ignored
	var none *alignMember
	none.advance(at(time.Hour))
	none.setReading(true)
	if none.ahead() {
		t.Fatal("an actor without alignment held back")
	}
	none.leave()
	var noGroup *alignGroup
	if noGroup.join() != nil {
		t.Fatal("a nil group made a member")
	}
}
