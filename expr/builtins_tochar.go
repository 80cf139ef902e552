package expr

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/types"
)

// to_char(timestamp, format) with PostgreSQL's template patterns, the FM
// (fill mode) and TM prefixes and the TH/th ordinal suffix.

func init() {
	toChar := func(tz bool) builtinFn {
		return func(c *Ctx, a []types.Datum) (types.Datum, error) {
			us, format := a[0].Micros(), a[1].Str()
			if isInfinite(us) || format == "" {
				return types.Null, nil
			}
			var z *stampZone
			if tz {
				// A timestamptz prints as the wall clock in the session's zone.
				name, off := types.TimestampToTime(us).In(zoneOf(c)).Zone()
				z = &stampZone{name: name, offset: off}
				us += int64(off) * microsPerSecond
			}
			return types.NewString(string(formatTimestamp(nil, toCivil(types.SplitTimestamp(us)), z, format))), nil
		}
	}
	// timestamptz comes first: PostgreSQL prefers it for a date argument.
	RegisterBuiltin("to_char",
		sig(types.TText, toChar(true), types.TimestampTZ, types.Text),
		sig(types.TText, toChar(false), types.Timestamp, types.Text))
}

// dchField is what a template pattern prints.
type dchField uint8

const (
	dchAD dchField = iota
	dchADDots
	dchAM
	dchAMDots
	dchCC
	dchDay
	dchDDD
	dchDD
	dchDy
	dchD
	dchFF
	dchHH24
	dchHH12
	dchIDDD
	dchID
	dchIW
	dchIYYY
	dchIYY
	dchIY
	dchI
	dchJ
	dchMI
	dchMM
	dchMonth
	dchMon
	dchMS
	dchOF
	dchQ
	dchRM
	dchSSSS
	dchSS
	dchTZH
	dchTZM
	dchTZ
	dchUS
	dchWW
	dchW
	dchYComma
	dchYYYY
	dchYYY
	dchYY
	dchY
)

// dchCase is the letter case a text pattern was written in.
type dchCase uint8

const (
	caseUpper dchCase = iota
	caseLower
	caseTitle
)

type dchKeyword struct {
	pat   string
	field dchField
	arg   int // FF's digit count
	cas   dchCase
}

// dchKeywords holds every spelling of the patterns, longest first so that
// the first match is the longest.
var dchKeywords = func() []dchKeyword {
	base := []dchKeyword{
		{pat: "A.D.", field: dchADDots}, {pat: "B.C.", field: dchADDots}, {pat: "AD", field: dchAD}, {pat: "BC", field: dchAD},
		{pat: "A.M.", field: dchAMDots}, {pat: "P.M.", field: dchAMDots}, {pat: "AM", field: dchAM}, {pat: "PM", field: dchAM},
		{pat: "CC", field: dchCC}, {pat: "DAY", field: dchDay}, {pat: "DDD", field: dchDDD}, {pat: "DD", field: dchDD},
		{pat: "DY", field: dchDy}, {pat: "D", field: dchD}, {pat: "HH24", field: dchHH24}, {pat: "HH12", field: dchHH12},
		{pat: "HH", field: dchHH12}, {pat: "IDDD", field: dchIDDD}, {pat: "ID", field: dchID}, {pat: "IW", field: dchIW},
		{pat: "IYYY", field: dchIYYY}, {pat: "IYY", field: dchIYY}, {pat: "IY", field: dchIY}, {pat: "I", field: dchI},
		{pat: "J", field: dchJ}, {pat: "MI", field: dchMI}, {pat: "MM", field: dchMM}, {pat: "MONTH", field: dchMonth},
		{pat: "MON", field: dchMon}, {pat: "MS", field: dchMS}, {pat: "OF", field: dchOF}, {pat: "Q", field: dchQ},
		{pat: "RM", field: dchRM}, {pat: "SSSSS", field: dchSSSS}, {pat: "SSSS", field: dchSSSS}, {pat: "SS", field: dchSS},
		{pat: "TZH", field: dchTZH}, {pat: "TZM", field: dchTZM}, {pat: "TZ", field: dchTZ}, {pat: "US", field: dchUS},
		{pat: "WW", field: dchWW}, {pat: "W", field: dchW}, {pat: "Y,YYY", field: dchYComma}, {pat: "YYYY", field: dchYYYY},
		{pat: "YYY", field: dchYYY}, {pat: "YY", field: dchYY}, {pat: "Y", field: dchY},
	}
	for n := 1; n <= 6; n++ {
		base = append(base, dchKeyword{pat: "FF" + strconv.Itoa(n), field: dchFF, arg: n})
	}
	var all []dchKeyword
	for _, k := range base {
		all = append(all, k)
		lower := k
		lower.pat, lower.cas = strings.ToLower(k.pat), caseLower
		all = append(all, lower)
		switch k.field {
		case dchDay, dchDy, dchMonth, dchMon:
			title := k
			title.pat, title.cas = k.pat[:1]+strings.ToLower(k.pat[1:]), caseTitle
			all = append(all, title)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return len(all[i].pat) > len(all[j].pat) })
	return all
}()

