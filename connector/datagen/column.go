package datagen

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// columnOptions are one column's fields.<column>.<parameter> options.
type columnOptions struct {
	col    Column
	index  int
	params map[string]string
}

// key returns the option name of parameter p.
func (o *columnOptions) key(p string) string { return "fields." + o.col.Name + "." + p }

// generator builds the column's generator from its options.
func (o *columnOptions) generator(now time.Time) (generator, error) {
	kind := strings.ToLower(o.params["kind"])
	if kind != "" && kind != "random" && kind != "sequence" {
		return nil, invalidValue(o.key("kind"), o.params["kind"], "random or sequence")
	}
	sequence := kind == "sequence"
	switch f := o.col.Type.Family; {
	case o.col.Type.IsNumeric() && sequence:
		return o.sequence()
	case sequence:
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported,
			"datagen cannot generate a sequence for column %s of type %s", o.col.Name, o.col.Type)
	case o.col.Type.IsNumeric():
		return o.randomNumber()
	case f == types.Bool:
		if err := o.allow("seed"); err != nil {
			return nil, err
		}
		key, err := o.seed()
		return &boolRandom{random{key}}, err
	case f == types.Text || f == types.Varchar:
		return o.randomString()
	case f == types.Timestamp || f == types.TimestampTZ || f == types.Date:
		return o.randomTime(now)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported,
		"datagen cannot generate column %s of type %s", o.col.Name, o.col.Type)
}

// allow checks that the column has no parameters but kind and those given.
func (o *columnOptions) allow(params ...string) error {
	for p := range o.params {
		if p != "kind" && !slices.Contains(params, p) {
			return pgerror.New(pgerror.CodeInvalidParameterValue,
				"datagen option %s does not apply to column %s of type %s", o.key(p), o.col.Name, o.col.Type)
		}
	}
	return nil
}

// seed returns the column's seed: fields.<column>.seed, by default the
// column's position.
func (o *columnOptions) seed() (uint64, error) {
	val, ok := o.params["seed"]
	if !ok {
		return uint64(o.index), nil
	}
	v, err := strconv.ParseUint(val, 10, 64)
	if err != nil {
		return 0, invalidValue(o.key("seed"), val, "an unsigned 64-bit integer")
	}
	return v, nil
}

// bound parses parameter p (default def) as a finite value of the column's
// type.
func (o *columnOptions) bound(p, def string) (types.Datum, error) {
	val, ok := o.params[p]
	if !ok {
		val = def
	}
	d, err := types.ParseText(o.col.Type, val)
	if err == nil {
		switch d.Kind() {
		case types.KindFloat:
			if math.IsNaN(d.Float()) || math.IsInf(d.Float(), 0) {
				err = pgerror.New(pgerror.CodeInvalidParameterValue, "not finite")
			}
		case types.KindDecimal:
			if d.Decimal().Form != apd.Finite {
				err = pgerror.New(pgerror.CodeInvalidParameterValue, "not finite")
			}
		}
	}
	if err != nil {
		return types.Null, invalidValue(o.key(p), val, "a finite "+o.col.Type.String()+": "+errorMessage(err))
	}
	return d, nil
}

// errorMessage is err's message without pgerror's SQLSTATE suffix.
func errorMessage(err error) string {
	if pe, ok := err.(*pgerror.Error); ok {
		return pe.Message
	}
	return err.Error()
}

// bounds parses the parameters lo and hi (defaults 0 and 32767) and
// checks lo <= hi.
func (o *columnOptions) bounds(lo, hi string) (types.Datum, types.Datum, error) {
	a, err := o.bound(lo, "0")
	if err != nil {
		return a, a, err
	}
	b, err := o.bound(hi, defaultMax)
	if err == nil && types.Compare(a, b) > 0 {
		err = pgerror.New(pgerror.CodeInvalidParameterValue,
			"datagen option %s must not exceed %s", o.key(lo), o.key(hi))
	}
	return a, b, err
}

