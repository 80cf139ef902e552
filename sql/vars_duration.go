package sql

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// Time-valued settings (statement_timeout, ...) take a number with an
// optional unit, milliseconds without one, as PostgreSQL's do, and show
// in the largest unit that keeps them whole.

// durationUnits are PostgreSQL's units of time settings, largest first.
var durationUnits = []struct {
	name string
	d    time.Duration
}{
	{"d", 24 * time.Hour}, {"h", time.Hour}, {"min", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}, {"us", time.Microsecond},
}

// maxDurationSetting is the largest value of a time setting: PostgreSQL's
// INT_MAX milliseconds.
const maxDurationSetting = math.MaxInt32 * time.Millisecond

// parseDurationSetting reads value for setting name and returns it shown as
// PostgreSQL shows it.
func parseDurationSetting(name, value string) (string, error) {
	v := strings.TrimSpace(value)
	num := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	unit := strings.TrimSpace(v[len(num):])
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	scale := time.Millisecond
	if unit != "" {
		scale = 0
		for _, u := range durationUnits {
			if u.name == unit {
				scale = u.d
			}
		}
	}
	if err != nil || scale == 0 || math.IsNaN(f) {
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for parameter %q: %q", name, value).
			WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
	}
	ms := math.Round(f * float64(scale) / float64(time.Millisecond))
	switch {
	case ms > float64(maxDurationSetting/time.Millisecond):
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for parameter %q: %q", name, value).WithHint("Value exceeds integer range.")
	case ms < 0:
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "%s ms is outside the valid range for parameter %q (0 .. %d)", strconv.FormatFloat(ms, 'f', -1, 64), name, math.MaxInt32)
	}
	return showDuration(time.Duration(ms) * time.Millisecond), nil
}

// showDuration is d as PostgreSQL shows a time setting.
func showDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range durationUnits[:len(durationUnits)-1] {
		if d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%dms", d/time.Millisecond)
}

// duration returns the value of a time setting (shown as showDuration).
func (v *vars) duration(name string) time.Duration { return shownDuration(v.values[name]) }

// shownDuration reads a duration as showDuration shows it.
func shownDuration(s string) time.Duration {
	for _, u := range durationUnits {
		if n, ok := strings.CutSuffix(s, u.name); ok {
			if k, err := strconv.ParseInt(n, 10, 64); err == nil {
				return time.Duration(k) * u.d
			}
		}
	}
	return 0
}

// statementContext returns ctx bounded by statement_timeout, if set.
func (v *vars) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := v.duration("statement_timeout"); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// statementTimedOut turns the error of a statement whose statement_timeout
// ran out into PostgreSQL's; write says the statement wrote, whose
// outcome is then unknown (its rows may commit after the timeout).
func statementTimedOut(ctx context.Context, err error, write bool) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	e := pgerror.New(pgerror.CodeQueryCanceled, "canceling statement due to statement timeout")
	if write {
		e = e.WithHint("The write waited for its epoch to commit (is a node down? see SHOW NODES); it takes effect if that epoch commits, so check before retrying.")
	}
	return e
}