func matchKeyword(s string) (dchKeyword, bool) {
	for _, k := range dchKeywords {
		if strings.HasPrefix(s, k.pat) {
			return k, true
		}
	}
	return dchKeyword{}, false
}

var romanMonths = [...]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// stampZone is the zone a timestamptz prints in: its abbreviation and
// offset (seconds east) at the instant.
type stampZone struct {
	name   string
	offset int
}

// formatTimestamp appends c formatted by a to_char template; tz is nil
// for a timestamp without time zone.
func formatTimestamp(dst []byte, c civil, tz *stampZone, format string) []byte {
	for i := 0; i < len(format); {
		fill := true
		for _, p := range [...]string{"FM", "fm", "TM", "tm"} {
			if strings.HasPrefix(format[i:], p) {
				fill = fill && p[0]|0x20 != 'f'
				i += 2
			}
		}
		k, ok := matchKeyword(format[i:])
		if !ok {
			dst, i = appendTemplateLiteral(dst, format, i)
			continue
		}
		i += len(k.pat)
		start := len(dst)
		var numeric bool
		dst, numeric = appendField(dst, c, k, fill, tz)
		if numeric && i+2 <= len(format) && (format[i:i+2] == "TH" || format[i:i+2] == "th") {
			dst = append(dst, ordinalSuffix(dst[start:], format[i] == 'T')...)
			i += 2
		}
	}
	return dst
}

// appendTemplateLiteral copies the non-pattern text at format[i]: a double
// quoted string (with \" for a quote), a backslash-escaped quote, or one
// character.
func appendTemplateLiteral(dst []byte, format string, i int) ([]byte, int) {
	switch {
	case format[i] == '"':
		for i++; i < len(format) && format[i] != '"'; i++ {
			if format[i] == '\\' && i+1 < len(format) {
				i++
			}
			dst = append(dst, format[i])
		}
		return dst, i + 1
	case format[i] == '\\' && i+1 < len(format) && format[i+1] == '"':
		return append(dst, '"'), i + 2
	}
	return append(dst, format[i]), i + 1
}

// appendNum appends v zero-padded to width digits unless fill mode is off.
func appendNum(dst []byte, v int64, width int, fill bool) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
		width--
	}
	s := strconv.FormatInt(v, 10)
	for n := len(s); fill && n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendText appends s in the pattern's letter case, blank-padded to width
// unless fill mode is off.
func appendText(dst []byte, s string, cas dchCase, width int, fill bool) []byte {
	switch cas {
	case caseUpper:
		s = strings.ToUpper(s)
	case caseLower:
		s = strings.ToLower(s)
	}
	dst = append(dst, s...)
	for n := len(s); fill && n < width; n++ {
		dst = append(dst, ' ')
	}
	return dst
}

