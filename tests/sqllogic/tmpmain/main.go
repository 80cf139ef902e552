package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/streamdb/streamdb/tests/sqllogic"
)

func main() {
	res, err := sqllogic.Run(context.Background(), os.Getenv("PGURL"), os.Args[1:], sqllogic.Options{Out: os.Stdout, Verbose: os.Getenv("V") != "", Timeout: 2 * time.Second})
	fmt.Println(res.Summary(), err)
}
