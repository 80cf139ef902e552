package types

// Cast converts d from type from to type to with explicit cast semantics.
func Cast(d Datum, from, to T) (Datum, error) { return d, nil }

// CastAssign converts d with assignment cast semantics.
func CastAssign(d Datum, from, to T) (Datum, error) { return d, nil }
