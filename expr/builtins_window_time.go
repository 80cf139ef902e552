package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Time bucketing: PostgreSQL's date_bin and the tumble_start/tumble_end
// functions behind TUMBLE windows (RisingWave's), over timestamp and
// timestamptz alike (both count microseconds, timestamptz in UTC). TUMBLE
// and HOP windows align on the Unix epoch (plus an optional offset),
// date_bin on its origin argument.
func init() {
	for _, ts := range []struct {
		t  types.T
		mk func(int64) (types.Datum, error)
	}{{types.TTimestamp, types.MakeTimestamp}, {types.TTimestampTZ, types.MakeTimestampTZ}} {
		f := ts.t.Family
		bin := func(stride types.Datum, source, origin int64, end bool) (types.Datum, error) {
			start, err := binStart(stride.Interval(), source, origin)
			if err == nil && end {
				start, err = types.TimestampAddInterval(start, stride.Interval())
			}
			if err != nil {
				return types.Null, err
			}
			return ts.mk(start)
		}
		RegisterBuiltin("date_bin", sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return bin(a[0], a[1].Int(), a[2].Int(), false)
		}, types.Interval, f, f))
		for _, name := range []string{"tumble_start", "tumble_end"} {
			end := name == "tumble_end"
			RegisterBuiltin(name,
				sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
					return bin(a[1], a[0].Int(), types.UnixEpochTimestamp, end)
				}, f, types.Interval),
				sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
					origin, err := types.TimestampAddInterval(types.UnixEpochTimestamp, a[2].Interval())
					if err != nil {
						return types.Null, err
					}
					return bin(a[1], a[0].Int(), origin, end)
				}, f, types.Interval, types.Interval))
		}
	}
}

// strideMicros is the length of an interval without months, in
// microseconds, and false when it overflows 64 bits.
func strideMicros(iv types.IntervalValue) (int64, bool) {
	days, ok := types.MulInt64(int64(iv.Days), microsPerDay)
	if !ok {
		return 0, false
	}
	return types.AddInt64(days, iv.Micros)
}

// WindowWidth returns the length in microseconds of a time-window size or
// slide, and false unless it is a positive interval without months (which
// have no fixed length) that fits 64 bits.
func WindowWidth(iv types.IntervalValue) (int64, bool) {
	us, ok := strideMicros(iv)
	return us, ok && iv.Months == 0 && us > 0
}

// binStart returns the start of the bin of width stride, aligned on origin,
// that holds source (all timestamps), with date_bin's errors: an infinite
// source is its own bin.
func binStart(stride types.IntervalValue, source, origin int64) (int64, error) {
	if isInfinite(source) {
		return source, nil
	}
	if isInfinite(origin) {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	width, ok := strideMicros(stride)
	if !ok {
		return 0, types.ErrIntervalRange()
	}
	if width <= 0 {
		return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "stride must be greater than zero")
	}
	delta, ok := types.SubInt64(source, origin)
	if !ok {
		return 0, types.ErrIntervalRange()
	}
	rem := delta % width
	start := origin + delta - rem
	if rem < 0 {
		// Round down, not toward the origin; this can leave the range.
		if start, ok = types.SubInt64(start, width); !ok || !types.ValidTimestamp(start) {
			return 0, types.ErrTimestampRange()
		}
	}
	return start, nil
}

// hopStarts yields the starts of the hopping windows of width size, one
// every slide (aligned on the Unix epoch), that hold source, in ascending
// order: the starts s with s <= source < s + size. An infinite source is
// its only window's start.
func hopStarts(mk func(int64) (types.Datum, error)) func(*Ctx, []types.Datum) (SetIter, error) {
	return func(_ *Ctx, a []types.Datum) (SetIter, error) {
		source, slide, size := a[0].Int(), a[1].Interval(), a[2].Interval()
		last, err := binStart(slide, source, types.UnixEpochTimestamp)
		if err != nil {
			return nil, err
		}
		width, ok := WindowWidth(size)
		if !ok {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "window size must be a positive interval without months or years")
		}
		step, _ := strideMicros(slide)
		into := source - last
		if into >= width {
			// Windows narrower than their slide leave gaps.
			return noValues, nil
		}
		// The first start is the lowest multiple of step above source - width.
		cur, ok := types.SubInt64(last, (width-1-into)/step*step)
		switch {
		case isInfinite(last):
			cur = last
		case !ok:
			return nil, types.ErrTimestampRange()
		}
		done := false
		return func() (types.Datum, bool, error) {
			if done {
				return types.Null, false, nil
			}
			v := cur
			cur, done = cur+step, cur == last
			d, err := mk(v)
			return d, err == nil, err
		}, nil
	}
}

