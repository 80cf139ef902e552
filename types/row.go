package types

// AppendRow appends the compact encoding of row.
func AppendRow(dst []byte, row []Datum) []byte { return dst }

// DecodeRow decodes a row.
func DecodeRow(src []byte, types []T, dst []Datum) ([]Datum, error) { return dst, nil }
