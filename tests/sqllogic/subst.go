package sqllogic

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// substituter expands variables in SQL once a file turns
// "control substitution on": ${name}, ${name:default} and $name, where name is
// a variable set by let, one of __TEST_DIR__ (a temporary directory kept for
// the file), __NOW__ (nanoseconds since the Unix epoch) and __DATABASE__, or
// an environment variable. \$ stands for a literal '$'.
type substituter struct {
	vars     map[string]string
	database string
	testDir  string // created on first use
}

// lookup returns the value of variable name.
func (s *substituter) lookup(name string) (string, bool, error) {
	switch name {
	case "__TEST_DIR__":
		if s.testDir == "" {
			d, err := os.MkdirTemp("", "sqllogic-")
			if err != nil {
				return "", false, err
			}
			s.testDir = d
		}
		return s.testDir, true, nil
	case "__NOW__":
		return strconv.FormatInt(time.Now().UnixNano(), 10), true, nil
	case "__DATABASE__":
		return s.database, true, nil
	}
	if v, ok := s.vars[name]; ok {
		return v, true, nil
	}
	v, ok := os.LookupEnv(name)
	return v, ok, nil
}

// set gives variable name the value v.
func (s *substituter) set(name, v string) {
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	s.vars[name] = v
}

// nameLen returns the length of the variable name at the start of s.
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

// expand substitutes the variables in text.
func (s *substituter) expand(text string) (string, error) {
	if !strings.ContainsRune(text, '$') {
		return text, nil
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\\' && strings.HasPrefix(text[i+1:], "$"):
			b.WriteByte('$')
			i += 2
			continue
		case c != '$':
			b.WriteByte(c)
			i++
			continue
		}
		var name, def string
		hasDef := false
		if strings.HasPrefix(text[i+1:], "{") {
			end := strings.IndexByte(text[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("unterminated \"${\" in %q", text)
			}
			name, def, hasDef = strings.Cut(text[i+2:i+2+end], ":")
			i += 3 + end
		} else {
			n := nameLen(text[i+1:])
			if n == 0 || strings.HasPrefix(text[i+1+n:], "$") {
				// "$1", "$$" or a dollar-quote tag like "$body$": not a variable.
				b.WriteString(text[i : i+1+n])
				i += 1 + n
				continue
			}
			name = text[i+1 : i+1+n]
			i += 1 + n
		}
		v, ok, err := s.lookup(name)
		switch {
		case err != nil:
			return "", fmt.Errorf("substituting $%s: %v", name, err)
		case !ok && !hasDef:
			return "", fmt.Errorf("undefined variable $%s (set it with let or in the environment)", name)
		case !ok:
			v = def
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// close removes the __TEST_DIR__ directory, if one was made.
func (s *substituter) close() {
	if s.testDir != "" {
		os.RemoveAll(s.testDir)
		s.testDir = ""
	}
}
