package meta

import (
	"fmt"
	"math"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// KindSequence objects are sequences: a Table whose Sequence holds its
// options, with no columns and no job. The values it hands out are
// replicated beside the catalog (SeqState), in blocks per node.

// Sequence holds a sequence's options, as CREATE and ALTER SEQUENCE set
// them (PostgreSQL's pg_sequence row).
type Sequence struct {
	// TypeOID is the data type: int2, int4 or int8.
	TypeOID   types.OID `json:"type_oid"`
	Start     int64     `json:"start"`
	Increment int64     `json:"increment"`
	Min       int64     `json:"min"`
	Max       int64     `json:"max"`
	Cache     int64     `json:"cache"`
	Cycle     bool      `json:"cycle,omitempty"`
	// OwnedTable and OwnedColumn (an index into its Columns) are the
	// column the sequence belongs to (OWNED BY, serial, identity): it is
	// dropped with its table. OwnedTable 0: none.
	OwnedTable  uint32 `json:"owned_table,omitempty"`
	OwnedColumn int    `json:"owned_column,omitempty"`
}

// Type returns the sequence's data type.
func (s *Sequence) Type() types.T {
	t, _ := types.FromOID(s.TypeOID)
	return t
}

// SeqOptions are the options of CREATE or ALTER SEQUENCE (and of an
// identity column), nil or zero where not given.
type SeqOptions struct {
	// As is the AS type's OID, 0 if not given.
	As        types.OID `json:"as,omitempty"`
	Increment *int64    `json:"increment,omitempty"`
	Min       *int64    `json:"min,omitempty"`
	Max       *int64    `json:"max,omitempty"`
	// NoMin and NoMax are NO MINVALUE and NO MAXVALUE: the type's bound.
	NoMin bool   `json:"no_min,omitempty"`
	NoMax bool   `json:"no_max,omitempty"`
	Start *int64 `json:"start,omitempty"`
	Cache *int64 `json:"cache,omitempty"`
	Cycle *bool  `json:"cycle,omitempty"`
	// Restart is ALTER SEQUENCE's RESTART [WITH n] (Restart set, with
	// RestartWith nil for the start value).
	Restart     bool   `json:"restart,omitempty"`
	RestartWith *int64 `json:"restart_with,omitempty"`
}

// typeBounds returns the range of a sequence data type.
func typeBounds(oid types.OID) (int64, int64, bool) {
	switch oid {
	case types.OIDInt2:
		return math.MinInt16, math.MaxInt16, true
	case types.OIDInt4:
		return math.MinInt32, math.MaxInt32, true
	case types.OIDInt8:
		return math.MinInt64, math.MaxInt64, true
	}
	return 0, 0, false
}

func errSeqParam(format string, args ...any) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, format, args...)
}

// NewSequence returns the options of a new sequence of o, checked as
// PostgreSQL's CREATE SEQUENCE checks them.
func NewSequence(o SeqOptions) (*Sequence, error) {
	s, _, err := o.apply(nil)
	return s, err
}

// apply returns old (nil for a new sequence) changed by o, and the value
// a RESTART restarts at (nil if none), checked as PostgreSQL's
// init_params: bounds default by the sign of the increment and fit the
// type, START and RESTART lie within them.
func (o SeqOptions) apply(old *Sequence) (*Sequence, *int64, error) {
	s := Sequence{TypeOID: types.OIDInt8, Increment: 1, Cache: 1}
	if old != nil {
		s = *old
	}
	if o.As != 0 {
		if _, _, ok := typeBounds(o.As); !ok {
			return nil, nil, errSeqParam("sequence type must be smallint, integer, or bigint")
		}
		if old != nil {
			// Bounds at the old type's limits follow the type.
			lo, hi, _ := typeBounds(old.TypeOID)
			o.NoMax = o.NoMax || o.Max == nil && s.Max == hi
			o.NoMin = o.NoMin || o.Min == nil && s.Min == lo
		}
		s.TypeOID = o.As
	}
	if o.Increment != nil {
		if *o.Increment == 0 {
			return nil, nil, errSeqParam("INCREMENT must not be zero")
		}
		s.Increment = *o.Increment
	}
	lo, hi, _ := typeBounds(s.TypeOID)
	switch {
	case o.Max != nil:
		s.Max = *o.Max
	case o.NoMax || old == nil:
		s.Max = hi
		if s.Increment < 0 {
			s.Max = -1
		}
	}
	switch {
	case o.Min != nil:
		s.Min = *o.Min
	case o.NoMin || old == nil:
		s.Min = 1
		if s.Increment < 0 {
			s.Min = lo
		}
	}
	typeName := s.Type().String()
	switch {
	case s.Max < lo || s.Max > hi:
		return nil, nil, errSeqParam("MAXVALUE (%d) is out of range for sequence data type %s", s.Max, typeName)
	case s.Min < lo || s.Min > hi:
		return nil, nil, errSeqParam("MINVALUE (%d) is out of range for sequence data type %s", s.Min, typeName)
	case s.Min >= s.Max:
		return nil, nil, errSeqParam("MINVALUE (%d) must be less than MAXVALUE (%d)", s.Min, s.Max)
	}
	switch {
	case o.Start != nil:
		s.Start = *o.Start
	case old == nil && s.Increment > 0:
		s.Start = s.Min
	case old == nil:
		s.Start = s.Max
	}
	switch {
	case s.Start < s.Min:
		return nil, nil, errSeqParam("START value (%d) cannot be less than MINVALUE (%d)", s.Start, s.Min)
	case s.Start > s.Max:
		return nil, nil, errSeqParam("START value (%d) cannot be greater than MAXVALUE (%d)", s.Start, s.Max)
	}
	var restart *int64
	if o.Restart {
		restart = new(s.Start)
		if o.RestartWith != nil {
			restart = new(*o.RestartWith)
		}
		switch {
		case *restart < s.Min:
			return nil, nil, errSeqParam("RESTART value (%d) cannot be less than MINVALUE (%d)", *restart, s.Min)
		case *restart > s.Max:
			return nil, nil, errSeqParam("RESTART value (%d) cannot be greater than MAXVALUE (%d)", *restart, s.Max)
		}
	}
	if o.Cache != nil {
		if *o.Cache <= 0 {
			return nil, nil, errSeqParam("CACHE (%d) must be greater than zero", *o.Cache)
		}
		s.Cache = *o.Cache
	}
	if o.Cycle != nil {
		s.Cycle = *o.Cycle
	}
	return &s, restart, nil
}

