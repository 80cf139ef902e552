package sql

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// copyDecoder reads the data of COPY ... FROM STDIN in PostgreSQL's text,
// CSV or binary format into rows of its columns' types.
type copyDecoder struct {
	opts  *parser.Copy
	table string
	names []string
	types []types.T
	r     *bufio.Reader
	// line is the number of the line (text, CSV) or tuple (binary) being
	// read, for errors.
	line int64
	// field holds the current row's fields: field i is buf[ends[i-1]:ends[i]],
	// NULL if null[i].
	buf  []byte
	ends []int
	null []bool
	rows types.RowArena
	// zone is the session's TimeZone, which text values are read in.
	zone *time.Location
}

func newCopyDecoder(opts *parser.Copy, table string, names []string, ts []types.T, r io.Reader, zone *time.Location) *copyDecoder {
	return &copyDecoder{opts: opts, table: table, names: names, types: ts, r: bufio.NewReaderSize(r, 64<<10), zone: zone}
}

// copyEnd is what a decoder's next returns after the last row.
var copyEnd = errors.New("end of copy data")

// next returns the next row, or copyEnd after the last.
func (d *copyDecoder) next() ([]types.Datum, error) {
	var err error
	switch d.opts.Format {
	case "binary":
		err = d.binaryRow()
	case "csv":
		err = d.csvRow()
	default:
		err = d.textRow()
	}
	if err != nil {
		return nil, err
	}
	return d.row()
}

// row converts the current fields to a row of the columns' types.
func (d *copyDecoder) row() ([]types.Datum, error) {
	if len(d.ends) > len(d.types) {
		return nil, d.formatErr("extra data after last expected column")
	}
	if len(d.ends) < len(d.types) {
		return nil, d.formatErr("missing data for column %q", d.names[len(d.ends)])
	}
	row := d.rows.Row(len(d.types))
	start := 0
	for i, end := range d.ends {
		field := d.buf[start:end]
		start = end
		if d.null[i] {
			continue
		}
		var v types.Datum
		var err error
		if d.opts.Format == "binary" {
			v, err = types.DecodeBinary(d.types[i], field)
		} else {
			v, err = types.ParseTextZone(d.types[i], string(field), d.zone)
		}
		if err != nil {
			return nil, d.valueErr(err, i, field)
		}
		row[i] = v
	}
	return row, nil
}

// formatErr is 22P04 about the current line.
func (d *copyDecoder) formatErr(format string, args ...any) error {
	return pgerror.New(pgerror.CodeBadCopyFileFormat, format, args...).WithDetail("COPY %s, line %d.", d.table, d.line)
}

// valueErr adds where column i's value is to the error decoding it.
func (d *copyDecoder) valueErr(err error, i int, field []byte) error {
	pe := *pgerror.From(err)
	where := fmt.Sprintf("COPY %s, line %d, column %s", d.table, d.line, d.names[i])
	if d.opts.Format != "binary" {
		where += ": " + quoteValue(field)
	}
	if pe.Detail != "" {
		where = pe.Detail + " " + where
	}
	pe.Detail = where + "."
	return &pe
}

// quoteValue quotes a value for an error, cut to 100 bytes.
func quoteValue(v []byte) string {
	if len(v) > 100 {
		return `"` + string(v[:100]) + `..."`
	}
	return `"` + string(v) + `"`
}

// startRow empties the current fields.
func (d *copyDecoder) startRow() {
	d.buf, d.ends, d.null = d.buf[:0], d.ends[:0], d.null[:0]
}

// endField closes the field begun at start of the current row.
func (d *copyDecoder) endField(isNull bool) {
	d.ends = append(d.ends, len(d.buf))
	d.null = append(d.null, isNull)
}

// readLine returns the next line with its terminator ("\n", "\r\n" or
// none at the end), valid until the next read, or io.EOF after the last.
func (d *copyDecoder) readLine() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := bytes.Clone(line)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = d.r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err == nil {
		d.line++
	}
	return line, err
}

// trimEOL removes a line's terminator.
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// isEndMarker reports whether a line is the end-of-data marker \. alone.
func isEndMarker(line []byte) bool { return string(line) == `\.` }

// dataLine starts a row with the next line, skipping the header line: it
// returns the line as read and without its terminator, or copyEnd at the
// end of the data or its end marker.
func (d *copyDecoder) dataLine() (raw, line []byte, err error) {
	for {
		if raw, err = d.readLine(); err == io.EOF {
			return nil, nil, copyEnd
		} else if err != nil {
			return nil, nil, err
		}
		line = trimEOL(raw)
		if isEndMarker(line) {
			return nil, nil, copyEnd
		}
		if d.line > 1 || !d.opts.Header {
			d.startRow()
			return raw, line, nil
		}
	}
}

// textRow reads one line of the text format: fields split at the
// delimiter, backslash escapes, the null marker matched before them.
func (d *copyDecoder) textRow() error {
	_, line, err := d.dataLine()
	if err != nil {
		return err
	}
	delim := d.opts.Delimiter[0]
	start := 0
	for i := 0; i <= len(line); i++ {
		if i+1 < len(line) && line[i] == '\\' {
			i++
			continue
		}
		if i < len(line) && line[i] != delim {
			continue
		}
		raw := line[start:min(i, len(line))]
		start = i + 1
		if string(raw) == d.opts.Null {
			d.endField(true)
			continue
		}
		d.buf = unescapeText(d.buf, raw)
		d.endField(false)
	}
	return nil
}

