package expr

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// to_char(timestamp, format) and to_char(interval, format) with
// PostgreSQL's template patterns, the FM (fill mode) and TM prefixes and
// the TH/th ordinal suffix.

func init() {
	toChar := func(tz bool) builtinFn {
		return func(c *Ctx, a []types.Datum) (types.Datum, error) {
			us, format := a[0].Micros(), a[1].Str()
			if isInfinite(us) || format == "" {
				return types.Null, nil
			}
			var v dchValue
			if tz {
				// A timestamptz prints as the wall clock in the session's zone.
				name, off := types.TimestampToTime(us).In(zoneOf(c)).Zone()
				v.tz = &stampZone{name: name, offset: off}
				us += int64(off) * microsPerSecond
			}
			v.civil = toCivil(types.SplitTimestamp(us))
			return formatDatum(v, format)
		}
	}
	// timestamptz comes first: PostgreSQL prefers it for a date argument.
	RegisterBuiltin("to_char",
		sig(types.TText, toChar(true), types.TimestampTZ, types.Text),
		sig(types.TText, toChar(false), types.Timestamp, types.Text),
		sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			if a[1].Str() == "" {
				return types.Null, nil
			}
			return formatDatum(dchValue{civil: intervalCivil(a[0].Interval()), interval: true}, a[1].Str())
		}, types.Interval, types.Text))
}

// formatDatum is the text of v formatted by a to_char template.
func formatDatum(v dchValue, format string) (types.Datum, error) {
	b, err := formatDCH(nil, v, format)
	if err != nil {
		return types.Null, err
	}
	return types.NewString(string(b)), nil
}

// dchValue is what a to_char template formats: a timestamp's calendar
// fields, with its zone for a timestamptz, or an interval's fields.
type dchValue struct {
	civil
	tz *stampZone
	// interval marks an interval's fields, as PostgreSQL's interval2itm
	// gives them: years and months from the months, the days, hours
	// beyond 24, all signed; years are not moved for BC, and patterns
	// naming calendar things (Month, Day, AD, TZ) are errors.
	interval bool
}

// intervalCivil spreads an interval over calendar fields for to_char; days
// counts types.Date2J of the year, month and day fields, from which
// the ISO and Julian patterns compute.
func intervalCivil(iv types.IntervalValue) civil {
	t := iv.Micros
	c := civil{
		year: int64(iv.Months / 12), month: int64(iv.Months % 12), day: int64(iv.Days),
		hour: t / microsPerHour, minute: t / microsPerMinute % 60,
		second: t / microsPerSecond % 60, micros: t % microsPerSecond,
	}
	c.days = types.Date2J(c.year, c.month, c.day) - unixEpochJulian
	return c
}

// errIntervalFormat is to_char's error for a pattern an interval cannot
// print.
var errIntervalFormat = pgerror.New(pgerror.CodeInvalidDatetimeFormat, "invalid format specification for an interval value").
	WithHint("Intervals are not tied to specific calendar dates.")

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

