package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/streamdb/streamdb/node"
)

// Settings come, for every flag of a FlagSet, from the command line, else
// the environment (STREAMDB_ and the flag's name in upper case with
// underscores: --state-cache-mb is STREAMDB_STATE_CACHE_MB), else a TOML
// file (--config, keys named like the flags), else the flag's default.

// origin tells where a flag's value came from.
type origin string

const (
	fromFlag    origin = "flag"
	fromEnv     origin = "env"
	fromFile    origin = "config"
	fromDefault origin = "default"
)

// commandLineOnly are the flags that only the command line sets: asking
// for the version is no setting.
var commandLineOnly = map[string]bool{"version": true}

// envName returns the environment variable of flag name.
func envName(name string) string {
	return "STREAMDB_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// applySettings fills the flags of fs (parsed) that the command line left
// unset from getenv and then from the TOML file that the flag configFlag
// names (if set, in any of the three), and returns where each flag's value
// came from. A key of the file that names no flag is an error.
func applySettings(fs *flag.FlagSet, configFlag string, getenv func(string) string) (map[string]origin, error) {
	origins := map[string]origin{}
	fs.Visit(func(f *flag.Flag) { origins[f.Name] = fromFlag })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if origins[f.Name] != "" || commandLineOnly[f.Name] {
			return
		}
		if v, ok := lookupEnv(getenv, f.Name); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", envName(f.Name), v, err))
			}
			origins[f.Name] = fromEnv
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	path := fs.Lookup(configFlag).Value.String()
	if path == "" {
		return fillDefaults(fs, origins), nil
	}
	file, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	for _, key := range slices.Sorted(maps.Keys(file)) {
		f := fs.Lookup(key)
		if f == nil || key == configFlag || commandLineOnly[key] {
			return nil, fmt.Errorf("config file %s: unknown key %q: the keys are the flags of streamdb start without their dashes (see streamdb start --help)", path, key)
		}
		if origins[key] != "" {
			continue
		}
		v, err := tomlString(file[key])
		if err == nil {
			err = fs.Set(key, v)
		}
		if err != nil {
			return nil, fmt.Errorf("config file %s: %s: %w", path, key, err)
		}
		origins[key] = fromFile
	}
	return fillDefaults(fs, origins), nil
}

// lookupEnv returns the environment's value of flag name, if set.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(envName(name))
	return v, v != ""
}

func fillDefaults(fs *flag.FlagSet, origins map[string]origin) map[string]origin {
	fs.VisitAll(func(f *flag.Flag) {
		if origins[f.Name] == "" {
			origins[f.Name] = fromDefault
		}
	})
	return origins
}

func readConfig(path string) (map[string]any, error) {
	var file map[string]any
	if _, err := toml.DecodeFile(path, &file); err != nil {
		return nil, fmt.Errorf("config file: %w (its keys are the flags of streamdb start, e.g. listen = \"127.0.0.1:4566\" or state-cache-mb = 512)", err)
	}
	return file, nil
}

// tomlString returns a TOML value as a flag's text: strings as they are,
// numbers and booleans printed, arrays of strings comma-separated (join).
func tomlString(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("an array holds strings only, not %T", e)
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("a %T cannot set a flag: use a string, number, boolean or array of strings", v)
}

// changedSettings returns "name=value (origin)" for each flag whose value
// does not come from its default, in the order of the flags' names.
func changedSettings(fs *flag.FlagSet, origins map[string]origin) []any {
	var out []any
	fs.VisitAll(func(f *flag.Flag) {
		if o := origins[f.Name]; o != fromDefault {
			out = append(out, f.Name, fmt.Sprintf("%s (%s)", f.Value.String(), o))
		}
	})
	return out
}

// startUsage prints streamdb start's help: what each flag is for, and how
// the environment and a config file set them.
func startUsage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprint(w, `Usage: streamdb start [flags]

Runs a streamdb node: PostgreSQL clients connect to --listen, other nodes
to --cluster-addr, Prometheus scrapes --http-addr (which also serves the
dashboard at /).

Every flag can also be set by an environment variable, STREAMDB_ and the
flag's name in upper case with underscores (--state-cache-mb 512 is
STREAMDB_STATE_CACHE_MB=512), or by a key of the TOML file --config names,
the flag's name without dashes (state-cache-mb = 512). A flag on the
command line wins over the environment, which wins over the file.

Flags:
`)
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// versionString describes the binary: streamdb's release, the commit it
// was built from (and when) and the Go version.
func versionString() string {
	v := node.Version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+changes"
			}
		}
	}
	if m := info.Main.Version; m != "" && m != "(devel)" {
		v += " (module " + m + ")"
	}
	if rev != "" {
		v += fmt.Sprintf(" commit %.12s%s %s", rev, dirty, at)
	}
	return v + " " + info.GoVersion
}