// textEscapes maps the letter of each one-letter escape of the text format
// to the byte it stands for.
var textEscapes = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}

// unescapeText appends raw with the text format's backslash escapes
// resolved: \b \f \n \r \t \v, octal \ooo, hex \xhh, and \c for any other c.
func unescapeText(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 == len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		c = raw[i]
		if e := textEscapes[c]; e != 0 {
			dst = append(dst, e)
			continue
		}
		switch c {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := c - '0'
			for k := 0; k < 2 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; k++ {
				i++
				v = v<<3 | (raw[i] - '0')
			}
			dst = append(dst, v)
		case 'x':
			v, n := byte(0), 0
			for ; n < 2 && i+1 < len(raw) && hexDigit(raw[i+1]) >= 0; n++ {
				i++
				v = v<<4 | byte(hexDigit(raw[i]))
			}
			if n == 0 {
				dst = append(dst, 'x')
			} else {
				dst = append(dst, v)
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// csvRow reads one record of the CSV format: fields split at the
// delimiter, quoted fields (which may hold delimiters and newlines, and
// quotes escaped), an unquoted field equal to the null marker NULL.
func (d *copyDecoder) csvRow() error {
	raw, line, err := d.dataLine()
	if err != nil {
		return err
	}
	delim, quote, escape := d.opts.Delimiter[0], d.opts.Quote[0], d.opts.Escape[0]
	start, quoted, inQuote := 0, false, false
	for i := 0; ; {
		if i == len(line) {
			if !inQuote {
				break
			}
			// A quoted field goes on over the line break, which it holds.
			d.buf = append(d.buf, raw[len(line):]...)
			if raw, err = d.readLine(); err == io.EOF {
				return d.formatErr("unterminated CSV quoted field")
			} else if err != nil {
				return err
			}
			line, i = trimEOL(raw), 0
			continue
		}
		c := line[i]
		switch {
		case inQuote && c == escape && i+1 < len(line) && (line[i+1] == quote || line[i+1] == escape):
			d.buf = append(d.buf, line[i+1])
			i += 2
			continue
		case inQuote && c == quote:
			inQuote = false
		case inQuote:
			d.buf = append(d.buf, c)
		case c == quote:
			inQuote, quoted = true, true
		case c == delim:
			d.endField(!quoted && string(d.buf[start:]) == d.opts.Null)
			start, quoted = len(d.buf), false
		default:
			d.buf = append(d.buf, c)
		}
		i++
	}
	d.endField(!quoted && string(d.buf[start:]) == d.opts.Null)
	return nil
}

// maxCopyField is the largest field the binary format may hold,
// PostgreSQL's limit of a value.
const maxCopyField = 1 << 30

// copySignature starts the binary format.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// binaryRow reads one tuple of the binary format (after the header, at
// the first call): a field count, then each field's length (-1: NULL) and
// bytes; a count of -1 or the end of the data ends it.
func (d *copyDecoder) binaryRow() error {
	if d.line == 0 {
		if err := d.binaryHeader(); err != nil {
			return err
		}
	}
	var head [4]byte
	if _, err := io.ReadFull(d.r, head[:2]); err == io.EOF {
		return copyEnd
	} else if err != nil {
		return d.binaryErr(err)
	}
	d.line++
	count := int16(binary.BigEndian.Uint16(head[:2]))
	if count == -1 {
		return copyEnd
	}
	if int(count) != len(d.types) {
		return d.formatErr("row field count is %d, expected %d", count, len(d.types))
	}
	d.startRow()
	for range count {
		if _, err := io.ReadFull(d.r, head[:]); err != nil {
			return d.binaryErr(err)
		}
		n := int32(binary.BigEndian.Uint32(head[:]))
		if n == -1 {
			d.endField(true)
			continue
		}
		if n < 0 || n > maxCopyField {
			return d.formatErr("invalid field size")
		}
		start := len(d.buf)
		d.buf = slices.Grow(d.buf, int(n))[:start+int(n)]
		if _, err := io.ReadFull(d.r, d.buf[start:]); err != nil {
			return d.binaryErr(err)
		}
		d.endField(false)
	}
	return nil
}

// binaryHeader checks the binary format's signature and flags and skips
// its header extension.
func (d *copyDecoder) binaryHeader() error {
	head := make([]byte, len(copySignature)+8)
	if _, err := io.ReadFull(d.r, head); err != nil || string(head[:len(copySignature)]) != copySignature {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		return d.formatErr("COPY file signature not recognized")
	}
	flags := binary.BigEndian.Uint32(head[len(copySignature):])
	if flags&(1<<16) != 0 {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "COPY data WITH OIDS is not supported")
	}
	if flags>>16 != 0 {
		return d.formatErr("unrecognized critical flags in COPY file header")
	}
	ext := binary.BigEndian.Uint32(head[len(copySignature)+4:])
	if _, err := d.r.Discard(int(ext)); err != nil {
		return d.binaryErr(err)
	}
	return nil
}

// binaryErr reports data that ends inside a tuple or header.
func (d *copyDecoder) binaryErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.formatErr("unexpected EOF in COPY data")
	}
	return err
}
