package pgwire

import (
	"strings"
	"testing"

	"github.com/jackc/pgproto3/v2"
)

// message is any frontend message pgproto3 can encode.
type message interface {
	Encode([]byte) ([]byte, error)
}

func parseMsg(name, query string, oids ...uint32) *pgproto3.Parse {
	return &pgproto3.Parse{Name: name, Query: query, ParameterOIDs: oids}
}

func bindMsg(portal, stmt string, pformats []int16, params [][]byte, rformats []int16) *pgproto3.Bind {
	return &pgproto3.Bind{DestinationPortal: portal, PreparedStatement: stmt,
		ParameterFormatCodes: pformats, Parameters: params, ResultFormatCodes: rformats}
}

func executeMsg(portal string, maxRows uint32) *pgproto3.Execute {
	return &pgproto3.Execute{Portal: portal, MaxRows: maxRows}
}

func describeMsg(typ byte, name string) *pgproto3.Describe {
	return &pgproto3.Describe{ObjectType: typ, Name: name}
}

func closeMsg(typ byte, name string) *pgproto3.Close {
	return &pgproto3.Close{ObjectType: typ, Name: name}
}

func query(sql string) *pgproto3.Query { return &pgproto3.Query{String: sql} }

var syncMsg = &pgproto3.Sync{}

// params turns strings into Bind values; "NULL" is NULL.
func params(vals ...string) [][]byte {
	out := make([][]byte, len(vals))
	for i, v := range vals {
		if v != "NULL" {
			out[i] = []byte(v)
		}
	}
	return out
}

// exchange sends msgs at once and reads the answers up to the
// ReadyForQuery of every Sync and Query among them.
func exchange(t *testing.T, c *testClient, msgs []message) []string {
	t.Helper()
	c.send(msgs...)
	var got []string
	for _, m := range msgs {
		switch m.(type) {
		case *pgproto3.Sync, *pgproto3.Query, *pgproto3.FunctionCall:
			got = append(got, c.untilReady()...)
		}
	}
	return got
}

// checkMessages compares summaries; a wanted entry ending in "*" matches
// any summary with that prefix.
func checkMessages(t *testing.T, got, want []string) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		w, prefix := strings.CutSuffix(want[i], "*")
		ok = got[i] == w || prefix && strings.HasPrefix(got[i], w)
	}
	if !ok {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

type protocolCase struct {
	name string
	send []message
	want []string
}

func runProtocolCases(t *testing.T, cases []protocolCase) {
	srv := startServer(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, srv.addr)
			checkMessages(t, exchange(t, c, tc.send), tc.want)
		})
	}
}

