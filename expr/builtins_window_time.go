package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Time bucketing: PostgreSQL's date_bin and the tumble_start/tumble_end
// functions behind TUMBLE windows (RisingWave's), over timestamp and
// timestamptz alike: both count microseconds, timestamptz from the UTC
// epoch.
func init() {
	for _, ts := range []struct {
		t  types.T
		mk func(int64) types.Datum
	}{{types.TTimestamp, types.NewTimestamp}, {types.TTimestampTZ, types.NewTimestampTZ}} {
		f := ts.t.Family
		bin := func(stride types.Datum, source, origin int64, end bool) (types.Datum, error) {
			start, err := binStart(stride.Interval(), source, origin)
			if err == nil && end {
				start += strideMicros(stride.Interval())
			}
			return ts.mk(start), err
		}
		RegisterBuiltin("date_bin", sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return bin(a[0], a[1].Int(), a[2].Int(), false)
		}, types.Interval, f, f))
		for _, name := range []string{"tumble_start", "tumble_end"} {
			end := name == "tumble_end"
			RegisterBuiltin(name,
				sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
					return bin(a[1], a[0].Int(), 0, end)
				}, f, types.Interval),
				sig(ts.t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
					return bin(a[1], a[0].Int(), strideMicros(a[2].Interval()), end)
				}, f, types.Interval, types.Interval))
		}
	}
}

// strideMicros is the length of an interval without months, in
// microseconds.
func strideMicros(iv types.IntervalValue) int64 {
	return int64(iv.Days)*microsPerDay + iv.Micros
}

// WindowWidth returns the length in microseconds of a time-window size or
// slide, and false unless it is a positive interval without months (which
// have no fixed length).
func WindowWidth(iv types.IntervalValue) (int64, bool) {
	us := strideMicros(iv)
	return us, iv.Months == 0 && us > 0
}

// binStart returns the start of the bin of width stride, aligned on origin,
// that holds source (all in microseconds), as date_bin does.
func binStart(stride types.IntervalValue, source, origin int64) (int64, error) {
	if stride.Months != 0 {
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	width := strideMicros(stride)
	if width <= 0 {
		return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "stride must be greater than zero")
	}
	delta := source - origin
	rem := delta % width
	if rem < 0 {
		rem += width
	}
	return source - rem, nil
}

// hopStarts yields the starts of the hopping windows of width size, one
// every slide (aligned on the epoch), that hold source, in ascending order:
// the starts s with s <= source < s + size.
func hopStarts(mk func(int64) types.Datum) func(*Ctx, []types.Datum) (SetIter, error) {
	return func(_ *Ctx, a []types.Datum) (SetIter, error) {
		slide, size := a[1].Interval(), a[2].Interval()
		last, err := binStart(slide, a[0].Int(), 0)
		if err != nil {
			return nil, err
		}
		width, ok := WindowWidth(size)
		if !ok {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "window size must be a positive interval without months or years")
		}
		step, into := strideMicros(slide), a[0].Int()-last
		if into >= width {
			// Windows narrower than their slide leave gaps.
			return noValues, nil
		}
		// The first start is the lowest multiple of step above source - width.
		cur := last - (width-1-into)/step*step
		return func() (types.Datum, bool, error) {
			if cur > last {
				return types.Null, false, nil
			}
			cur += step
			return mk(cur - step), true, nil
		}, nil
	}
}

func init() {
	RegisterSetBuiltin("hop_window_starts",
		Overload{Args: []types.Family{types.Timestamp, types.Interval, types.Interval}, Ret: Returns(types.TTimestamp), Set: hopStarts(types.NewTimestamp)},
		Overload{Args: []types.Family{types.TimestampTZ, types.Interval, types.Interval}, Ret: Returns(types.TTimestampTZ), Set: hopStarts(types.NewTimestampTZ)})
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
// multiple of the slide above w - size.
func HopLowestStart(f *SetFunc, w types.Datum) (types.Datum, error) {
	slide, size := f.Args[1].(*Const).V, f.Args[2].(*Const).V
	if slide.IsNull() || size.IsNull() {
		return types.Null, nil
	}
	width, ok := WindowWidth(size.Interval())
	if !ok {
		return types.Null, nil
	}
	start, err := binStart(slide.Interval(), w.Int()-width, 0)
	if err != nil {
		return types.Null, err
	}
	start += strideMicros(slide.Interval())
	if f.T.Family == types.TimestampTZ {
		return types.NewTimestampTZ(start), nil
	}
	return types.NewTimestamp(start), nil
}