// appendField appends one pattern's value and reports whether it is a
// number (which the TH suffix may follow).
func appendField(dst []byte, c civil, k dchKeyword, fill bool, tz *stampZone) ([]byte, bool) {
	year := c.year
	if year <= 0 {
		year = 1 - year
	}
	isoYear, isoWeek := c.isoWeek()
	if isoYear <= 0 {
		isoYear = 1 - isoYear
	}
	pick := func(a, b string, second bool) string {
		if second {
			return b
		}
		return a
	}
	switch k.field {
	case dchAD:
		return appendText(dst, pick("AD", "BC", c.year <= 0), k.cas, 0, false), false
	case dchADDots:
		return appendText(dst, pick("A.D.", "B.C.", c.year <= 0), k.cas, 0, false), false
	case dchAM:
		return appendText(dst, pick("AM", "PM", c.hour >= 12), k.cas, 0, false), false
	case dchAMDots:
		return appendText(dst, pick("A.M.", "P.M.", c.hour >= 12), k.cas, 0, false), false
	case dchDay:
		return appendText(dst, time.Weekday(c.isoDow()%7).String(), k.cas, 9, fill), false
	case dchDy:
		return appendText(dst, time.Weekday(c.isoDow() % 7).String()[:3], k.cas, 0, false), false
	case dchMonth:
		return appendText(dst, time.Month(c.month).String(), k.cas, 9, fill), false
	case dchMon:
		return appendText(dst, time.Month(c.month).String()[:3], k.cas, 0, false), false
	case dchRM:
		return appendText(dst, romanMonths[c.month-1], k.cas, 4, fill), false
	case dchTZ:
		if tz != nil {
			return appendText(dst, tz.name, k.cas, 0, false), false
		}
		return dst, false
	case dchOF, dchTZH, dchTZM:
		off := 0
		if tz != nil {
			off = tz.offset
		}
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		switch k.field {
		case dchTZM:
			return appendNum(dst, int64(off/60%60), 2, true), false
		case dchTZH:
			return appendNum(append(dst, sign), int64(off/3600), 2, true), false
		}
		dst = appendNum(append(dst, sign), int64(off/3600), 2, true)
		if off%3600 != 0 {
			dst = appendNum(append(dst, ':'), int64(off/60%60), 2, true)
		}
		return dst, false
	}
	var v int64
	width := 0
	switch k.field {
	case dchCC:
		v, width = c.year/100-1, 3
		if c.year > 0 {
			v, width = (c.year-1)/100+1, 2
		}
	case dchDDD:
		v, width = c.days-civilDays(c.year, 1, 1)+1, 3
	case dchDD:
		v, width = c.day, 2
	case dchD:
		v = c.isoDow()%7 + 1
	case dchFF:
		v, width = c.micros/pow10(6-k.arg), k.arg
	case dchHH24:
		v, width = c.hour, 2
	case dchHH12:
		v, width = (c.hour+11)%12+1, 2
	case dchIDDD:
		v, width = (isoWeek-1)*7+c.isoDow(), 3
	case dchID:
		v = c.isoDow()
	case dchIW:
		v, width = isoWeek, 2
	case dchIYYY:
		v, width = isoYear, 4
	case dchIYY:
		v, width = isoYear%1000, 3
	case dchIY:
		v, width = isoYear%100, 2
	case dchI:
		v, width = isoYear%10, 1
	case dchJ:
		v = c.days + unixEpochJulian
	case dchMI:
		v, width = c.minute, 2
	case dchMM:
		v, width = c.month, 2
	case dchMS:
		v, width = c.micros/1000, 3
	case dchQ:
		v = (c.month-1)/3 + 1
	case dchSSSS:
		v = (c.hour*60+c.minute)*60 + c.second
	case dchSS:
		v, width = c.second, 2
	case dchUS:
		v, width = c.micros, 6
	case dchWW:
		v, width = (c.days-civilDays(c.year, 1, 1))/7+1, 2
	case dchW:
		v = (c.day-1)/7 + 1
	case dchYComma:
		dst = strconv.AppendInt(dst, year/1000, 10)
		return appendNum(append(dst, ','), year%1000, 3, true), true
	case dchYYYY:
		v, width = year, 4
	case dchYYY:
		v, width = year%1000, 3
	case dchYY:
		v, width = year%100, 2
	case dchY:
		v, width = year%10, 1
	}
	return appendNum(dst, v, width, fill), true
}

// ordinalSuffix returns the English ordinal suffix of the number num.
func ordinalSuffix(num []byte, upper bool) string {
	s := "th"
	if n := len(num); n > 0 && (n < 2 || num[n-2] != '1') {
		switch num[n-1] {
		case '1':
			s = "st"
		case '2':
			s = "nd"
		case '3':
			s = "rd"
		}
	}
	if upper {
		return strings.ToUpper(s)
	}
	return s
}