func TestSimpleQuery(t *testing.T) {
	runProtocolCases(t, []protocolCase{
		{"rows", []message{query("series 2")},
			[]string{"T n:20:0", "D 1", "D 2", "C SELECT 2", "Z I"}},
		{"empty", []message{query("")}, []string{"EmptyQueryResponse", "Z I"}},
		{"only semicolons", []message{query(" ; ;")}, []string{"EmptyQueryResponse", "Z I"}},
		{"several statements", []message{query("series 1; series 2")},
			[]string{"T n:20:0", "D 1", "C SELECT 1", "T n:20:0", "D 1", "D 2", "C SELECT 2", "Z I"}},
		{"error skips the rest", []message{query("series 1; fail 22012; series 1")},
			[]string{"T n:20:0", "D 1", "C SELECT 1", "E ERROR 22012 failed as asked", "Z I"}},
		{"error while reading rows", []message{query("failrow 1")},
			[]string{"T n:20:0", "D 1", "E ERROR 22012 division by zero", "Z I"}},
		{"syntax error", []message{query("bogus")},
			[]string{`E ERROR 42601 syntax error at or near "bogus"`, "Z I"}},
		{"no rows", []message{query("set search_path x")},
			[]string{"C SET", "S search_path=x", "Z I"}},
		{"parameter status only when changed", []message{query("set a 1; set a 1; set a 2")},
			[]string{"C SET", "S a=1", "C SET", "C SET", "S a=2", "Z I"}},
		{"transaction status", []message{query("begin; series 1"), query("commit")},
			[]string{"C BEGIN", "T n:20:0", "D 1", "C SELECT 1", "Z T", "C COMMIT", "Z I"}},
		{"literals and null", []message{query("select 'it''s'::text, null::int8, 7::int4")},
			[]string{"T text:25:0,int8:20:0,int4:23:0", "D it's|NULL|7", "C SELECT 1", "Z I"}},
		{"function call is refused", []message{&pgproto3.FunctionCall{Function: 1}},
			[]string{"E ERROR 0A000 the function call protocol is not supported", "Z I"}},
		{"copy messages are ignored", []message{&pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{},
			&pgproto3.CopyFail{Message: "x"}, query("series 1")},
			[]string{"T n:20:0", "D 1", "C SELECT 1", "Z I"}},
		{"simple query drops the unnamed statement", []message{parseMsg("", "series 1"), syncMsg,
			query("series 2"), bindMsg("", "", nil, nil, nil), syncMsg},
			[]string{"ParseComplete", "Z I", "T n:20:0", "D 1", "D 2", "C SELECT 2", "Z I",
				`E ERROR 26000 prepared statement "" does not exist`, "Z I"}},
	})
}

