package kafka

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// Column is a column a record's value is decoded into.
type Column struct {
	Name string
	Type types.T
	// Key marks a primary key column (of a table fed by FORMAT UPSERT or
	// DEBEZIUM), which a record's key may also give.
	Key bool
}

// decoder turns record values into rows of its columns.
type decoder struct {
	cols []Column
	cfg  *Config
	// set marks the columns a JSON record gave.
	set []bool
	// keyRow and keySet are scratch space for decoding a record's key.
	keyRow []types.Datum
	keySet []bool
}

func newDecoder(cols []Column, cfg *Config) *decoder {
	return &decoder{cols: cols, cfg: cfg, set: make([]bool, len(cols))}
}

// errHeader marks a CSV record that is the header line; errTombstone a
// Debezium tombstone (a null value following a delete). Both are skipped
// without a warning.
var (
	errHeader    = errors.New("header line")
	errTombstone = errors.New("tombstone")
)

// decode writes the row value encodes into row[:len(cols)]. On error the
// record is to be skipped; row holds garbage.
func (d *decoder) decode(value []byte, row []types.Datum) error {
	// One string per record: the text values are slices of it.
	s := string(value)
	if d.cfg.Encoding == CSV {
		return d.csv(s, row)
	}
	return d.json(s, row)
}

// decodeChange writes the change that a record of a keyed format (UPSERT
// or DEBEZIUM) encodes into row[:len(cols)] and reports whether it is a
// delete by key (then only the key columns count).
func (d *decoder) decodeChange(key, value []byte, row []types.Datum) (del bool, err error) {
	if d.cfg.Format == Debezium {
		if value == nil {
			return false, errTombstone
		}
		return d.debezium(string(value), row)
	}
	if value == nil {
		return true, d.key(string(key), row)
	}
	if err := d.json(string(value), row); err != nil {
		return false, err
	}
	// Key columns the value leaves out come from the record's key.
	missing := false
	for c, col := range d.cols {
		missing = missing || col.Key && !d.set[c]
	}
	if !missing || key == nil {
		return false, d.checkKey(row)
	}
	if d.keyRow == nil {
		d.keyRow = make([]types.Datum, len(d.cols))
	}
	set := append(d.keySet[:0], d.set...)
	d.keySet = set
	if err := d.key(string(key), d.keyRow); err != nil {
		return false, err
	}
	for c, col := range d.cols {
		if col.Key && !set[c] {
			row[c] = d.keyRow[c]
		}
	}
	return false, d.checkKey(row)
}

// key decodes a record's key into the key columns of row: a JSON object
// (fields by column name) or, for a one-column key, its value alone.
func (d *decoder) key(key string, row []types.Datum) error {
	if i := skipSpace(key, 0); i < len(key) && key[i] == '{' {
		if err := d.json(key, row); err != nil {
			return fmt.Errorf("record key: %w", err)
		}
		return d.checkKey(row)
	}
	c := -1
	for i, col := range d.cols {
		if col.Key {
			if c >= 0 {
				return errors.New("the record key is not a JSON object naming the primary key columns")
			}
			c = i
		}
	}
	clear(row)
	text := strings.TrimSpace(key)
	if text == "" {
		return errors.New("the record has neither a value nor a key")
	}
	var err error
	if end, jerr := jsonValue(text, 0); jerr == nil && end == len(text) && text != "null" {
		row[c], err = d.jsonDatum(c, text)
	} else {
		row[c], err = parse(d.cols[c], key)
	}
	if err != nil {
		return fmt.Errorf("record key: %w", err)
	}
	return nil
}

// checkKey returns an error if a key column of row is NULL.
func (d *decoder) checkKey(row []types.Datum) error {
	for c, col := range d.cols {
		if col.Key && row[c].IsNull() {
			return fmt.Errorf("primary key column %s is missing or null", col.Name)
		}
	}
	return nil
}

// debezium decodes a Debezium change event, with or without its schema
// envelope: op c, r or u upserts the after image, d deletes the before
// image's key.
func (d *decoder) debezium(s string, row []types.Datum) (del bool, err error) {
	var before, after, op, payload string
	err = eachField(s, func(name, v string) error {
		switch name {
		case "payload":
			payload = v
		case "before":
			before = v
		case "after":
			after = v
		case "op":
			op = v
		}
		return nil
	})
	switch {
	case err != nil:
		return false, err
	case op == "" && strings.HasPrefix(payload, "{"):
		return d.debezium(payload, row)
	}
	switch op {
	case `"c"`, `"r"`, `"u"`:
		if !strings.HasPrefix(after, "{") {
			return false, fmt.Errorf("op %s without an after image", op)
		}
		if err := d.json(after, row); err != nil {
			return false, fmt.Errorf("after: %w", err)
		}
		return false, d.checkKey(row)
	case `"d"`:
		if !strings.HasPrefix(before, "{") {
			return false, errors.New(`op "d" without a before image`)
		}
		if err := d.json(before, row); err != nil {
			return false, fmt.Errorf("before: %w", err)
		}
		return true, d.checkKey(row)
	case "":
		return false, errors.New("not a Debezium change event: no op field")
	}
	return false, fmt.Errorf("unsupported Debezium op %s", op)
}

// json decodes a JSON object: each field whose name matches a column's
// (case-insensitively) gives its value; missing fields and nulls are NULL,
// other fields are ignored.
func (d *decoder) json(s string, row []types.Datum) error {
	clear(d.set)
	err := eachField(s, func(key, v string) error {
		c := d.column(key)
		if c < 0 {
			return nil
		}
		var err error
		row[c], err = d.jsonDatum(c, v)
		d.set[c] = true
		return err
	})
	if err != nil {
		return err
	}
	for c, ok := range d.set {
		if !ok {
			row[c] = types.Null
		}
	}
	return nil
}

