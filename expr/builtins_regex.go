package expr

import (
	"regexp"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func init() {
	match := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		re, _, err := regexArgs("regexp_match", a)
		if err != nil {
			return types.Null, err
		}
		s := a[0].Str()
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			return types.Null, nil
		}
		return matchArray(s, m), nil
	}
	RegisterBuiltin("regexp_match",
		sig(textArray, match, types.Text, types.Text),
		sig(textArray, match, types.Text, types.Text, types.Text))
	matches := func(_ *Ctx, a []types.Datum) (SetIter, error) {
		re, global, err := regexArgs("regexp_matches", a)
		if err != nil {
			return nil, err
		}
		s, n := a[0].Str(), 1
		if global {
			n = -1
		}
		all, i := re.FindAllStringSubmatchIndex(s, n), 0
		return func() (types.Datum, bool, error) {
			if i == len(all) {
				return types.Null, false, nil
			}
			i++
			return matchArray(s, all[i-1]), true, nil
		}, nil
	}
	RegisterSetBuiltin("regexp_matches",
		Overload{Args: []types.Family{types.Text, types.Text}, Ret: Returns(textArray), Set: matches},
		Overload{Args: []types.Family{types.Text, types.Text, types.Text}, Ret: Returns(textArray), Set: matches})
}

// regexArgs compiles the pattern of fn(text, pattern [, flags]); global
// reports the flag g (every match), which only regexp_matches takes.
func regexArgs(fn string, a []types.Datum) (re *regexp.Regexp, global bool, err error) {
	flags := ""
	if len(a) > 2 {
		flags = a[2].Str()
	}
	if strings.ContainsRune(flags, 'g') {
		if fn != "regexp_matches" {
			return nil, false, pgerror.New(pgerror.CodeInvalidParameterValue, "%s() does not support the \"global\" option", fn).
				WithHint("Use the regexp_matches function instead.")
		}
		global, flags = true, strings.ReplaceAll(flags, "g", "")
	}
	re, err = compileRegex(a[1].Str(), flags)
	return re, global, err
}

// matchArray is the text[] of a match at submatch indexes m in s: its
// capture groups (NULL for a group that took no part), or the whole match
// when the pattern has none.
func matchArray(s string, m []int) types.Datum {
	if len(m) == 2 {
		return types.NewArray([]types.Datum{types.NewString(s[m[0]:m[1]])})
	}
	groups := make([]types.Datum, 0, len(m)/2-1)
	for g := 2; g < len(m); g += 2 {
		if m[g] < 0 {
			groups = append(groups, types.Null)
			continue
		}
		groups = append(groups, types.NewString(s[m[g]:m[g+1]]))
	}
	return types.NewArray(groups)
}