func TestExtendedQuery(t *testing.T) {
	int8Bytes := []byte{0, 0, 0, 0, 0, 0, 0, 42}
	runProtocolCases(t, []protocolCase{
		{"describe statement", []message{parseMsg("", "select $1::int8"), describeMsg('S', ""), syncMsg},
			[]string{"ParseComplete", "ParameterDescription [20]", "T int8:20:0", "Z I"}},
		{"parameter types from Parse", []message{parseMsg("", "select $1", 20), describeMsg('S', ""), syncMsg},
			[]string{"ParseComplete", "ParameterDescription [20]", "T ?column?:20:0", "Z I"}},
		{"describe statement without rows", []message{parseMsg("s", "set a 1"), describeMsg('S', "s"), syncMsg},
			[]string{"ParseComplete", "ParameterDescription []", "NoData", "Z I"}},
		{"text parameter", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", nil, params("42"), nil), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 42", "C SELECT 1", "Z I"}},
		{"binary parameter and result", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", []int16{1}, [][]byte{int8Bytes}, []int16{1}), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 0x000000000000002a", "C SELECT 1", "Z I"}},
		{"null parameters", []message{parseMsg("", "select $1::int8, $2::text"),
			bindMsg("", "", []int16{1, 0}, params("NULL", "NULL"), []int16{1}), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D NULL|NULL", "C SELECT 1", "Z I"}},
		{"describe portal with formats", []message{parseMsg("", "select $1::int8, $2::text"),
			bindMsg("", "", nil, params("1", "x"), []int16{1, 0}), describeMsg('P', ""), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "T int8:20:1,text:25:0", "D 0x0000000000000001|x", "C SELECT 1", "Z I"}},
		{"one result format for all", []message{parseMsg("", "select $1::int8, $2::int8"),
			bindMsg("", "", nil, params("1", "2"), []int16{1}), describeMsg('P', ""), syncMsg},
			[]string{"ParseComplete", "BindComplete", "T int8:20:1,int8:20:1", "Z I"}},
		{"max rows", []message{parseMsg("", "series 3"), bindMsg("", "", nil, nil, nil),
			executeMsg("", 2), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "D 2", "PortalSuspended", "D 3", "C SELECT 3", "Z I"}},
		{"max rows reached exactly", []message{parseMsg("", "series 2"), bindMsg("", "", nil, nil, nil),
			executeMsg("", 2), executeMsg("", 2), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "D 2", "PortalSuspended", "C SELECT 2", "Z I"}},
		{"completed portal cannot run", []message{parseMsg("", "series 1"), bindMsg("", "", nil, nil, nil),
			executeMsg("", 0), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "C SELECT 1", `E ERROR 55000 portal "" cannot be run`, "Z I"}},
		{"empty query", []message{parseMsg("", " "), bindMsg("", "", nil, nil, nil),
			describeMsg('P', ""), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "NoData", "EmptyQueryResponse", "Z I"}},
		{"several statements refused", []message{parseMsg("", "series 1; series 2"), syncMsg},
			[]string{"E ERROR 42601 cannot insert multiple commands into a prepared statement", "Z I"}},
		{"syntax error", []message{parseMsg("", "bogus"), syncMsg},
			[]string{`E ERROR 42601 syntax error at or near "bogus"`, "Z I"}},
		{"error discards until sync", []message{bindMsg("", "nope", nil, nil, nil),
			parseMsg("", "series 1"), executeMsg("", 0), syncMsg, query("series 1")},
			[]string{`E ERROR 26000 prepared statement "nope" does not exist`, "Z I",
				"T n:20:0", "D 1", "C SELECT 1", "Z I"}},
		{"unknown portal", []message{executeMsg("nope", 0), syncMsg},
			[]string{`E ERROR 34000 portal "nope" does not exist`, "Z I"}},
		{"unknown statement described", []message{describeMsg('S', "nope"), syncMsg},
			[]string{`E ERROR 26000 prepared statement "nope" does not exist`, "Z I"}},
		{"bad describe type", []message{describeMsg('X', ""), syncMsg},
			[]string{"E ERROR 08P01 invalid DESCRIBE message subtype 88", "Z I"}},
		{"bad close type", []message{closeMsg('X', ""), syncMsg},
			[]string{"E ERROR 08P01 invalid CLOSE message subtype 88", "Z I"}},
		{"parameter count mismatch", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", nil, nil, nil), syncMsg},
			[]string{"ParseComplete", `E ERROR 08P01 bind message supplies 0 parameters, but prepared statement "" requires 1`, "Z I"}},
		{"parameter format count mismatch", []message{parseMsg("", "select $1::int8, $2::int8"),
			bindMsg("", "", []int16{0, 0, 0}, params("1", "2"), nil), syncMsg},
			[]string{"ParseComplete", "E ERROR 08P01 bind message has 3 parameter formats but 2 parameters", "Z I"}},
		{"result format count mismatch", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", nil, params("1"), []int16{0, 0}), syncMsg},
			[]string{"ParseComplete", "E ERROR 08P01 bind message has 2 result formats but query has 1 columns", "Z I"}},
		{"unsupported format code", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", []int16{2}, params("1"), nil), syncMsg},
			[]string{"ParseComplete", "E ERROR 22023 unsupported format code: 2", "Z I"}},
		{"bad text parameter", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", nil, params("abc"), nil), syncMsg},
			[]string{"ParseComplete", "E ERROR 22P02 *", "Z I"}},
		{"bad binary parameter", []message{parseMsg("", "select $1::int8"),
			bindMsg("", "", []int16{1}, params("abc"), nil), syncMsg},
			[]string{"ParseComplete", "E ERROR 22P03 *", "Z I"}},
		{"duplicate statement", []message{parseMsg("s", "series 1"), parseMsg("s", "series 2"), syncMsg},
			[]string{"ParseComplete", `E ERROR 42P05 prepared statement "s" already exists`, "Z I"}},
		{"unnamed statement replaced", []message{parseMsg("", "series 1"), parseMsg("", "series 2"),
			bindMsg("", "", nil, nil, nil), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "ParseComplete", "BindComplete", "D 1", "D 2", "C SELECT 2", "Z I"}},
		{"closed statement", []message{parseMsg("s", "series 1"), closeMsg('S', "s"),
			bindMsg("", "s", nil, nil, nil), syncMsg},
			[]string{"ParseComplete", "CloseComplete", `E ERROR 26000 prepared statement "s" does not exist`, "Z I"}},
		{"portal outlives its statement", []message{parseMsg("s", "series 1"), bindMsg("p", "s", nil, nil, nil),
			closeMsg('S', "s"), executeMsg("p", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "CloseComplete", "D 1", "C SELECT 1", "Z I"}},
		{"closing what does not exist", []message{closeMsg('S', "nope"), closeMsg('P', "nope"), syncMsg},
			[]string{"CloseComplete", "CloseComplete", "Z I"}},
		{"duplicate portal", []message{parseMsg("", "series 1"), bindMsg("p", "", nil, nil, nil),
			bindMsg("p", "", nil, nil, nil), syncMsg},
			[]string{"ParseComplete", "BindComplete", `E ERROR 42P03 portal "p" already exists`, "Z I"}},
		{"closed portal", []message{parseMsg("", "series 2"), bindMsg("p", "", nil, nil, nil),
			executeMsg("p", 1), closeMsg('P', "p"), executeMsg("p", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "PortalSuspended", "CloseComplete",
				`E ERROR 34000 portal "p" does not exist`, "Z I"}},
		{"unnamed portal replaced", []message{parseMsg("", "series 2"), bindMsg("", "", nil, nil, nil),
			executeMsg("", 1), bindMsg("", "", nil, nil, nil), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "PortalSuspended", "BindComplete",
				"D 1", "D 2", "C SELECT 2", "Z I"}},
		{"portals end at sync outside a transaction", []message{parseMsg("", "series 3"),
			bindMsg("p", "", nil, nil, nil), executeMsg("p", 1), syncMsg, executeMsg("p", 1), syncMsg},
			[]string{"ParseComplete", "BindComplete", "D 1", "PortalSuspended", "Z I",
				`E ERROR 34000 portal "p" does not exist`, "Z I"}},
		{"portals live through a transaction", []message{query("begin"), parseMsg("", "series 3"),
			bindMsg("p", "", nil, nil, nil), executeMsg("p", 1), syncMsg, executeMsg("p", 1), syncMsg,
			query("commit"), executeMsg("p", 1), syncMsg},
			[]string{"C BEGIN", "Z T", "ParseComplete", "BindComplete", "D 1", "PortalSuspended", "Z T",
				"D 2", "PortalSuspended", "Z T", "C COMMIT", "Z I", `E ERROR 34000 portal "p" does not exist`, "Z I"}},
		{"failed execution closes the portal", []message{parseMsg("", "failrow 1"),
			bindMsg("p", "", nil, nil, nil), executeMsg("p", 0), syncMsg, query("begin"), executeMsg("p", 0), syncMsg, query("rollback")},
			[]string{"ParseComplete", "BindComplete", "D 1", "E ERROR 22012 division by zero", "Z I",
				"C BEGIN", "Z T", `E ERROR 34000 portal "p" does not exist`, "Z T", "C ROLLBACK", "Z I"}},
		{"open error", []message{parseMsg("", "fail 22012"), bindMsg("", "", nil, nil, nil), executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "E ERROR 22012 failed as asked", "Z I"}},
		{"parameter status after execute", []message{parseMsg("", "set a 5"), bindMsg("", "", nil, nil, nil),
			executeMsg("", 0), syncMsg},
			[]string{"ParseComplete", "BindComplete", "C SET", "S a=5", "Z I"}},
	})
}

func TestFlush(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(parseMsg("", "series 1"), &pgproto3.Flush{})
	checkMessages(t, c.recvN(1), []string{"ParseComplete"})
	c.send(bindMsg("", "", nil, nil, nil), executeMsg("", 0), &pgproto3.Flush{})
	checkMessages(t, c.recvN(3), []string{"BindComplete", "D 1", "C SELECT 1"})
}
