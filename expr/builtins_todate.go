package expr

import (
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// to_timestamp(text, template) and to_date(text, template) read a date
// and time by to_char's template patterns, as PostgreSQL does outside FX
// mode: numbers take up to their pattern's digits, a separator in the
// template skips one character of the input, and spaces are skipped.
func init() {
	RegisterBuiltin("to_timestamp", sig(types.TTimestampTZ, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		f, err := parseByTemplate(a[0].Str(), a[1].Str())
		if err != nil {
			return types.Null, err
		}
		us, err := makeTimestamp(f.year, f.month, f.day, f.hour, f.minute, float64(f.second)+float64(f.micros)/1e6)
		if err != nil {
			return types.Null, err
		}
		if f.zone != nil {
			return types.MakeTimestampTZ(us - int64(*f.zone)*microsPerSecond)
		}
		return types.MakeTimestampTZ(types.FromLocal(c.Zone(), us))
	}, types.Text, types.Text))
	RegisterBuiltin("to_date", sig(types.TDate, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		f, err := parseByTemplate(a[0].Str(), a[1].Str())
		if err != nil {
			return types.Null, err
		}
		return datumOf(types.NewDate)(makeDate(f.year, f.month, f.day))
	}, types.Text, types.Text))
}

// templateFields are the fields a template read; the date defaults to
// 0001-01-01 as in PostgreSQL.
type templateFields struct {
	year, month, day             int64
	hour, minute, second, micros int64
	pm, bc                       bool
	hour12                       bool
	zone                         *int // seconds east, if TZH/TZM were read
}

// parseByTemplate reads s by template.
func parseByTemplate(s, template string) (templateFields, error) {
	f := templateFields{year: 1, month: 1, day: 1}
	bad := func(what string) error {
		return pgerror.New(pgerror.CodeInvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", strings.TrimSpace(s), what)
	}
	pos := 0
	num := func(width int, what string) (int64, error) {
		for pos < len(s) && s[pos] == ' ' {
			pos++
		}
		start, sign := pos, int64(1)
		if pos < len(s) && (s[pos] == '-' || s[pos] == '+') && (what == "TZH" || what == "YYYY") {
			if s[pos] == '-' {
				sign = -1
			}
			pos++
			start++
		}
		for pos < len(s) && pos-start < width && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
		if pos == start {
			return 0, bad(what)
		}
		var v int64
		for _, d := range s[start:pos] {
			v = v*10 + int64(d-'0')
		}
		return sign * v, nil
	}
	for i := 0; i < len(template); {
		if strings.HasPrefix(template[i:], "FM") || strings.HasPrefix(template[i:], "fm") {
			i += 2
			continue
		}
		k, ok := matchKeyword(template[i:])
		if !ok {
			if template[i] != ' ' && pos < len(s) && !isTemplateDigitOrLetter(s[pos]) {
				pos++ // a separator in the template skips one in the input
			} else if template[i] == ' ' {
				for pos < len(s) && s[pos] == ' ' {
					pos++
				}
			}
			i++
			continue
		}
		i += len(k.pat)
		var err error
		var v int64
		switch k.field {
		case dchYYYY, dchYComma:
			v, err = num(4, "YYYY")
			f.year = v
		case dchYY:
			v, err = num(2, "YY")
			f.year = 2000 + v
			if v >= 70 {
				f.year = 1900 + v
			}
		case dchMM:
			f.month, err = num(2, "MM")
		case dchDD:
			f.day, err = num(2, "DD")
		case dchDDD:
			v, err = num(3, "DDD")
			f.month, f.day = 1, v
		case dchHH24:
			f.hour, err = num(2, "HH24")
		case dchHH12:
			f.hour, err = num(2, "HH12")
			f.hour12 = true
		case dchMI:
			f.minute, err = num(2, "MI")
		case dchSS:
			f.second, err = num(2, "SS")
		case dchMS:
			v, err = num(3, "MS")
			f.micros = v * 1000
		case dchUS:
			f.micros, err = num(6, "US")
		case dchFF:
			v, err = num(k.arg, k.pat)
			for n := k.arg; n < 6; n++ {
				v *= 10
			}
			f.micros = v
		case dchAM, dchAMDots:
			word := strings.ToUpper(s[pos:min(len(s), pos+len(k.pat))])
			f.pm = strings.HasPrefix(word, "P")
			f.hour12 = true
			pos += len(k.pat)
		case dchAD, dchADDots:
			word := strings.ToUpper(s[pos:min(len(s), pos+len(k.pat))])
			f.bc = strings.HasPrefix(word, "B")
			pos += len(k.pat)
		case dchMonth, dchMon:
			f.month, err = monthName(s, &pos, k.field == dchMon)
			if err != nil {
				err = bad(k.pat)
			}
		case dchTZH:
			v, err = num(2, "TZH")
			z := int(v) * 3600
			f.zone = &z
		case dchTZM:
			v, err = num(2, "TZM")
			z := 0
			if f.zone != nil {
				z = *f.zone
			}
			if z < 0 {
				z -= int(v) * 60
			} else {
				z += int(v) * 60
			}
			f.zone = &z
		default:
			return f, pgerror.New(pgerror.CodeFeatureNotSupported, "template pattern \"%s\" is not supported in to_timestamp and to_date yet", k.pat)
		}
		if err != nil {
			return f, err
		}
	}
	if f.hour12 {
		if f.hour < 1 || f.hour > 12 {
			return f, pgerror.New(pgerror.CodeInvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", f.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		f.hour %= 12
		if f.pm {
			f.hour += 12
		}
	}
	if f.bc {
		f.year = -f.year + 1
	}
	return f, nil
}

func isTemplateDigitOrLetter(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// monthName reads a month's name (its first three letters if short) at
// *pos.
func monthName(s string, pos *int, short bool) (int64, error) {
	for m := time.January; m <= time.December; m++ {
		name := m.String()
		if short {
			name = name[:3]
		}
		if len(s)-*pos >= len(name) && strings.EqualFold(s[*pos:*pos+len(name)], name) {
			*pos += len(name)
			return int64(m), nil
		}
	}
	return 0, pgerror.New(pgerror.CodeInvalidDatetimeFormat, "invalid month name")
}
