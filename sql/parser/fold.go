package parser

import (
	"strings"
)

// frag is one piece of translated text. src is the byte offset in the
// input of the token it stands for, so that TiDB's error offsets map back.
type frag struct {
	text string
	src  int
	glue bool // no space before this piece
	side int  // > 0: the piece is a `?` standing for the translator's sides[side-1]
}

// unitKind classifies a unit of a translated token sequence.
type unitKind uint8

const (
	uPrimary unitKind = iota // an operand: literal, column, call, group, marker call
	uOp                      // an operator, binary, prefix or postfix
	uWord                    // anything that ends an operand: keywords, commas
)

// rewrite says how fold rewrites an operator PostgreSQL and TiDB disagree on.
type rewrite uint8

const (
	rwNone        rewrite = iota
	rwPgOp                // pg_op('op', l, r), or pg_op('op', r) when prefix
	rwLike                // (l LIKE r) with op holding LIKE, NOT LIKE, ILIKE or NOT ILIKE
	rwDistinct            // (l <=> r IS FALSE)
	rwNotDistinct         // (l <=> r)
	rwSimilar             // pg_op(op, l, similar_to_escape(r [, escape])), op ~ or !~
	rwSymmetric           // [NOT] ((l BETWEEN a AND b) OR (l BETWEEN b AND a)), op NOT or ""
)

// PostgreSQL's operator precedence levels, loosest first.
const (
	lvlOr = 1 + iota
	lvlAnd
	lvlNot
	lvlIs
	lvlCmp
	lvlLike // LIKE, ILIKE, SIMILAR TO, IN, BETWEEN (and its AND), ESCAPE
	lvlOther
	lvlAdd
	lvlMul
	lvlExp
)

// unit is one element of a translated sequence: an operand, an operator or
// a word, with its translated text.
type unit struct {
	kind  unitKind
	level int     // operators: PostgreSQL precedence
	rw    rewrite // operators: how fold rewrites it
	op    string  // operators: the operator text
	word  string  // words: the lowercased keyword or punctuation
	next  int     // operators: index of the token after the operator
	frags []frag
}

func (u unit) isWord(w string) bool { return u.kind == uWord && u.word == w }

// fold rewrites the operators TiDB lacks or binds differently (PostgreSQL's
// "other" operators, ~~, SIMILAR TO and IS [NOT] DISTINCT FROM) into marker calls or
// parenthesized TiDB forms. Operand extents follow PostgreSQL precedence:
// tighter-binding operators first, each level left to right.
func (t *translator) fold(us []unit) ([]unit, error) {
	for _, lvl := range []int{lvlOther, lvlLike, lvlIs} {
		for i := 0; i < len(us); i++ {
			u := us[i]
			if u.kind != uOp || u.rw == rwNone || u.level != lvl {
				continue
			}
			lo := i
			if i > 0 && us[i-1].kind == uPrimary {
				lo = operandStart(us, i, lvl)
			}
			hi := operandEnd(us, i+1, lvl)
			if hi == i+1 || (lo == i && u.rw != rwPgOp) {
				return nil, t.syntaxErr(u.next)
			}
			r := us[i+1 : hi]
			if u.rw == rwSymmetric {
				// The bounds a AND b: BETWEEN's AND ends the first.
				if hi >= len(us) || us[hi].kind != uOp || us[hi].op != "AND" {
					return nil, t.syntaxErr(u.next)
				}
				end := operandEnd(us, hi+1, lvl)
				if end == hi+1 {
					return nil, t.syntaxErr(us[hi].next)
				}
				merged := symmetricBetween(u, us[lo:i], r, us[hi+1:end])
				us = append(us[:lo], append([]unit{merged}, us[end:]...)...)
				i = lo
				continue
			}
			if u.rw == rwSimilar && hi < len(us) && us[hi].kind == uOp && us[hi].op == "ESCAPE" {
				esc := operandEnd(us, hi+1, lvl)
				if esc == hi+1 {
					return nil, t.syntaxErr(us[hi].next)
				}
				r = append(append(append([]unit(nil), r...), unit{kind: uWord, word: ",", frags: []frag{{text: ",", src: us[hi].frags[0].src, glue: true}}}), us[hi+1:esc]...)
				hi = esc
			}
			merged := rewriteOp(u, us[lo:i], r)
			us = append(us[:lo], append([]unit{merged}, us[hi:]...)...)
			i = lo
		}
	}
	return us, nil
}

// operandStart returns where the left operand of the operator at i starts:
// the operand extends left over operators binding tighter than lvl.
func operandStart(us []unit, i, lvl int) int {
	j := i - 1
	for j > 0 {
		p := us[j-1]
		if p.kind == uOp && p.level > lvl || p.kind == uPrimary && us[j].kind == uOp {
			j--
			continue
		}
		break
	}
	return j
}

