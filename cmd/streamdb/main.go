// Command streamdb is the streamdb server and its tools:
//
//	streamdb start    [--listen addr] [--data-dir dir]   run a node (--help: every flag)
//	streamdb sqllogic [--addr host:port] FILE_OR_DIR...   run sqllogictest files
//	streamdb bench nexmark [flags]                       run the Nexmark benchmark
//	streamdb bench rescale [flags]                       measure online rescales
//	streamdb version
package main

import (
	"fmt"
	"os"
)

func usage() {
	fmt.Fprint(os.Stderr, `streamdb: a streaming SQL database that speaks PostgreSQL.

Usage:
  streamdb start    [--listen 127.0.0.1:4566] [--data-dir ./streamdb-data] [--config streamdb.toml]
  streamdb sqllogic [--addr host:port] FILE_OR_DIR...
  streamdb bench nexmark [--queries q0,q5|all] [--events N] [--parallelism p[,p2...]]
                         [--json FILE] [--barrier-interval-ms 1000] [--postgres auto|on|off]
  streamdb bench rescale [--state-mb 1024] [--strategies fluid,all_at_once,restart]
                         [--from 2] [--to 3] [--step 16] [--steady 10s] [--json FILE]
  streamdb version

Run "streamdb <command> --help" for a command's flags.
`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "start":
		err = runStart(os.Args[2:])
	case "sqllogic":
		err = runSQLLogic(os.Args[2:])
	case "bench":
		err = runBench(os.Args[2:])
	case "version", "--version":
		fmt.Println("streamdb", versionString())
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "streamdb: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamdb:", err)
		os.Exit(1)
	}
}
