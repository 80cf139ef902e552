package main

import (
	"context"
	"fmt"
	"os"

	"github.com/streamdb/streamdb/tests/sqllogic"
)

func main() {
	res, err := sqllogic.Run(context.Background(), os.Getenv("PGURL"), os.Args[1:], sqllogic.Options{Out: os.Stdout, Verbose: os.Getenv("V") != ""})
	fmt.Println(res.Summary(), err)
}
