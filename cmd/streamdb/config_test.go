package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testFlags returns a FlagSet like streamdb start's, in small.
func testFlags() (*flag.FlagSet, map[string]*string) {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	v := map[string]*string{}
	for _, name := range []string{"listen", "data-dir", "state-cache-mb", "join"} {
		v[name] = fs.String(name, "default-"+name, "")
	}
	v["config"] = fs.String("config", "", "")
	fs.Bool("version", false, "")
	return fs, v
}

func TestSettingsPrecedence(t *testing.T) {
	file := `listen = "file-listen"
data-dir = "file-dir"
state-cache-mb = 512
join = ["a:1", "b:2"]
`
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		file    string
		want    map[string]string
		origins map[string]origin
	}{
		{"defaults", nil, map[string]string{"STREAMDB_VERSION": "1.2"}, "", map[string]string{"listen": "default-listen", "state-cache-mb": "default-state-cache-mb"},
			map[string]origin{"listen": fromDefault}},
		{"file over default", nil, nil, file,
			map[string]string{"listen": "file-listen", "state-cache-mb": "512", "join": "a:1,b:2"},
			map[string]origin{"listen": fromFile, "state-cache-mb": fromFile, "join": fromFile}},
		{"env over file", nil, map[string]string{"STREAMDB_LISTEN": "env-listen", "STREAMDB_STATE_CACHE_MB": "64"}, file,
			map[string]string{"listen": "env-listen", "state-cache-mb": "64", "data-dir": "file-dir"},
			map[string]origin{"listen": fromEnv, "state-cache-mb": fromEnv, "data-dir": fromFile}},
		{"flag over env and file", []string{"--listen", "flag-listen"}, map[string]string{"STREAMDB_LISTEN": "env-listen"}, file,
			map[string]string{"listen": "flag-listen", "data-dir": "file-dir"},
			map[string]origin{"listen": fromFlag, "data-dir": fromFile}},
	}
	for _, tt := range tests {
		fs, v := testFlags()
		args := tt.args
		if tt.file != "" {
			path := filepath.Join(t.TempDir(), "streamdb.toml")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--config", path)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		origins, err := applySettings(fs, "config", func(k string) string { return tt.env[k] })
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for name, want := range tt.want {
			if got := *v[name]; got != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, name, got, want)
			}
		}
		for name, want := range tt.origins {
			if got := origins[name]; got != want {
				t.Errorf("%s: %s comes from %q, want %q", tt.name, name, got, want)
			}
		}
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"unknown key", `listne = "x"`, nil, `unknown key "listne"`},
		{"config names itself", `config = "other.toml"`, nil, `unknown key "config"`},
		{"version is no setting", `version = true`, nil, `unknown key "version"`},
		{"table value", "[listen]\nx = 1", nil, "cannot set a flag"},
		{"not TOML", `listen = `, nil, "config file"},
		{"array of numbers", `join = [1, 2]`, nil, "strings only"},
	}
	for _, tt := range tests {
		fs, _ := testFlags()
		path := filepath.Join(t.TempDir(), "streamdb.toml")
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := fs.Parse([]string{"--config", path}); err != nil {
			t.Fatal(err)
		}
		_, err := applySettings(fs, "config", func(k string) string { return tt.env[k] })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestEnvName(t *testing.T) {
	for name, want := range map[string]string{"listen": "STREAMDB_LISTEN", "state-cache-mb": "STREAMDB_STATE_CACHE_MB", "http-addr": "STREAMDB_HTTP_ADDR"} {
		if got := envName(name); got != want {
			t.Errorf("envName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestHTTPAddress(t *testing.T) {
	tests := []struct{ flag, listen, want string }{
		{"auto", "127.0.0.1:4566", "127.0.0.1:6566"},
		{"auto", "127.0.0.1:0", "127.0.0.1:0"},
		{"auto", "0.0.0.0:65000", "0.0.0.0:0"},
		{"auto", "[::1]:4566", "[::1]:6566"},
		{"127.0.0.1:9000", "127.0.0.1:4566", "127.0.0.1:9000"},
		{"", "127.0.0.1:4566", ""},
	}
	for _, tt := range tests {
		if got := httpAddress(tt.flag, tt.listen); got != tt.want {
			t.Errorf("httpAddress(%q, %q) = %q, want %q", tt.flag, tt.listen, got, tt.want)
		}
	}
}

func TestNewLogger(t *testing.T) {
	tests := []struct{ format, level, err string }{
		{"text", "info", ""},
		{"json", "debug", ""},
		{"xml", "info", "use text or json"},
		{"text", "loud", "use debug, info, warn or error"},
	}
	for _, tt := range tests {
		_, err := newLogger(tt.format, tt.level)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("newLogger(%q, %q) = %v, want error %q", tt.format, tt.level, err, tt.err)
		}
	}
}

func TestConfigFileFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "streamdb.toml")
	if err := os.WriteFile(path, []byte(`data-dir = "file-dir"`), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, v := testFlags()
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	origins, err := applySettings(fs, "config", func(k string) string { return map[string]string{"STREAMDB_CONFIG": path}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if *v["data-dir"] != "file-dir" || origins["config"] != fromEnv || origins["data-dir"] != fromFile {
		t.Errorf("data-dir = %q from %q (config from %q); want file-dir from the file STREAMDB_CONFIG names", *v["data-dir"], origins["data-dir"], origins["config"])
	}
}
