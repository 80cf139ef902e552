package types

import "strings"

// dtFieldKind classifies a date/time input field, as PostgreSQL's
// ParseDateTime does.
type dtFieldKind uint8

const (
	dtNumber  dtFieldKind = iota // digits, possibly with one '.'
	dtDate                       // digits with '-', '/' or '.' delimiters, or a text month
	dtTime                       // digits with ':'
	dtString                     // letters
	dtSpecial                    // a sign followed by letters (-infinity)
	dtSigned                     // a sign followed by digits (a zone offset or signed number)
)

type dtField struct {
	kind dtFieldKind
	s    string
}

// splitDateTime breaks date/time input into lower-cased fields following
// PostgreSQL's ParseDateTime; ok is false for characters it rejects.
func splitDateTime(s string) (fields []dtField, ok bool) {
	s = strings.ToLower(s)
	fields = make([]dtField, 0, 8)
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		var kind dtFieldKind
		switch {
		case isSpace(c):
			i++
			continue
		case isDigit(c):
			i = skipDigits(s, i)
			switch {
			case i < len(s) && s[i] == ':':
				kind = dtTime
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				i++
				if i < len(s) && isDigit(s[i]) {
					kind = dtDate
					if delim == '.' {
						kind = dtNumber
					}
					i = skipDigits(s, i)
					if i < len(s) && s[i] == delim {
						kind = dtDate
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							i++
						}
					}
				} else {
					kind = dtDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						i++
					}
				}
			default:
				kind = dtNumber
			}
		case c == '.':
			i = skipDigits(s, i+1)
			kind = dtNumber
		case isAlpha(c):
			kind = dtString
			for i < len(s) && isAlpha(s[i]) {
				i++
			}
			if i < len(s) {
				_, known := dateTokens[s[start:i]]
				if s[i] == '-' || s[i] == '/' || s[i] == '.' || ((s[i] == '+' || isDigit(s[i])) && !known) {
					kind = dtDate
					for i < len(s) && (isAlnum(s[i]) || strings.IndexByte("+-/_.:", s[i]) >= 0) {
						i++
					}
				}
			}
		case c == '+' || c == '-':
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				kind = dtSigned
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					i++
				}
			case i < len(s) && isAlpha(s[i]):
				kind = dtSpecial
				for i < len(s) && isAlpha(s[i]) {
					i++
				}
			default:
				return nil, false
			}
		case c < 0x80 && c > ' ':
			i++ // other punctuation only delimits
			continue
		default:
			return nil, false
		}
		field := s[start:i]
		if kind == dtSigned || kind == dtSpecial {
			field = strings.ReplaceAll(field, " ", "") // a sign may be followed by spaces
		}
		fields = append(fields, dtField{kind, field})
	}
	return fields, true
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// dateToken is the meaning of a word in date/time input.
type dateToken struct {
	kind  dateTokenKind
	value int
}

type dateTokenKind uint8

const (
	tokMonth dateTokenKind = iota
	tokWeekday
	tokAMPM
	tokEra
	tokISOMark
	tokUTC
	tokSpecial
)

// Special date/time values.
const (
	specialNone = iota
	specialEpoch
	specialInfinity
	specialNegInfinity
	specialNow
	specialToday
	specialTomorrow
	specialYesterday
	specialAllBalls
)

// dateTokens are the words date/time input understands (PostgreSQL's
// datetktbl without its zone abbreviations other than UTC's).
var dateTokens = map[string]dateToken{
	"jan": {tokMonth, 1}, "january": {tokMonth, 1},
	"feb": {tokMonth, 2}, "february": {tokMonth, 2},
	"mar": {tokMonth, 3}, "march": {tokMonth, 3},
	"apr": {tokMonth, 4}, "april": {tokMonth, 4},
	"may": {tokMonth, 5},
	"jun": {tokMonth, 6}, "june": {tokMonth, 6},
	"jul": {tokMonth, 7}, "july": {tokMonth, 7},
	"aug": {tokMonth, 8}, "august": {tokMonth, 8},
	"sep": {tokMonth, 9}, "sept": {tokMonth, 9}, "september": {tokMonth, 9},
	"oct": {tokMonth, 10}, "october": {tokMonth, 10},
	"nov": {tokMonth, 11}, "november": {tokMonth, 11},
	"dec": {tokMonth, 12}, "december": {tokMonth, 12},
	"sun": {tokWeekday, 0}, "sunday": {tokWeekday, 0},
	"mon": {tokWeekday, 1}, "monday": {tokWeekday, 1},
	"tue": {tokWeekday, 2}, "tues": {tokWeekday, 2}, "tuesday": {tokWeekday, 2},
	"wed": {tokWeekday, 3}, "wednesday": {tokWeekday, 3},
	"thu": {tokWeekday, 4}, "thur": {tokWeekday, 4}, "thurs": {tokWeekday, 4}, "thursday": {tokWeekday, 4},
	"fri": {tokWeekday, 5}, "friday": {tokWeekday, 5},
	"sat": {tokWeekday, 6}, "saturday": {tokWeekday, 6},
	"am": {tokAMPM, 1}, "pm": {tokAMPM, 2},
	"ad": {tokEra, 0}, "bc": {tokEra, 1},
	"t": {tokISOMark, 0},
	"z": {tokUTC, 0}, "zulu": {tokUTC, 0}, "utc": {tokUTC, 0}, "gmt": {tokUTC, 0}, "ut": {tokUTC, 0},
	"epoch": {tokSpecial, specialEpoch}, "infinity": {tokSpecial, specialInfinity},
	"now": {tokSpecial, specialNow}, "today": {tokSpecial, specialToday},
	"tomorrow": {tokSpecial, specialTomorrow}, "yesterday": {tokSpecial, specialYesterday},
	"allballs": {tokSpecial, specialAllBalls},
}
