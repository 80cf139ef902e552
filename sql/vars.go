package sql

import (
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// varDef describes a session variable.
type varDef struct {
	def string
	// report: sent to the client in ParameterStatus when it changes.
	report bool
	// readOnly variables reject SET.
	readOnly bool
	// boolean variables take on/off (true, yes, 1, ...), shown as on/off.
	boolean bool
	// duration variables take a time (5000, '5s', '1min'; see
	// parseDurationSetting).
	duration bool
	desc     string
}

// sessionVars are the variables clients set and show. Aliases map other
// spellings (RisingWave's) to the canonical name.
var sessionVars = map[string]varDef{
	"application_name":                    {def: "", report: true, desc: "Sets the application name to be reported in statistics and logs."},
	"client_encoding":                     {def: "UTF8", report: true, desc: "Sets the client's character set encoding."},
	"datestyle":                           {def: "ISO, MDY", report: true, desc: "Sets the display format for date and time values."},
	"intervalstyle":                       {def: "postgres", report: true, desc: "Sets the display format for interval values."},
	"timezone":                            {def: "UTC", report: true, desc: "Sets the time zone for displaying and interpreting time stamps."},
	"integer_datetimes":                   {def: "on", report: true, readOnly: true, desc: "Shows whether datetimes are integer based."},
	"standard_conforming_strings":         {def: "on", report: true, desc: "Causes '...' strings to treat backslashes literally."},
	"server_encoding":                     {def: "UTF8", report: true, readOnly: true, desc: "Shows the server (database) character set encoding."},
	"server_version":                      {report: true, readOnly: true, desc: "Shows the server version."},
	"is_superuser":                        {def: "on", report: true, readOnly: true, desc: "Shows whether the current user is a superuser."},
	"session_authorization":               {report: true, readOnly: true, desc: "Sets the session user name."},
	"role":                                {def: "none", desc: "Sets the current session role (SET ROLE)."},
	"password_encryption":                 {def: "scram-sha-256", readOnly: true, desc: "Chooses the algorithm for encrypting passwords."},
	"extra_float_digits":                  {def: "1", desc: "Sets the number of digits displayed for floating-point values."},
	"search_path":                         {def: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
	"transaction_isolation":               {def: "read committed", desc: "Sets the current transaction's isolation level."},
	"default_transaction_isolation":       {def: "read committed", desc: "Sets the transaction isolation level of each new transaction."},
	"transaction_read_only":               {def: "off", boolean: true, desc: "Sets the current transaction's read-only status."},
	"default_transaction_read_only":       {def: "off", boolean: true, desc: "Sets the default read-only status of new transactions."},
	"statement_timeout":                   {def: "0", duration: true, desc: "Sets the maximum allowed duration of any statement."},
	"lock_timeout":                        {def: "0", duration: true, desc: "Sets the maximum allowed duration of any wait for a lock."},
	"idle_in_transaction_session_timeout": {def: "0", duration: true, desc: "Sets the maximum allowed idle time between queries, when in a transaction."},
	"client_min_messages":                 {def: "notice", desc: "Sets the message levels that are sent to the client."},
	"bytea_output":                        {def: "hex", desc: "Sets the output format for bytea."},
	"max_identifier_length":               {def: "63", readOnly: true, desc: "Shows the maximum identifier length."},
	"implicit_flush":                      {def: "off", boolean: true, desc: "Makes each DML statement wait until its effects are visible in every materialized view."},
	"streaming_parallelism":               {def: "0", desc: "Actors per fragment of new materialized views (0: the server's default)."},
	"subscribe_retention":                 {def: "10min", duration: true, desc: "Sets how long the changes of a SUBSCRIBE to a relation or a query are kept for a reader that falls behind."},
	"scan_pushdown":                       {def: "on", boolean: true, desc: "Has the nodes that hold a relation's rows filter them, and send only the columns a query reads."},
	// Accepted for RisingWave compatibility; they tune RisingWave's own
	// executors and have no effect here.
	"streaming_join_encoding":       {def: "memory_optimized", desc: "Accepted for RisingWave compatibility; no effect."},
	"streaming_asof_join_use_cache": {def: "true", desc: "Accepted for RisingWave compatibility; no effect."},
	"rw_force_two_phase_agg":        {def: "false", desc: "Accepted for RisingWave compatibility; no effect."},
	"enable_two_phase_agg":          {def: "true", desc: "Accepted for RisingWave compatibility; no effect."},
	"server_version_num":            {def: "150000", readOnly: true, desc: "Shows the server version as an integer."},
	"row_security":                  {def: "on", desc: "Enable row security."},
	"synchronous_commit":            {def: "on", desc: "Sets the current transaction's synchronization level."},
	"enable_seqscan":                {def: "on", desc: "Enables the planner's use of sequential-scan plans."},
	"join_collapse_limit":           {def: "8", desc: "Sets the FROM-list size beyond which JOIN constructs are not flattened."},
	"cursor_tuple_fraction":         {def: "0.1", desc: "Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved."},
	"check_function_bodies":         {def: "on", desc: "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE."},
	"default_with_oids":             {def: "off", desc: "Deprecated."},
	"geqo":                          {def: "on", desc: "Enables genetic query optimization."},
	"work_mem":                      {def: "4MB", desc: "Sets the maximum memory to be used for query workspaces."},
}

var varAliases = map[string]string{
	"rw_implicit_flush":     "implicit_flush",
	"time zone":             "timezone",
	"names":                 "client_encoding",
	"session authorization": "session_authorization",
}

func canonicalVar(name string) string {
	name = strings.ToLower(name)
	if a, ok := varAliases[name]; ok {
		return a
	}
	return name
}

// vars is one session's variable values.
type vars struct {
	values map[string]string
	// initial holds the values at connection start (defaults overridden by
	// startup parameters): what RESET restores, as in PostgreSQL.
	initial map[string]string
	// before holds the values when the transaction block began: its
	// ROLLBACK restores them all, as PostgreSQL undoes the SETs of an
	// aborted transaction; locals names what SET LOCAL changed, which
	// COMMIT restores too.
	before map[string]string
	locals map[string]bool
	// zoneName and zoneLoc cache the location of the TimeZone setting.
	zoneName string
	zoneLoc  *time.Location
}

// zone returns the session's TimeZone (nil for UTC).
func (v *vars) zone() *time.Location {
	name := v.values["timezone"]
	if name != v.zoneName {
		v.zoneName, v.zoneLoc = name, nil
		if loc, _, err := types.ParseZone(name); err == nil && loc != time.UTC {
			v.zoneLoc = loc
		}
	}
	return v.zoneLoc
}

// beginBlock records the values a transaction block begins with.
func (v *vars) beginBlock() { v.before, v.locals = maps.Clone(v.values), map[string]bool{} }

// endBlock ends the transaction block: commit keeps its SETs but SET
// LOCAL's, a rollback none.
func (v *vars) endBlock(commit bool) {
	if v.before == nil {
		return
	}
	if commit {
		for name := range v.locals {
			v.values[name] = v.before[name]
		}
	} else {
		v.values = v.before
	}
	v.before, v.locals = nil, nil
}

// setLocal sets a variable until the end of the transaction block (SET
// LOCAL); outside a block it has no effect, as in PostgreSQL.
func (v *vars) setLocal(name, value string) error {
	if v.before == nil {
		return nil
	}
	if err := v.set(name, value); err != nil {
		return err
	}
	v.locals[canonicalVar(name)] = true
	return nil
}

func newVars(params map[string]string, version, user string, superuser bool) *vars {
	v := &vars{values: map[string]string{}}
	for name, d := range sessionVars {
		v.values[name] = d.def
	}
	v.values["server_version"] = version
	v.values["session_authorization"] = user
	if !superuser {
		v.values["is_superuser"] = "off"
	}
	for name, val := range params {
		name = canonicalVar(name)
		if d, ok := sessionVars[name]; ok && !d.readOnly {
			if name == "timezone" {
				_, show, err := types.ParseZone(val)
				if err != nil {
					continue
				}
				val = show
			}
			if d.duration {
				var err error
				if val, err = parseDurationSetting(name, val); err != nil {
					continue
				}
			}
			v.values[name] = val
		}
	}
	v.initial = maps.Clone(v.values)
	return v
}

func (v *vars) get(name string) (string, error) {
	name = canonicalVar(name)
	val, ok := v.values[name]
	if !ok {
		return "", errUnrecognized(name)
	}
	return val, nil
}

func errUnrecognized(name string) error {
	return pgerror.New(pgerror.CodeUndefinedObject, "unrecognized configuration parameter %q", name)
}

// checkSettable reports why SET and RESET may not change a variable.
func checkSettable(name string) error {
	d, ok := sessionVars[name]
	switch {
	case !ok && strings.Contains(name, "."):
		// Custom (extension-style) parameters are accepted as PostgreSQL does.
	case !ok:
		return errUnrecognized(name)
	case d.readOnly:
		return pgerror.New("55P02", "parameter %q cannot be changed", name)
	}
	return nil
}

func (v *vars) set(name, value string) error {
	name = canonicalVar(name)
	if err := checkSettable(name); err != nil {
		return err
	}
	if name == "timezone" {
		_, show, err := types.ParseZone(value)
		if err != nil {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", value).
				WithHint("Use an IANA name such as 'America/New_York', 'UTC', or an offset such as INTERVAL '+05:30' HOUR TO MINUTE.")
		}
		value = show
	}
	if sessionVars[name].boolean {
		switch strings.ToLower(value) {
		case "true", "on", "1", "yes", "t", "y":
			value = "on"
		case "false", "off", "0", "no", "f", "n":
			value = "off"
		default:
			return pgerror.New(pgerror.CodeInvalidParameterValue, "parameter %q requires a Boolean value", name)
		}
	}
	if sessionVars[name].duration {
		var err error
		if value, err = parseDurationSetting(name, value); err != nil {
			return err
		}
	}
	delete(v.locals, name)
	v.values[name] = value
	return nil
}

// txVars pairs each transaction characteristic with the session default
// a new transaction takes it from.
var txVars = [...][2]string{
	{"transaction_isolation", "default_transaction_isolation"},
	{"transaction_read_only", "default_transaction_read_only"},
}

// startTx gives a new transaction the session's default characteristics,
// then the modes it was started with.
func (v *vars) startTx(m parser.TxModes) {
	for _, tv := range txVars {
		v.values[tv[0]] = v.values[tv[1]]
	}
	v.setTxModes(m, false)
}

// setTxModes sets the characteristics m names, of the current transaction
// or, with defaults, of the session's next transactions.
func (v *vars) setTxModes(m parser.TxModes, defaults bool) {
	i := 0
	if defaults {
		i = 1
	}
	if m.Isolation != "" {
		v.values[txVars[0][i]] = m.Isolation
	}
	switch m.Access {
	case "read only":
		v.values[txVars[1][i]] = "on"
	case "read write":
		v.values[txVars[1][i]] = "off"
	}
}

// readOnly reports whether the current transaction is read-only.
func (v *vars) readOnly() bool { return v.values["transaction_read_only"] == "on" }

func (v *vars) reset(name string) error {
	name = canonicalVar(name)
	if err := checkSettable(name); err != nil {
		return err
	}
	v.values[name] = v.initial[name] // "" for a custom parameter
	return nil
}

// resetAll resets every variable that SET can change.
func (v *vars) resetAll() {
	for name, d := range sessionVars {
		if !d.readOnly {
			v.values[name] = v.initial[name]
		}
	}
}

// displayName is PostgreSQL's spelling of a canonical (lowercase) variable
// name, as ParameterStatus and SHOW's column report it.
func displayName(name string) string {
	switch name {
	case "datestyle":
		return "DateStyle"
	case "intervalstyle":
		return "IntervalStyle"
	case "timezone":
		return "TimeZone"
	}
	return name
}

// reportedVars are the variables sent as ParameterStatus: their names,
// and PostgreSQL's spellings of them.
var reportedVars = func() (out [][2]string) {
	for name, d := range sessionVars {
		if d.report {
			out = append(out, [2]string{name, displayName(name)})
		}
	}
	return out
}()

// reported returns the variables sent as ParameterStatus (the client
// compares them after every statement).
func (v *vars) reported() map[string]string {
	out := make(map[string]string, len(reportedVars))
	for _, n := range reportedVars {
		out[n[1]] = v.values[n[0]]
	}
	return out
}

// all returns every variable, sorted by name, for SHOW ALL.
func (v *vars) all() [][3]string {
	var out [][3]string
	for name, d := range sessionVars {
		out = append(out, [3]string{name, v.values[name], d.desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
