package datagen

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Column is a column of a datagen table.
type Column struct {
	Name string
	Type types.T
}

// Config describes a datagen source: its columns, how each is generated,
// and how the source runs. ParseOptions builds one.
type Config struct {
	// Columns are the table's columns, in order.
	Columns []Column
	// RowsPerSecond is the rate of the whole source, shared by its splits.
	RowsPerSecond int64
	// SplitNum is the number of splits the source runs in parallel.
	SplitNum int
	// Clock gives the time that timestamps in relative max_past_mode go
	// back from; nil means time.Now. Splits read it once per Next.
	Clock func() time.Time

	gens []generator // one per column
}

// RisingWave's defaults.
const (
	defaultRowsPerSecond = 10
	defaultMax           = "32767" // of random numbers, and end of sequences
	defaultLength        = 10      // of random strings
	defaultMaxPast       = 24 * time.Hour
)

// ParseOptions builds a Config for a table of columns from its WITH
// options, as RisingWave's datagen connector reads them:
// datagen.rows.per.second (default 10), datagen.split.num (default 1) and
// fields.<column>.<parameter> (see the package documentation). Options
// outside the datagen.* and fields.* namespaces are ignored. now is the
// source's creation time, the base of timestamps in absolute max_past_mode
// without a basetime: pass the same value when rebuilding the source (at
// recovery) to generate the same rows. Bad options are errors with SQLSTATE
// 22023; columns of types datagen cannot generate, 0A000.
func ParseOptions(cols []Column, opts map[string]string, now time.Time) (Config, error) {
	cfg := Config{Columns: slices.Clone(cols), RowsPerSecond: defaultRowsPerSecond, SplitNum: 1}
	params := make([]map[string]string, len(cols))
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		val := strings.TrimSpace(opts[key])
		switch {
		case key == "datagen.rows.per.second":
			v, err := parseInt(key, val, 1, 1e12)
			if err != nil {
				return Config{}, err
			}
			cfg.RowsPerSecond = v
		case key == "datagen.split.num":
			v, err := parseInt(key, val, 1, 1<<20)
			if err != nil {
				return Config{}, err
			}
			cfg.SplitNum = int(v)
		case strings.HasPrefix(key, "fields."):
			rest := key[len("fields."):]
			dot := strings.LastIndexByte(rest, '.')
			i := slices.IndexFunc(cols, func(c Column) bool { return dot > 0 && c.Name == rest[:dot] })
			if i < 0 {
				return Config{}, pgerror.New(pgerror.CodeInvalidParameterValue,
					"datagen option %s names no column of the table", key)
			}
			if params[i] == nil {
				params[i] = make(map[string]string)
			}
			params[i][rest[dot+1:]] = val
		case strings.HasPrefix(key, "datagen."):
			return Config{}, pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized datagen option %s", key)
		}
	}
	for i, c := range cols {
		o := &columnOptions{col: c, index: i, params: params[i]}
		g, err := o.generator(now)
		if err != nil {
			return Config{}, err
		}
		cfg.gens = append(cfg.gens, g)
	}
	return cfg, nil
}

// parseInt parses the integer option key, in [lo, hi].
func parseInt(key, val string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(val, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, invalidValue(key, val, "an integer from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
	}
	return v, nil
}

// invalidValue is the error for a malformed option value.
func invalidValue(key, val, want string) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for option %s: %q (expected %s)", key, val, want)
}