// eachField calls fn with the name and the raw value text of each field
// of the JSON object s, in order, and stops at fn's first error.
func eachField(s string, fn func(name, value string) error) error {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return errors.New("not a JSON object")
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			key, esc, j, err := jsonString(s, i)
			if err != nil {
				return err
			}
			if esc {
				if key, err = unquote(s[i:j]); err != nil {
					return err
				}
			}
			if j = skipSpace(s, j); j >= len(s) || s[j] != ':' {
				return fmt.Errorf("expected ':' at byte %d", j)
			}
			start := skipSpace(s, j+1)
			end, err := jsonValue(s, start)
			if err != nil {
				return err
			}
			if err := fn(key, s[start:end]); err != nil {
				return err
			}
			i = skipSpace(s, end)
			if i < len(s) && s[i] == ',' {
				i = skipSpace(s, i+1)
				continue
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			return fmt.Errorf("expected ',' or '}' at byte %d", i)
		}
	}
	if skipSpace(s, i) != len(s) {
		return fmt.Errorf("trailing data at byte %d", i)
	}
	return nil
}

// column returns the index of the column named name, or -1.
func (d *decoder) column(name string) int {
	for c := range d.cols {
		if strings.EqualFold(d.cols[c].Name, name) {
			return c
		}
	}
	return -1
}

// jsonDatum converts the JSON value v to column c's type: a string's
// text, or a number's, true's or false's, is parsed as the type's input;
// an object or array is its JSON text.
func (d *decoder) jsonDatum(c int, v string) (types.Datum, error) {
	t := d.cols[c].Type
	switch v[0] {
	case 'n':
		return types.Null, nil
	case '"':
		if t.Family == types.Jsonb {
			break
		}
		text := v[1 : len(v)-1]
		if strings.IndexByte(text, '\\') >= 0 {
			var err error
			if text, err = unquote(v); err != nil {
				return types.Null, err
			}
		}
		return parse(d.cols[c], text)
	}
	if t.Family == types.Int8 {
		// The common case, without the input function's generality.
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return types.NewInt(n), nil
		}
	}
	return parse(d.cols[c], v)
}

// parse parses text with the input function of col's type.
func parse(col Column, text string) (types.Datum, error) {
	v, err := types.ParseText(col.Type, text)
	if err != nil {
		return types.Null, fmt.Errorf("column %s: %w", col.Name, err)
	}
	return v, nil
}

// csv decodes one line of fields, the columns in order. An unquoted
// empty field is NULL; a quoted field may hold delimiters and doubled
// quotes.
func (d *decoder) csv(s string, row []types.Datum) error {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	header := d.cfg.Header
	var b strings.Builder
	c, i := 0, 0
	for {
		if c == len(d.cols) {
			return fmt.Errorf("more than %d fields", len(d.cols))
		}
		var field string
		quoted := i < len(s) && s[i] == '"'
		if quoted {
			j := i + 1
			b.Reset()
			for {
				k := strings.IndexByte(s[j:], '"')
				if k < 0 {
					return errors.New("unterminated quoted field")
				}
				b.WriteString(s[j : j+k])
				j += k + 1
				if j < len(s) && s[j] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				break
			}
			field, i = b.String(), j
			if i < len(s) && s[i] != d.cfg.Delimiter {
				return fmt.Errorf("column %s: data after a quoted field", d.cols[c].Name)
			}
		} else {
			k := strings.IndexByte(s[i:], d.cfg.Delimiter)
			if k < 0 {
				k = len(s) - i
			}
			field, i = s[i:i+k], i+k
		}
		header = header && strings.EqualFold(field, d.cols[c].Name)
		switch {
		case !quoted && field == "":
			row[c] = types.Null
		default:
			v, err := types.ParseText(d.cols[c].Type, field)
			if err != nil && !header {
				return fmt.Errorf("column %s: %w", d.cols[c].Name, err)
			}
			row[c] = v
		}
		c++
		if i == len(s) {
			break
		}
		i++ // the delimiter
	}
	if c != len(d.cols) {
		return fmt.Errorf("%d fields, want %d", c, len(d.cols))
	}
	if header {
		return errHeader
	}
	return nil
}

// skipSpace returns the index of the first non-whitespace byte of s from i.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonString scans the JSON string starting at s[i]: its text between
// the quotes, whether it has escapes (then the text is raw), and the
// index after it.
func jsonString(s string, i int) (text string, escaped bool, end int, err error) {
	if i >= len(s) || s[i] != '"' {
		return "", false, i, fmt.Errorf("expected a string at byte %d", i)
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return s[i+1 : j], escaped, j + 1, nil
		}
	}
	return "", false, i, errors.New("unterminated string")
}

// jsonValue returns the index after the JSON value starting at s[i]. It
// checks strings' and containers' bounds; the value's type's input
// function checks the rest.
func jsonValue(s string, i int) (int, error) {
	if i >= len(s) {
		return i, errors.New("missing value")
	}
	switch s[i] {
	case '"':
		_, _, end, err := jsonString(s, i)
		return end, err
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				_, _, end, err := jsonString(s, j)
				if err != nil {
					return i, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return i, errors.New("unterminated object or array")
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	switch v := s[i:j]; {
	case v == "true", v == "false", v == "null":
	case v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
	default:
		return i, fmt.Errorf("invalid JSON value %q", v)
	}
	return j, nil
}

// unquote decodes a JSON string literal with escapes.
func unquote(lit string) (string, error) {
	var s string
	err := json.Unmarshal([]byte(lit), &s)
	return s, err
}
