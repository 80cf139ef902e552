package pgcdc

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// Config is a validated postgres-cdc configuration.
type Config struct {
	// URL is the connection string of the upstream database.
	URL string
	// Schema and Table name the upstream table.
	Schema, Table string
	// Slot and Publication name the replication slot and the publication
	// (of the one table) the source uses, created if absent.
	Slot, Publication string
	// DropSlot and DropPublication: the slot, the publication is
	// streamdb's (its name was not given), dropped with the source.
	DropSlot, DropPublication bool
}

// The option names: streamdb's and RisingWave's spellings.
const (
	optURL         = "url"
	optTable       = "table"
	optSlot        = "slot"
	optPublication = "publication"
	// optOwned lists what streamdb named, and drops with the source:
	// slot, publication or both ("slot,publication"). streamdb sets it.
	optOwned = "owned"
)

// aliases maps RisingWave's option names to streamdb's; the connection
// parts (hostname, port, username, password, database.name) make a URL.
var aliases = map[string]string{
	"table.name": optTable, "slot.name": optSlot, "publication.name": optPublication,
}

// Keys are the options a postgres-cdc source accepts.
var Keys = []string{optURL, optTable, optSlot, optPublication, optOwned, "schema.name", "table.name", "slot.name",
	"publication.name", "hostname", "port", "username", "password", "database.name"}

// ParseOptions validates the options of a postgres-cdc source and returns
// its configuration and the options resolved in streamdb's spelling, with
// the slot and publication names made explicit: by default
// streamdb_<table>_<created>, created being the source's creation time in
// microseconds, so that two tables never share a slot.
func ParseOptions(opts map[string]string, created time.Time) (Config, map[string]string, error) {
	get := func(key string) string {
		if v, ok := opts[key]; ok {
			return v
		}
		for alias, k := range aliases {
			if k == key {
				return opts[alias]
			}
		}
		return ""
	}
	var c Config
	c.URL = get(optURL)
	if c.URL == "" {
		if opts["hostname"] == "" {
			return c, nil, pgerror.New(pgerror.CodeSyntaxError, "a postgres-cdc source needs the option url (or hostname)").
				WithHint("Add url = 'postgres://user@host:5432/db' or hostname, port, username, password and database.name.")
		}
		u := url.URL{Scheme: "postgres", Host: opts["hostname"], Path: "/" + opts["database.name"]}
		if p := opts["port"]; p != "" {
			u.Host += ":" + p
		}
		if opts["username"] != "" {
			u.User = url.UserPassword(opts["username"], opts["password"])
			if opts["password"] == "" {
				u.User = url.User(opts["username"])
			}
		}
		c.URL = u.String()
	}
	table := get(optTable)
	if table == "" {
		return c, nil, pgerror.New(pgerror.CodeSyntaxError, "a postgres-cdc source needs the option table").
			WithHint("Add table = 'public.orders' (or schema.name and table.name).")
	}
	c.Schema, c.Table = "public", table
	if s := opts["schema.name"]; s != "" {
		c.Schema = s
	} else if schema, name, ok := strings.Cut(table, "."); ok {
		c.Schema, c.Table = schema, name
	}
	suffix := slotName(c.Table, created)
	owned, recorded := opts[optOwned]
	if c.Slot = get(optSlot); c.Slot == "" {
		c.Slot, c.DropSlot = suffix, true
	}
	if c.Publication = get(optPublication); c.Publication == "" {
		c.Publication, c.DropPublication = suffix, true
	}
	if recorded {
		c.DropSlot, c.DropPublication = false, false
		for _, o := range strings.Split(owned, ",") {
			c.DropSlot = c.DropSlot || o == optSlot
			c.DropPublication = c.DropPublication || o == optPublication
		}
	}
	if !validSlot(c.Slot) {
		return c, nil, pgerror.New(pgerror.CodeInvalidParameterValue, "invalid replication slot name %q", c.Slot).
			WithHint("A slot name has only lower case letters, digits and underscores, at most 63.")
	}
	resolved := map[string]string{"connector": opts["connector"], optURL: c.URL,
		optTable: c.Schema + "." + c.Table, optSlot: c.Slot, optPublication: c.Publication, optOwned: c.owned()}
	return c, resolved, nil
}

// validSlot reports whether name is a valid replication slot name.
func validSlot(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// slotName is the default slot and publication name of a source of table
// created at created.
func slotName(table string, created time.Time) string {
	name := []byte(strings.ToLower(table))
	for i, b := range name {
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9') {
			name[i] = '_'
		}
	}
	stamp := fmt.Sprintf("_%d", created.UnixMicro())
	return "streamdb_" + string(name[:min(len(name), 63-len("streamdb_")-len(stamp))]) + stamp
}

// owned is the value of the option owned for c.
func (c Config) owned() string {
	var owned []string
	if c.DropSlot {
		owned = append(owned, optSlot)
	}
	if c.DropPublication {
		owned = append(owned, optPublication)
	}
	return strings.Join(owned, ",")
}
