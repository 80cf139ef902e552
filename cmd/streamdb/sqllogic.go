package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/tests/sqllogic"
)

func runSQLLogic(args []string) error {
	fs := flag.NewFlagSet("sqllogic", flag.ExitOnError)
	addr := fs.String("addr", "", "server to test (host:port); empty starts an embedded server in a temporary directory")
	verbose := fs.Bool("v", false, "print every failing record")
	matchErrors := fs.Bool("match-errors", false, "require error messages to match the expected regex (for files written against streamdb)")
	knownPath := fs.String("known", "", "a list of the records expected to fail, with reasons: the run fails on any other failure and on a listed record that passes")
	update := fs.Bool("update-known", false, "with --known: drop the listed records that passed and add new failures for triage")
	_ = fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("sqllogic: name at least one file or directory")
	}
	var known *sqllogic.KnownFailures
	if *knownPath != "" {
		var err error
		if known, err = sqllogic.LoadKnownFailures(*knownPath); err != nil {
			return fmt.Errorf("sqllogic: %w", err)
		}
	}
	if *addr == "" {
		dir, err := os.MkdirTemp("", "streamdb-sqllogic-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			return err
		}
		defer n.Close()
		*addr = n.Addr()
	}
	conn := fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", *addr)
	res, err := sqllogic.Run(context.Background(), conn, fs.Args(), sqllogic.Options{Out: os.Stdout, Verbose: *verbose, MatchErrors: *matchErrors, Known: known})
	if err != nil {
		return err
	}
	fmt.Println(res.Summary())
	if known == nil {
		if res.Failed > 0 {
			return errFailures
		}
		return nil
	}
	v := known.Check(res)
	v.Report(os.Stdout, *knownPath)
	if *update {
		if err := known.Update(*knownPath, commonDir(fs.Args()), v); err != nil {
			return fmt.Errorf("sqllogic: %w", err)
		}
		fmt.Printf("updated %s\n", *knownPath)
		return nil
	}
	if !v.OK() {
		return errFailures
	}
	return nil
}

// errFailures ends a run whose report says what failed: the command
// exits 1 once its embedded server is closed and its data removed.
var errFailures = errors.New("sqllogic: records failed (see the report above)")

// commonDir returns the deepest directory holding every path (a file's
// directory, or the path itself when it is a directory).
func commonDir(paths []string) string {
	var dirs [][]string
	for _, p := range paths {
		p = filepath.Clean(p)
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			p = filepath.Dir(p)
		}
		dirs = append(dirs, strings.Split(filepath.ToSlash(p), "/"))
	}
	common := dirs[0]
	for _, d := range dirs[1:] {
		n := 0
		for n < len(common) && n < len(d) && common[n] == d[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) == 0 {
		return "."
	}
	return filepath.FromSlash(strings.Join(common, "/"))
}

func hostOf(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}
