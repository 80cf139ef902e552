package planner

import (
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// Activity is a client session of the node, as pg_stat_activity shows
// it.
type Activity struct {
	PID                                              int32
	User, Application                                string
	ClientAddr                                       string // "" if not over TCP
	ClientPort                                       int
	BackendStart, XactStart, QueryStart, StateChange time.Time
	// State is active, idle, idle in transaction or idle in transaction
	// (aborted); Query the statement running or last run.
	State, Query string
}

// pgStatActivity is pg_catalog.pg_stat_activity: the sessions of the
// node the client is connected to (PostgreSQL's columns; client_addr as
// text).
var pgStatActivity = &sysTable{
	cols: sysCols("datid oid", "datname name", "pid int4", "leader_pid int4", "usesysid oid", "usename name",
		"application_name text", "client_addr text", "client_hostname text", "client_port int4",
		"backend_start timestamptz", "xact_start timestamptz", "query_start timestamptz", "state_change timestamptz",
		"wait_event_type text", "wait_event text", "state text", "backend_xid int8", "backend_xmin int8",
		"query_id int8", "query text", "backend_type text"),
	status: func(s Status) ([][]types.Datum, error) {
		acts := s.Activity()
		rows := make([][]types.Datum, len(acts))
		for i, a := range acts {
			addr, port := dNull, dNull
			if a.ClientAddr != "" {
				addr, port = dStr(a.ClientAddr), dInt(int64(a.ClientPort))
			}
			rows[i] = []types.Datum{dOID(databaseOID), dStr(databaseName), dInt(int64(a.PID)), dNull, dOID(superuserOID), dStr(a.User),
				dStr(a.Application), addr, dNull, port,
				dTime(a.BackendStart), dTime(a.XactStart), dTime(a.QueryStart), dTime(a.StateChange),
				dNull, dNull, dStr(a.State), dNull, dNull,
				dNull, dStr(a.Query), dStr("client backend")}
		}
		return rows, nil
	},
}

// pgSettings is pg_catalog.pg_settings: the session's run-time
// parameters (all of them user-settable, none with units).
var pgSettings = &sysTable{
	cols: sysCols("name text", "setting text", "unit text", "category text", "short_desc text", "extra_desc text",
		"context text", "vartype text", "source text", "min_val text", "max_val text", "enumvals text[]", "boot_val text",
		"reset_val text", "sourcefile text", "sourceline int4", "pending_restart bool"),
	status: func(s Status) ([][]types.Datum, error) {
		settings := s.Settings()
		rows := make([][]types.Datum, len(settings))
		for i, st := range settings {
			source := "default"
			switch {
			case st.Value != st.Reset:
				source = "session"
			case st.Reset != st.Boot:
				source = "client"
			}
			rows[i] = []types.Datum{dStr(st.Name), dStr(st.Value), dNull, dStr("Client Connection Defaults"), dStr(st.Description), dNull,
				dStr("user"), dStr("string"), dStr(source), dNull, dNull, dNull, dStr(st.Boot),
				dStr(st.Reset), dNull, dNull, dFalse}
		}
		return rows, nil
	},
}

// dTime is a timestamptz, NULL for the zero time.
func dTime(t time.Time) types.Datum {
	if t.IsZero() {
		return dNull
	}
	return types.NewTimestampTZ(types.TimestampFromTime(t))
}

// pgTimezoneNames is pg_catalog.pg_timezone_names: every IANA time zone
// a TimeZone setting takes, with its abbreviation, offset and daylight
// saving now (psql completes SET TimeZone from it).
var pgTimezoneNames = &sysTable{
	cols: sysCols("name text", "abbrev text", "utc_offset interval", "is_dst bool"),
	rows: func(*meta.Catalog) [][]types.Datum {
		now := time.Now()
		names := types.ZoneNames()
		rows := make([][]types.Datum, 0, len(names))
		for _, name := range names {
			loc, err := time.LoadLocation(name)
			if err != nil {
				continue
			}
			t := now.In(loc)
			abbrev, offset := t.Zone()
			rows = append(rows, []types.Datum{dStr(name), dStr(abbrev),
				types.NewInterval(types.IntervalValue{Micros: int64(offset) * 1_000_000}), dBool(t.IsDST())})
		}
		return rows
	},
}
