package parser

import (
	"strings"
)

// cursor gives the grammar parts shared access to one statement's tokens,
// which always end with a tkEOF token.
type cursor struct {
	src  string
	toks []token
}

// at returns token i, or the final tkEOF token past the end.
func (c *cursor) at(i int) token {
	if i >= len(c.toks) {
		return c.toks[len(c.toks)-1]
	}
	return c.toks[i]
}

// syntaxErr returns the 42601 error for token i.
func (c *cursor) syntaxErr(i int) error { return syntaxError(c.src, c.at(i)) }

// typeName parses a PostgreSQL type name at token i and returns its text,
// lowercased and whitespace-normalized ("double precision", "varchar(10)",
// "timestamp(3) with time zone", "int4[]"; a quoted name keeps its quotes,
// as in `"char"`; a pg_catalog qualification is dropped), and the index of
// the token after it.
func (c *cursor) typeName(i int) (string, int, error) {
	t := c.at(i)
	var b strings.Builder
	switch {
	case t.kind == tkQIdent:
		b.WriteString(`"` + t.val + `"`)
		i++
	case t.kind == tkIdent && !reserved[t.val]:
		name := t.val
		i++
		if c.at(i).isPunct(".") && (c.at(i+1).kind == tkIdent || c.at(i+1).kind == tkQIdent) {
			if name != "pg_catalog" {
				b.WriteString(name + ".")
			}
			return c.qualifiedTypeRest(&b, i+1)
		}
		b.WriteString(name)
		var err error
		if i, err = c.typeWords(&b, name, i); err != nil {
			return "", i, err
		}
	default:
		return "", i, c.syntaxErr(i)
	}
	return c.typeSuffix(&b, i)
}

// qualifiedTypeRest parses the name after "schema." at token i.
func (c *cursor) qualifiedTypeRest(b *strings.Builder, i int) (string, int, error) {
	if t := c.at(i); t.kind == tkQIdent {
		b.WriteString(`"` + t.val + `"`)
	} else {
		b.WriteString(t.val)
	}
	return c.typeSuffix(b, i+1)
}

// typeWords parses the words and modifiers that follow the first word of
// a multi-word type name.
func (c *cursor) typeWords(b *strings.Builder, first string, i int) (int, error) {
	var err error
	switch first {
	case "double":
		if c.at(i).is("precision") {
			b.WriteString(" precision")
			i++
		}
	case "national":
		if t := c.at(i); t.is("character") || t.is("char") {
			b.WriteString(" " + t.val)
			i++
		}
		i = c.optWord(b, i, "varying")
	case "character", "char", "nchar", "bit":
		i = c.optWord(b, i, "varying")
	case "timestamp", "time":
		if i, err = c.typeMods(b, i); err != nil {
			return i, err
		}
		if t := c.at(i); (t.is("with") || t.is("without")) && c.at(i+1).is("time") && c.at(i+2).is("zone") {
			b.WriteString(" " + t.val + " time zone")
			i += 3
		}
	case "interval":
		if t := c.at(i); t.kind == tkIdent && intervalFields[t.val] {
			b.WriteString(" " + t.val)
			i++
			if c.at(i).is("to") && intervalFields[c.at(i+1).val] && c.at(i+1).kind == tkIdent {
				b.WriteString(" to " + c.at(i+1).val)
				i += 2
			}
		}
	}
	return i, nil
}

// optWord appends word if token i is it.
func (c *cursor) optWord(b *strings.Builder, i int, word string) int {
	if c.at(i).is(word) {
		b.WriteString(" " + word)
		return i + 1
	}
	return i
}

// typeSuffix parses optional modifiers and array bounds at token i.
func (c *cursor) typeSuffix(b *strings.Builder, i int) (string, int, error) {
	i, err := c.typeMods(b, i)
	if err != nil {
		return "", i, err
	}
	for {
		switch {
		case c.at(i).isPunct("["):
			i++
			if c.at(i).kind == tkInt {
				i++
			}
			if !c.at(i).isPunct("]") {
				return "", i, c.syntaxErr(i)
			}
			b.WriteString("[]")
			i++
		case c.at(i).is("array"):
			i++
			if c.at(i).isPunct("[") && c.at(i+1).kind == tkInt && c.at(i+2).isPunct("]") {
				i += 3
			}
			b.WriteString("[]")
		default:
			return b.String(), i, nil
		}
	}
}

// typeMods parses an optional (n[, m]) modifier list at token i.
func (c *cursor) typeMods(b *strings.Builder, i int) (int, error) {
	if !c.at(i).isPunct("(") {
		return i, nil
	}
	b.WriteByte('(')
	i++
	for n := 0; ; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		if c.at(i).isPunct("-") {
			b.WriteByte('-')
			i++
		}
		if c.at(i).kind != tkInt {
			return i, c.syntaxErr(i)
		}
		b.WriteString(c.at(i).val)
		i++
		if c.at(i).isPunct(")") {
			b.WriteByte(')')
			return i + 1, nil
		}
		if !c.at(i).isPunct(",") {
			return i, c.syntaxErr(i)
		}
		i++
	}
}