func init() {
	RegisterSetBuiltin("hop_window_starts",
		Overload{Args: []types.Family{types.Timestamp, types.Interval, types.Interval}, Ret: Returns(types.TTimestamp), Set: hopStarts(types.MakeTimestamp)},
		Overload{Args: []types.Family{types.TimestampTZ, types.Interval, types.Interval}, Ret: Returns(types.TTimestampTZ), Set: hopStarts(types.MakeTimestampTZ)})
}

// HopStartsColumn reports the input column of f when f is
// hop_window_starts over that column with a constant slide and size: the
// window starts it yields for later rows are bounded below by
// HopLowestStart of the column's watermark.
func HopStartsColumn(f *SetFunc) (col int, ok bool) {
	if f.Name != "hop_window_starts" || len(f.Args) != 3 || !isConst(f.Args[1]) || !isConst(f.Args[2]) {
		return 0, false
	}
	r, ok := f.Args[0].(*ColRef)
	if !ok {
		return 0, false
	}
	return r.Idx, true
}

// HopLowestStart returns the lowest window start that hop_window_starts f
// (see HopStartsColumn) yields for any time at or above w: the lowest
// multiple of the slide (from the Unix epoch) above w - size.
func HopLowestStart(f *SetFunc, w types.Datum) (types.Datum, error) {
	slide, size := f.Args[1].(*Const).V, f.Args[2].(*Const).V
	if slide.IsNull() || size.IsNull() {
		return types.Null, nil
	}
	width, ok := WindowWidth(size.Interval())
	if !ok {
		return types.Null, nil
	}
	mk := types.MakeTimestamp
	if f.T.Family == types.TimestampTZ {
		mk = types.MakeTimestampTZ
	}
	if isInfinite(w.Int()) {
		return mk(w.Int())
	}
	from, ok := types.SubInt64(w.Int(), width)
	if !ok {
		return types.Null, types.ErrTimestampRange()
	}
	start, err := binStart(slide.Interval(), from, types.UnixEpochTimestamp)
	if err == nil {
		start, err = types.TimestampAddInterval(start, slide.Interval())
	}
	if err != nil {
		return types.Null, err
	}
	return mk(start)
}

// HopPaneWidth returns the pane width of hop_window_starts f (see
// HopStartsColumn), in microseconds: the greatest common divisor of its
// slide and size. Every window boundary is a multiple of it, so all the
// times of a pane (HopPaneStart) lie in the same windows, and rows can be
// counted per pane before they are expanded into windows. ok is false when
// the slide or size is NULL or not a fixed positive length.
func HopPaneWidth(f *SetFunc) (width int64, ok bool) {
	slide, size := f.Args[1].(*Const).V, f.Args[2].(*Const).V
	if slide.IsNull() || size.IsNull() {
		return 0, false
	}
	a, ok := WindowWidth(slide.Interval())
	if !ok {
		return 0, false
	}
	b, ok := WindowWidth(size.Interval())
	if !ok {
		return 0, false
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a, true
}

// HopPaneStart returns the start of the pane of width (HopPaneWidth),
// aligned on the Unix epoch as the windows are, that holds timestamp t: t
// itself when t is NULL or infinite, or when the pane's start would leave
// the timestamp range (hop_window_starts then sees the time as it is).
func HopPaneStart(t types.Datum, width int64) types.Datum {
	v := t.Int()
	if t.IsNull() || isInfinite(v) {
		return t
	}
	into := (v - types.UnixEpochTimestamp) % width
	if into < 0 {
		into += width
	}
	start := v - into
	if !types.ValidTimestamp(start) {
		return t
	}
	if t.Kind() == types.KindTimestampTZ {
		return types.NewTimestampTZ(start)
	}
	return types.NewTimestamp(start)
}