// formatDCH appends v formatted by a to_char template.
func formatDCH(dst []byte, v dchValue, format string) ([]byte, error) {
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
		var err error
		if dst, numeric, err = appendField(dst, v, k, fill); err != nil {
			return nil, err
		}
		if numeric && i+2 <= len(format) && (format[i:i+2] == "TH" || format[i:i+2] == "th") {
			dst = append(dst, ordinalSuffix(dst[start:], format[i] == 'T')...)
			i += 2
		}
	}
	return dst, nil
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
// number (which the TH suffix may follow). Numbers are printed as C's
// "%0*d": a negative interval field takes one more place for its sign
// where PostgreSQL widens it (clock fields, MM, CC and years, the ISO
// years by the sign of the year), MS, US and FF ignore fill mode.
func appendField(dst []byte, v dchValue, k dchKeyword, fill bool) ([]byte, bool, error) {
	c, tz := v.civil, v.tz
	year := c.year
	if year <= 0 && !v.interval {
		year = 1 - year
	}
	isoYear, isoWeek := c.isoWeek()
	if isoYear <= 0 && !v.interval {
		isoYear = 1 - isoYear
	}
	yday := c.days - civilDays(c.year, 1, 1) + 1
	if v.interval {
		yday = (c.year*12+c.month)*30 + c.day
	}
	pick := func(a, b string, second bool) string {
		if second {
			return b
		}
		return a
	}
	switch k.field {
	case dchAD, dchADDots, dchDay, dchDy, dchMonth, dchMon, dchD, dchID, dchTZ, dchOF, dchTZH, dchTZM:
		if v.interval {
			return nil, false, errIntervalFormat
		}
	}
	switch k.field {
	case dchAD:
		return appendText(dst, pick("AD", "BC", c.year <= 0), k.cas, 0, false), false, nil
	case dchADDots:
		return appendText(dst, pick("A.D.", "B.C.", c.year <= 0), k.cas, 0, false), false, nil
	case dchAM:
		return appendText(dst, pick("AM", "PM", c.hour%24 >= 12), k.cas, 0, false), false, nil
	case dchAMDots:
		return appendText(dst, pick("A.M.", "P.M.", c.hour%24 >= 12), k.cas, 0, false), false, nil
	case dchDay:
		return appendText(dst, time.Weekday(c.isoDow()%7).String(), k.cas, 9, fill), false, nil
	case dchDy:
		return appendText(dst, time.Weekday(c.isoDow() % 7).String()[:3], k.cas, 0, false), false, nil
	case dchMonth:
		return appendText(dst, time.Month(c.month).String(), k.cas, 9, fill), false, nil
	case dchMon:
		return appendText(dst, time.Month(c.month).String()[:3], k.cas, 0, false), false, nil
	case dchRM:
		// An interval's month may be 0 (whole years: XII, or I when
		// negative; nothing without years) or negative (-1 is XII).
		m := c.month
		switch {
		case m == 0 && c.year == 0:
			return dst, false, nil
		case m == 0 && c.year > 0:
			m = 12
		case m == 0:
			m = 1
		case m < 0:
			m += 13
		}
		return appendText(dst, romanMonths[m-1], k.cas, 4, fill), false, nil
	case dchQ:
		if c.month == 0 {
			return dst, false, nil
		}
	case dchTZ:
		if tz != nil {
			return appendText(dst, tz.name, k.cas, 0, false), false, nil
		}
		return dst, false, nil
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
			return appendNum(dst, int64(off/60%60), 2, true), false, nil
		case dchTZH:
			return appendNum(append(dst, sign), int64(off/3600), 2, true), false, nil
		}
		dst = appendNum(append(dst, sign), int64(off/3600), 2, true)
		if off%3600 != 0 {
			dst = appendNum(append(dst, ':'), int64(off/60%60), 2, true)
		}
		return dst, false, nil
	}
	var n int64
	width := 0
	signed := false // the width takes a sign
	switch k.field {
	case dchCC:
		switch {
		case v.interval:
			n = c.year / 100
		case c.year > 0:
			n = (c.year-1)/100 + 1
		default:
			n = c.year/100 - 1
		}
		width, signed = 2, n < 0
	case dchDDD:
		n, width = yday, 3
	case dchDD:
		n, width = c.day, 2
	case dchD:
		n = c.isoDow()%7 + 1
	case dchFF:
		n, width, fill = c.micros/pow10(6-k.arg), k.arg, true
	case dchHH24:
		n, width, signed = c.hour, 2, c.hour < 0
	case dchHH12:
		n, width, signed = c.hour%12, 2, c.hour < 0
		if n == 0 {
			n = 12
		}
	case dchIDDD:
		n, width = (isoWeek-1)*7+c.isoDow(), 3
	case dchID:
		n = c.isoDow()
	case dchIW:
		n, width = isoWeek, 2
	case dchIYYY:
		n, width, signed = isoYear, 4, year < 0
	case dchIYY:
		n, width, signed = isoYear%1000, 3, year < 0
	case dchIY:
		n, width, signed = isoYear%100, 2, year < 0
	case dchI:
		n, width = isoYear%10, 1
	case dchJ:
		n = c.days + unixEpochJulian
	case dchMI:
		n, width, signed = c.minute, 2, c.minute < 0
	case dchMM:
		n, width, signed = c.month, 2, c.month < 0
	case dchMS:
		n, width, fill = c.micros/1000, 3, true
	case dchQ:
		n = (c.month-1)/3 + 1
	case dchSSSS:
		n = (c.hour*60+c.minute)*60 + c.second
	case dchSS:
		n, width, signed = c.second, 2, c.second < 0
	case dchUS:
		n, width, fill = c.micros, 6, true
	case dchWW:
		n, width = (yday-1)/7+1, 2
	case dchW:
		n = (c.day-1)/7 + 1
	case dchYComma:
		dst = strconv.AppendInt(dst, year/1000, 10)
		return appendNum(append(dst, ','), year%1000, 3, true), true, nil
	case dchYYYY:
		n, width, signed = year, 4, year < 0
	case dchYYY:
		n, width, signed = year%1000, 3, year < 0
	case dchYY:
		n, width, signed = year%100, 2, year < 0
	case dchY:
		n, width = year%10, 1
	}
	if signed {
		width++
	}
	return appendNum(dst, n, width, fill), true, nil
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
