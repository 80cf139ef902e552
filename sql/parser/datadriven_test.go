package parser

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/streamdb/streamdb/pgerror"
)

var rewriteData = flag.Bool("rewrite", false, "rewrite the expected outputs in testdata/")

// TestDataDriven runs the corpus files in testdata/. Each case is
//
//	directive
//	input SQL (one or more lines)
//	----
//	expected output (no blank lines)
//
// separated by blank lines; lines starting with # between cases are
// comments. Directives: translate (the text given to TiDB) and parse (the
// parse as TiDB restores it, or the utility statement). Run with -rewrite
// to regenerate the expected outputs.
func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runDataFile(t, file) })
	}
}

type dataCase struct {
	comments                   string // the # lines before the case
	directive, input, expected string
	line                       int
}

func runDataFile(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range splitCases(t, file, string(raw)) {
		got := runCase(c)
		if *rewriteData {
			fmt.Fprintf(&out, "%s%s\n%s\n----\n%s\n\n", c.comments, c.directive, c.input, got)
			continue
		}
		if got != c.expected {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", file, c.line, c.directive, c.input, got, c.expected)
		}
	}
	if *rewriteData {
		if err := os.WriteFile(file, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// splitCases parses a corpus file.
func splitCases(t *testing.T, file, raw string) []dataCase {
	lines := strings.Split(raw, "\n")
	var cases []dataCase
	var comments strings.Builder
	for i := 0; i < len(lines); {
		line := lines[i]
		if strings.HasPrefix(line, "#") {
			comments.WriteString(line + "\n")
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			i++
			continue
		}
		c := dataCase{comments: comments.String(), directive: line, line: i + 1}
		comments.Reset()
		i++
		var in, exp []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		if i >= len(lines) {
			t.Fatalf("%s:%d: case without ----", file, c.line)
		}
		i++
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			exp = append(exp, lines[i])
			i++
		}
		c.input, c.expected = strings.Join(in, "\n"), strings.Join(exp, "\n")
		cases = append(cases, c)
	}
	return cases
}

func runCase(c dataCase) string {
	sts, err := Parse(c.input)
	if err != nil {
		return describeError(err)
	}
	var lines []string
	for _, st := range sts {
		switch c.directive {
		case "translate":
			if st.AST == nil {
				lines = append(lines, "utility statement")
				continue
			}
			lines = append(lines, strings.ReplaceAll(st.translated, "\n", `\n`))
		case "parse":
			lines = append(lines, describe(st))
		default:
			return "unknown directive " + c.directive
		}
	}
	return strings.Join(lines, "\n")
}

func describeError(err error) string {
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		return "non-pgerror: " + err.Error()
	}
	s := fmt.Sprintf("error %s at %d: %s", pe.Code, pe.Position, pe.Message)
	if pe.Hint != "" {
		s += " (hint: " + pe.Hint + ")"
	}
	return s
}

// describe renders a statement for the corpus: TiDB's restore of the AST
// with every binary operation bracketed, or the utility struct.
func describe(st *Statement) string {
	var parts []string
	if st.AST != nil {
		parts = append(parts, restoreNode(st.AST))
	} else {
		parts = append(parts, describeValue(reflect.ValueOf(st.Utility)))
	}
	if st.NumParams > 0 {
		parts = append(parts, fmt.Sprintf("params=%d", st.NumParams))
	}
	if st.Returning != nil {
		var fs []string
		for _, f := range st.Returning {
			fs = append(fs, restoreNode(f))
		}
		parts = append(parts, "returning "+strings.Join(fs, ", "))
	}
	return strings.ReplaceAll(strings.Join(parts, " | "), "\n", `\n`)
}

func restoreNode(n ast.Node) string {
	var b strings.Builder
	flags := format.RestoreKeyWordUppercase | format.RestoreNameBackQuotes | format.RestoreStringSingleQuotes |
		format.RestoreBracketAroundBinaryOperation
	if err := n.Restore(format.NewRestoreCtx(flags, &b)); err != nil {
		return "restore error: " + err.Error()
	}
	return b.String()
}

// describeValue prints utility structs compactly: zero fields are left out.
func describeValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		if n, ok := v.Interface().(ast.Node); ok {
			return restoreNode(n)
		}
		if st, ok := v.Interface().(*Statement); ok {
			return "{" + describe(st) + "}"
		}
		return describeValue(v.Elem())
	case reflect.Struct:
		var fs []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || v.Field(i).IsZero() {
				continue
			}
			fs = append(fs, f.Name+"="+describeValue(v.Field(i)))
		}
		return v.Type().Name() + "{" + strings.Join(fs, " ") + "}"
	case reflect.Slice:
		var es []string
		for i := 0; i < v.Len(); i++ {
			es = append(es, describeValue(v.Index(i)))
		}
		return "[" + strings.Join(es, " ") + "]"
	case reflect.Map:
		var es []string
		for _, k := range v.MapKeys() {
			es = append(es, fmt.Sprintf("%v:%q", k, v.MapIndex(k)))
		}
		sort.Strings(es)
		return "map[" + strings.Join(es, " ") + "]"
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}
