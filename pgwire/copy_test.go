package pgwire

import (
	"testing"

	"github.com/jackc/pgproto3/v2"
)

func copyData(s string) *pgproto3.CopyData { return &pgproto3.CopyData{Data: []byte(s)} }

var copyDone = &pgproto3.CopyDone{}

func TestCopyIn(t *testing.T) {
	runProtocolCases(t, []protocolCase{
		{"text", []message{query("copy 2"), copyData("a\tb\n"), copyData("c\td\n"), copyDone},
			[]string{"G 0 [0 0]", "C COPY 8", "Z I"}},
		{"binary", []message{query("copy 1 binary"), copyData("xyz"), copyDone},
			[]string{"G 1 [1]", "C COPY 3", "Z I"}},
		{"client fails the copy", []message{query("copy 1"), copyData("a\n"), &pgproto3.CopyFail{Message: "no more"}, query("series 1")},
			[]string{"G 0 [0]", "E ERROR 57014 COPY from stdin failed: no more", "Z I", "T n:20:0", "D 1", "C SELECT 1", "Z I"}},
		{"server fails: the rest of the data is dropped", []message{query("copyfail"), copyData("a\n"), copyData("b\n"), copyDone, query("series 1")},
			[]string{"G 0 []", "E ERROR 22P04 bad copy data", "Z I", "T n:20:0", "D 1", "C SELECT 1", "Z I"}},
		{"another message ends the copy", []message{query("copy 1"), copyData("a\n"), parseMsg("", "series 1")},
			[]string{"G 0 [0]", "E ERROR 08P01 unexpected message type 0x50 during COPY from stdin", "Z I"}},
		{"extended protocol", []message{parseMsg("", "copy 1"), bindMsg("", "", nil, nil, nil), executeMsg("", 0), copyData("ab"), copyDone, syncMsg},
			[]string{"ParseComplete", "BindComplete", "G 0 [0]", "C COPY 2", "Z I"}},
	})
}

// TestCopyInIgnoresFlushAndSync checks that Flush and Sync amid the data
// do not end the copy, as the protocol specifies.
func TestCopyInIgnoresFlushAndSync(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(query("copy 1"), copyData("a"), &pgproto3.Flush{}, syncMsg, copyData("b"), copyDone)
	checkMessages(t, c.untilReady(), []string{"G 0 [0]", "C COPY 2", "Z I"})
}
