package expr

import (
	"time"

	"github.com/streamdb/streamdb/types"
)

func init() {
	// pg_sleep(seconds) waits, and returns early with the context's error
	// when the statement is cancelled. PostgreSQL returns void, which reads
	// as an empty string; streamdb has no void type and returns ''.
	RegisterBuiltin("pg_sleep", Overload{Args: []types.Family{types.Float8}, Ret: Returns(types.TText), Volatile: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			d := time.Duration(a[0].Float() * float64(time.Second))
			if d <= 0 {
				return types.NewString(""), nil
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return types.NewString(""), nil
			case <-c.Context.Done():
				return types.Null, c.Context.Err()
			}
		}})
}