// SeqState is the replicated state of a sequence: Last is the last value
// handed to a node (or set by setval), Called whether Last itself was
// handed out (PostgreSQL's is_called); Gen counts setval, RESTART and
// ALTER, which void the blocks nodes hold.
type SeqState struct {
	Last   int64  `json:"last"`
	Called bool   `json:"called,omitempty"`
	Gen    uint64 `json:"gen,omitempty"`
}

// SeqBlock is a run of values of a sequence a node hands out: Count
// values from First, Inc apart, of generation Gen.
type SeqBlock struct {
	First int64  `json:"first"`
	Count int64  `json:"count"`
	Inc   int64  `json:"inc"`
	Gen   uint64 `json:"gen"`
}

// Value returns the i-th value of b.
func (b SeqBlock) Value(i int64) int64 { return b.First + i*b.Inc }

// initialState is a sequence's state before its first value.
func (s *Sequence) initialState() SeqState { return SeqState{Last: s.Start} }

// alloc hands out up to n values after st (fewer where the sequence
// ends, then cycles or, without CYCLE, errs 2200H as nextval does). A
// block never wraps: one that reaches the end is short.
func (s *Sequence) alloc(name string, st SeqState, n int64) (SeqState, SeqBlock, error) {
	first := st.Last
	if st.Called {
		next, overflow := addOverflows(st.Last, s.Increment)
		switch {
		case !overflow && next >= s.Min && next <= s.Max:
			first = next
		case !s.Cycle && s.Increment > 0:
			return st, SeqBlock{}, pgerror.New("2200H", "nextval: reached maximum value of sequence %q (%d)", name, s.Max)
		case !s.Cycle:
			return st, SeqBlock{}, pgerror.New("2200H", "nextval: reached minimum value of sequence %q (%d)", name, s.Min)
		case s.Increment > 0:
			first = s.Min
		default:
			first = s.Max
		}
	}
	// The values left from first: |end-first| / |inc| + 1, in uint64 so
	// that no difference overflows.
	var span, step uint64
	if s.Increment > 0 {
		span, step = uint64(s.Max)-uint64(first), uint64(s.Increment)
	} else {
		span, step = uint64(first)-uint64(s.Min), -uint64(s.Increment)
	}
	count := n
	if left := span / step; left < uint64(n) {
		count = int64(left) + 1
	}
	b := SeqBlock{First: first, Count: count, Inc: s.Increment, Gen: st.Gen}
	return SeqState{Last: b.Value(count - 1), Called: true, Gen: st.Gen}, b, nil
}

// addOverflows returns a+b and whether it overflowed int64.
func addOverflows(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) != (b > 0)
}

// setval returns the state after setval(v, called), checked against the
// bounds (22003).
func (s *Sequence) setval(name string, st SeqState, v int64, called bool) (SeqState, error) {
	if v < s.Min || v > s.Max {
		return st, pgerror.New(pgerror.CodeNumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, name, s.Min, s.Max)
	}
	return SeqState{Last: v, Called: called, Gen: st.Gen + 1}, nil
}

// SerialDefault returns the DEFAULT of a serial column whose sequence is
// schema.name: nextval('name'::regclass), qualified outside public.
func SerialDefault(schema, name string) string {
	q := quoteName(name)
	if schema != DefaultSchema {
		q = quoteName(schema) + "." + q
	}
	return fmt.Sprintf("nextval('%s'::regclass)", strings.ReplaceAll(q, "'", "''"))
}

// quoteName quotes an identifier unless it is lowercase letters, digits,
// _ and $ (not first).
func quoteName(s string) string {
	plain := s != ""
	for i, r := range s {
		plain = plain && (r >= 'a' && r <= 'z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '$'))
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
