package pgbaseline

import (
	"errors"
	"fmt"
	"io"
)

// Use says whether a bench compares streamdb with PostgreSQL.
type Use string

// The choices of --postgres.
const (
	// UseAuto compares when PostgreSQL's server binaries are installed.
	UseAuto Use = "auto"
	// UseOn compares, and fails without PostgreSQL.
	UseOn Use = "on"
	// UseOff does not compare.
	UseOff Use = "off"
)

// ParseUse reads a --postgres flag's value.
func ParseUse(s string) (Use, error) {
	switch u := Use(s); u {
	case UseAuto, UseOn, UseOff:
		return u, nil
	}
	return "", fmt.Errorf("--postgres must be auto, on or off, not %q", s)
}

// Locate returns the directory of the PostgreSQL server binaries to
// compare with, or "" for no comparison: with UseOff, or with UseAuto when
// none are installed (then it says so on errOut). UseOn without them is an
// error.
func Locate(use Use, errOut io.Writer) (string, error) {
	if use == UseOff {
		return "", nil
	}
	bin := Binaries()
	if bin == "" {
		const install = "PostgreSQL's server binaries are not installed (no /usr/lib/postgresql/*/bin/initdb): install them (sudo apt-get install -y postgresql)"
		if use == UseOn {
			return "", errors.New(install + " or pass --postgres off")
		}
		fmt.Fprintln(errOut, "no PostgreSQL comparison: "+install+" to compare")
	}
	return bin, nil
}
