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
}

// decoder turns record values into rows of its columns.
type decoder struct {
	cols []Column
	cfg  *Config
	// set marks the columns a JSON record gave.
	set []bool
}

func newDecoder(cols []Column, cfg *Config) *decoder {
	return &decoder{cols: cols, cfg: cfg, set: make([]bool, len(cols))}
}

// errHeader marks a CSV record that is the header line.
var errHeader = errors.New("header line")

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

// json decodes a JSON object: each field whose name matches a column's
// (case-insensitively) gives its value; missing fields and nulls are NULL,
// other fields are ignored.
func (d *decoder) json(s string, row []types.Datum) error {
	clear(d.set)
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
			if c := d.column(key); c >= 0 {
				if row[c], err = d.jsonDatum(c, s[start:end]); err != nil {
					return err
				}
				d.set[c] = true
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
	for c, ok := range d.set {
		if !ok {
			row[c] = types.Null
		}
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