// sequence builds a sequence start, start+1, ..., end of a numeric column.
func (o *columnOptions) sequence() (generator, error) {
	if err := o.allow("start", "end"); err != nil {
		return nil, err
	}
	start, end, err := o.bounds("start", "end")
	if err != nil {
		return nil, err
	}
	switch o.col.Type.Family {
	case types.Float4, types.Float8:
		return &floatSequence{start: start.Float(), end: end.Float(), single: o.col.Type.Family == types.Float4}, nil
	case types.Numeric:
		diff := new(apd.Decimal)
		if _, err := apd.BaseContext.Sub(diff, end.Decimal(), start.Decimal()); err != nil {
			return nil, err
		}
		if _, err := apd.BaseContext.Floor(diff, diff); err != nil {
			return nil, err
		}
		last, err := diff.Int64()
		if err != nil {
			last = math.MaxInt64
		}
		return &numericSequence{sequence{last}, start.Decimal()}, nil
	}
	// Integers: end-start fits in uint64.
	last := uint64(end.Int() - start.Int())
	return &intSequence{sequence{int64(min(last, math.MaxInt64))}, start.Int()}, nil
}

// randomNumber builds uniform draws from [min, max] for a numeric column.
func (o *columnOptions) randomNumber() (generator, error) {
	if err := o.allow("min", "max", "seed"); err != nil {
		return nil, err
	}
	lo, hi, err := o.bounds("min", "max")
	if err != nil {
		return nil, err
	}
	key, err := o.seed()
	if err != nil {
		return nil, err
	}
	switch o.col.Type.Family {
	case types.Float4, types.Float8:
		return &floatRandom{random{key}, lo.Float(), hi.Float(), o.col.Type.Family == types.Float4}, nil
	case types.Numeric:
		return o.randomDecimal(key, lo.Decimal(), hi.Decimal())
	}
	return &intRandom{random{key}, lo.Int(), hi.Int()}, nil
}

// randomDecimal builds draws of decimals in [lo, hi] in steps of the
// column's scale, or of the finer scale of lo and hi for unconstrained
// numeric.
func (o *columnOptions) randomDecimal(key uint64, lo, hi *apd.Decimal) (generator, error) {
	scale := max(-lo.Exponent, -hi.Exponent, 0)
	if o.col.Type.Mod >= 0 {
		scale = o.col.Type.Mod & 0xffff
	}
	scaled := func(d *apd.Decimal) (int64, error) {
		s := new(apd.Decimal).Set(d)
		s.Exponent += scale
		return s.Int64()
	}
	a, err := scaled(lo)
	b, err2 := scaled(hi)
	if err != nil || err2 != nil || b-a < 0 {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue,
			"datagen range of column %s is too wide for its scale", o.col.Name)
	}
	return &numericRandom{random{key}, a, uint64(b - a), scale}, nil
}

// randomString builds random alphanumeric strings of fixed length.
func (o *columnOptions) randomString() (generator, error) {
	if err := o.allow("length", "seed"); err != nil {
		return nil, err
	}
	length := int64(defaultLength)
	if val, ok := o.params["length"]; ok {
		limit := int64(1 << 20)
		if o.col.Type.Mod >= 0 {
			limit = int64(o.col.Type.Mod)
		}
		var err error
		if length, err = parseInt(o.key("length"), val, 0, limit); err != nil {
			return nil, err
		}
	}
	key, err := o.seed()
	return &stringRandom{random{key}, int(length)}, err
}

// randomTime builds random times up to max_past before a base time.
func (o *columnOptions) randomTime(now time.Time) (generator, error) {
	if err := o.allow("max_past", "max_past_mode", "basetime", "seed"); err != nil {
		return nil, err
	}
	g := &timeRandom{family: o.col.Type.Family, maxPast: defaultMaxPast.Milliseconds()}
	if val, ok := o.params["max_past"]; ok {
		d, err := parseDuration(val)
		if err != nil {
			return nil, invalidValue(o.key("max_past"), val, "a duration such as 1day or 2h 37min: "+err.Error())
		}
		g.maxPast = d.Milliseconds()
	}
	switch mode := o.params["max_past_mode"]; strings.ToLower(mode) {
	case "", "absolute":
	case "relative":
		g.relative = true
	default:
		return nil, invalidValue(o.key("max_past_mode"), mode, "absolute or relative")
	}
	base := now.UTC()
	if val, ok := o.params["basetime"]; ok {
		t, err := time.Parse(time.RFC3339Nano, val)
		if err != nil {
			return nil, invalidValue(o.key("basetime"), val, "an RFC 3339 time such as 2024-01-01T00:00:00+00:00")
		}
		// A basetime wins over relative mode, as in RisingWave.
		base, g.relative = t, false
	}
	// timestamp and date take the base's wall clock, timestamptz its instant.
	g.base = base.UnixMicro()
	if g.family != types.TimestampTZ {
		_, offset := base.Zone()
		g.base += int64(offset) * 1_000_000
	}
	var err error
	g.key, err = o.seed()
	return g, err
}
