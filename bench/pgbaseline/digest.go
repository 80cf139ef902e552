package pgbaseline

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Digest identifies a result as a multiset of rows: their count and the
// sum of their hashes (in PostgreSQL's text format, numerics by value:
// without trailing fractional zeros, since two systems may carry a
// result at different display scales), in any order.
type Digest struct {
	Rows int64
	Sum  uint64
}

// String renders the digest for error messages.
func (d Digest) String() string { return fmt.Sprintf("%d rows (hash sum %016x)", d.Rows, d.Sum) }

// DigestOf reads relation rel (or a parenthesized query with an alias)
// through conn and digests its rows.
func DigestOf(ctx context.Context, conn *pgx.Conn, rel string) (Digest, error) {
	// The simple protocol has every value arrive as text, formatted by
	// the server, so the systems' texts are compared.
	rows, err := conn.Query(ctx, "SELECT * FROM "+rel, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return Digest{}, fmt.Errorf("read the result: %w", err)
	}
	defer rows.Close()
	var d Digest
	var buf []byte
	for rows.Next() {
		buf = buf[:0]
		for i, v := range rows.RawValues() {
			switch {
			case v == nil:
				buf = append(buf, 0xff)
			case rows.FieldDescriptions()[i].DataTypeOID == pgtype.NumericOID:
				buf = append(buf, numericValue(v)...)
			default:
				buf = append(buf, v...)
			}
			buf = append(buf, 0)
		}
		d.Rows++
		d.Sum += xxhash.Sum64(buf)
	}
	return d, rows.Err()
}

// numericValue is a numeric's text without trailing fractional zeros
// (and without the point if nothing follows it).
func numericValue(v []byte) []byte {
	if !bytes.ContainsRune(v, '.') || bytes.ContainsAny(v, "eE") {
		return v
	}
	v = bytes.TrimRight(v, "0")
	return bytes.TrimSuffix(v, []byte("."))
}

// Check returns an error unless every result of one workload has the
// same digest.
func Check(results []Result) error {
	for _, r := range results[1:] {
		if r.Digest != results[0].Digest {
			var b strings.Builder
			fmt.Fprintf(&b, "the results of workload %s fed by %s differ:", r.Workload, r.Feed)
			for _, r := range results {
				fmt.Fprintf(&b, "\n  %s: %v", r.Mode, r.Digest)
			}
			b.WriteString("\nthe workload's query or its trigger is computed differently by the systems: compare them row by row")
			return fmt.Errorf("%s", b.String())
		}
	}
	return nil
}