// operandEnd returns where the right operand starting at k ends.
func operandEnd(us []unit, k, lvl int) int {
	j := k
	for j < len(us) {
		for j < len(us) && us[j].kind == uOp && us[j].level > lvl {
			j++
		}
		if j >= len(us) || us[j].kind != uPrimary {
			return j
		}
		j++
		if j < len(us) && us[j].kind == uOp && us[j].level > lvl {
			j++
			continue
		}
		return j
	}
	return j
}

// rewriteOp builds the primary that replaces l op r.
func rewriteOp(u unit, l, r []unit) unit {
	src := u.frags[0].src
	var fs []frag
	switch u.rw {
	case rwPgOp:
		fs = append(fs, frag{text: "pg_op(", src: src}, frag{text: quoteString(u.op), src: src, glue: true})
		if len(l) > 0 {
			fs = append(fs, frag{text: ",", src: src, glue: true})
			fs = appendUnits(fs, l)
		}
		fs = append(fs, frag{text: ",", src: src, glue: true})
		fs = appendUnits(fs, r)
		fs = append(fs, frag{text: ")", src: src})
	case rwLike:
		fs = append(fs, frag{text: "(", src: src})
		fs = appendOperand(fs, l)
		fs = append(fs, frag{text: u.op, src: src})
		fs = appendOperand(fs, r)
		fs = append(fs, frag{text: ")", src: src})
	case rwSimilar:
		fs = append(fs, frag{text: "pg_op(", src: src}, frag{text: quoteString(u.op), src: src, glue: true}, frag{text: ",", src: src, glue: true})
		fs = appendUnits(fs, l)
		fs = append(fs, frag{text: ", similar_to_escape(", src: src, glue: true})
		fs = appendUnits(fs, r)
		fs = append(fs, frag{text: "))", src: src})
	case rwDistinct, rwNotDistinct:
		fs = append(fs, frag{text: "(", src: src})
		fs = appendOperand(fs, l)
		fs = append(fs, frag{text: "<=>", src: src})
		fs = appendOperand(fs, r)
		if u.rw == rwDistinct {
			fs = append(fs, frag{text: "IS FALSE", src: src})
		}
		fs = append(fs, frag{text: ")", src: src})
	}
	return unit{kind: uPrimary, frags: fs}
}

// symmetricBetween builds the primary that replaces l [NOT] BETWEEN
// SYMMETRIC a AND b as PostgreSQL's parser expands it: (l BETWEEN a AND
// b) OR (l BETWEEN b AND a), negated for NOT (l is evaluated twice there
// too).
func symmetricBetween(u unit, l, a, b []unit) unit {
	src := u.frags[0].src
	between := func(fs []frag, lo, hi []unit) []frag {
		fs = append(fs, frag{text: "(", src: src})
		fs = appendOperand(fs, l)
		fs = append(fs, frag{text: "BETWEEN", src: src})
		fs = appendOperand(fs, lo)
		fs = append(fs, frag{text: "AND", src: src})
		fs = appendOperand(fs, hi)
		return append(fs, frag{text: ")", src: src, glue: true})
	}
	fs := []frag{{text: u.op + "(", src: src}}
	fs = between(fs, a, b)
	fs = append(fs, frag{text: "OR", src: src})
	fs = between(fs, b, a)
	fs = append(fs, frag{text: ")", src: src, glue: true})
	return unit{kind: uPrimary, frags: fs}
}

// appendOperand appends the units of an operand, parenthesized when it is
// more than one unit.
func appendOperand(fs []frag, us []unit) []frag {
	if len(us) == 1 {
		return appendUnits(fs, us)
	}
	src := us[0].frags[0].src
	fs = append(fs, frag{text: "(", src: src})
	fs = appendUnits(fs, us)
	return append(fs, frag{text: ")", src: src, glue: true})
}

func appendUnits(fs []frag, us []unit) []frag {
	for _, u := range us {
		fs = append(fs, u.frags...)
	}
	return fs
}

// rendered is translated text with, for each of its bytes, the input byte
// offset it came from (plus one entry for the end).
type rendered struct {
	text   string
	posMap []int
	sides  map[int]int // byte offset of a `?` in text → index into the translator's sides
}

// render joins frags with single spaces; end is the input offset that the
// end of the text maps to.
func render(fs []frag, end int) rendered {
	var b strings.Builder
	r := rendered{posMap: make([]int, 0, len(fs)*8)}
	for i, f := range fs {
		if i > 0 && !f.glue {
			b.WriteByte(' ')
			r.posMap = append(r.posMap, f.src)
		}
		if f.side > 0 {
			if r.sides == nil {
				r.sides = make(map[int]int)
			}
			r.sides[b.Len()] = f.side - 1
		}
		b.WriteString(f.text)
		for range len(f.text) {
			r.posMap = append(r.posMap, f.src)
		}
	}
	r.text = b.String()
	r.posMap = append(r.posMap, end)
	return r
}
