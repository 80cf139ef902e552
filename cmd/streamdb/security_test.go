package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLimitFlags reads the client limits from flags, the environment and
// the config file, as every flag of start, and refuses values out of
// range.
func TestLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		file string
		// want is "max reserved timeout messageBytes", or the error's part.
		want string
	}{
		{name: "defaults", want: "100 3 1m0s 67108864"},
		{name: "flags", args: []string{"--max-connections", "10", "--superuser-reserved-connections", "0", "--auth-timeout", "5s", "--max-message-mb", "1"},
			want: "10 0 5s 1048576"},
		{name: "env and file", env: map[string]string{"STREAMDB_AUTH_TIMEOUT": "90s"}, file: "max-connections = 500\nmax-message-mb = 256\n",
			want: "500 3 1m30s 268435456"},
		{name: "no connections", args: []string{"--max-connections", "0"}, want: "must be at least 1"},
		{name: "negative timeout", args: []string{"--auth-timeout", "-1s"}, want: "--auth-timeout positive"},
		{name: "message of a GiB", args: []string{"--max-message-mb", "1024"}, want: "at most 1023"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("start", flag.ContinueOnError)
			fs.String("config", "", "")
			security := securityFlags(fs)
			args := tc.args
			if tc.file != "" {
				path := filepath.Join(t.TempDir(), "streamdb.toml")
				if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", path)
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			if _, err := applySettings(fs, "config", func(k string) string { return tc.env[k] }); err != nil {
				t.Fatal(err)
			}
			s, err := security()
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = strings.Join([]string{strconv.Itoa(s.MaxConnections), strconv.Itoa(s.ReservedConnections), s.AuthTimeout.String(), strconv.Itoa(s.MaxMessageSize)}, " ")
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
