package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/tests/sqllogic"
)

func runSQLLogic(args []string) error {
	fs := flag.NewFlagSet("sqllogic", flag.ExitOnError)
	addr := fs.String("addr", "", "server to test (host:port); empty starts an embedded server in a temporary directory")
	verbose := fs.Bool("v", false, "print every failing record")
	matchErrors := fs.Bool("match-errors", false, "require error messages to match the expected regex (for files written against streamdb)")
	_ = fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("sqllogic: name at least one file or directory")
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
	res, err := sqllogic.Run(context.Background(), conn, fs.Args(), sqllogic.Options{Out: os.Stdout, Verbose: *verbose, MatchErrors: *matchErrors})
	if err != nil {
		return err
	}
	fmt.Println(res.Summary())
	if res.Failed > 0 {
		os.Exit(1)
	}
	return nil
}

func hostOf(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}
