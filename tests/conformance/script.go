package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// scriptCase is one case of a script: steps run in order.
type scriptCase struct {
	name  string
	steps []step
}

// step is one line of a case.
type step struct {
	line    int
	session string
	// kind is "simple", "batch", "start", "wait", "connect" or "sleep".
	kind string
	sql  string
	// params are a connect step's startup parameters.
	params map[string]string
	pause  time.Duration
	// differs, if set, is why the step's answers may differ.
	differs string
}

// records reports whether the step has an answer to compare.
func (s step) records() bool {
	return s.kind == "simple" || s.kind == "batch" || s.kind == "copyout" || s.kind == "wait"
}

// parseScript reads the cases of a script file.
func parseScript(path string) ([]scriptCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []scriptCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", path, n, fmt.Sprintf(format, args...))
		}
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "==="):
			cases = append(cases, scriptCase{name: strings.TrimSpace(strings.TrimPrefix(line, "==="))})
			continue
		case len(cases) == 0:
			if strings.HasPrefix(line, "#") {
				continue
			}
			return nil, fail("a step before the first case")
		}
		c := &cases[len(cases)-1]
		if reason, ok := strings.CutPrefix(line, "# differs:"); ok {
			if len(c.steps) == 0 || !c.steps[len(c.steps)-1].records() {
				return nil, fail("# differs: follows no step with an answer")
			}
			c.steps[len(c.steps)-1].differs = strings.TrimSpace(reason)
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		st, err := parseStep(line)
		if err != nil {
			return nil, fail("%v", err)
		}
		st.line = n
		c.steps = append(c.steps, st)
	}
	return cases, sc.Err()
}

func parseStep(line string) (step, error) {
	if d, ok := strings.CutPrefix(line, "sleep "); ok {
		pause, err := time.ParseDuration(strings.TrimSpace(d))
		return step{kind: "sleep", pause: pause}, err
	}
	end := strings.IndexFunc(line, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	if end <= 0 {
		return step{}, fmt.Errorf("a step must begin with a session name: %q", line)
	}
	session, rest := line[:end], strings.TrimSpace(line[end:])
	st := step{session: session}
	switch {
	case strings.HasPrefix(rest, ">"):
		st.kind, st.sql = "simple", strings.TrimSpace(rest[1:])
	case strings.HasPrefix(rest, "batch> "):
		st.kind, st.sql = "batch", strings.TrimSpace(rest[len("batch> "):])
	case strings.HasPrefix(rest, "copyout> "):
		st.kind, st.sql = "copyout", strings.TrimSpace(rest[len("copyout> "):])
	case strings.HasPrefix(rest, "&>"):
		st.kind, st.sql = "start", strings.TrimSpace(rest[2:])
	case rest == "<":
		st.kind = "wait"
	case strings.HasPrefix(rest, "connect"):
		st.kind, st.params = "connect", map[string]string{}
		for _, kv := range strings.Fields(strings.TrimPrefix(rest, "connect")) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return step{}, fmt.Errorf("connect parameter %q is not K=V", kv)
			}
			st.params[k] = v
		}
	default:
		return step{}, fmt.Errorf("cannot parse step %q", line)
	}
	return st, nil
}

// system is a server the cases run against.
type system struct {
	name string
	dsn  string
}

// session is one connection of a case.
type session struct {
	conn    *pgconn.PgConn
	started chan string
}

// run runs c's steps against sys and returns the answer of each step that
// records one (by step index).
func (c scriptCase) run(ctx context.Context, sys system) (map[int]string, error) {
	sessions := map[string]*session{}
	defer func() {
		for _, s := range sessions {
			s.conn.Close(context.Background())
		}
	}()
	open := func(name string, params map[string]string) (*session, error) {
		if s, ok := sessions[name]; ok {
			return s, nil
		}
		cfg, err := pgconn.ParseConfig(sys.dsn)
		if err != nil {
			return nil, err
		}
		for k, v := range params {
			cfg.RuntimeParams[k] = v
		}
		conn, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: session %s: %w", sys.name, name, err)
		}
		s := &session{conn: conn}
		sessions[name] = s
		return s, nil
	}
	answers := map[int]string{}
	for i, st := range c.steps {
		if st.kind == "sleep" {
			time.Sleep(st.pause)
			continue
		}
		s, err := open(st.session, st.params)
		if err != nil {
			return nil, err
		}
		switch st.kind {
		case "simple":
			answers[i] = simple(ctx, s.conn, st.sql)
		case "batch":
			answers[i] = batch(ctx, s.conn, st.sql)
		case "copyout":
			answers[i] = copyOut(ctx, s.conn, st.sql)
		case "start":
			s.started = make(chan string, 1)
			go func(ch chan string) { ch <- simple(ctx, s.conn, st.sql) }(s.started)
		case "wait":
			if s.started == nil {
				return nil, fmt.Errorf("line %d: session %s started nothing", st.line, st.session)
			}
			select {
			case answers[i] = <-s.started:
			case <-time.After(time.Minute):
				return nil, fmt.Errorf("%s: line %d: session %s's statement did not end within a minute", sys.name, st.line, st.session)
			}
			s.started = nil
		}
	}
	return answers, nil
}

// simple runs sql as one Query message and formats every result.
func simple(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	results, err := conn.Exec(ctx, sql).ReadAll()
	return format(results, err)
}

// batch runs the statements of sql (separated by ";;") as one pipeline:
// Parse/Bind/Execute each, then one Sync.
func batch(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	b := &pgconn.Batch{}
	for stmt := range strings.SplitSeq(sql, ";;") {
		b.ExecParams(strings.TrimSpace(stmt), nil, nil, nil, nil)
	}
	results, err := conn.ExecBatch(ctx, b).ReadAll()
	return format(results, err)
}

// copyOut runs a COPY ... TO STDOUT and renders its data (escaped as a
// Go string, so that binary data and line ends show; text lines sorted,
// as a table's rows have no order) and tag.
func copyOut(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	var buf bytes.Buffer
	tag, err := conn.CopyTo(ctx, &buf, sql)
	if err != nil {
		return format(nil, err)
	}
	data := buf.String()
	if !strings.HasPrefix(data, "PGCOPY") {
		lines := strings.SplitAfter(data, "\n")
		slices.Sort(lines)
		data = strings.Join(lines, "")
	}
	return strconv.Quote(data) + "\n" + tag.String()
}

// format renders results: column names, rows (NULL for null), the command
// tag; then the SQLSTATE of an error.
func format(results []*pgconn.Result, err error) string {
	var b strings.Builder
	for _, r := range results {
		if r.Err != nil {
			err = r.Err
			break
		}
		if len(r.FieldDescriptions) > 0 {
			names := make([]string, len(r.FieldDescriptions))
			for i, f := range r.FieldDescriptions {
				names[i] = f.Name
			}
			fmt.Fprintf(&b, "[%s]\n", strings.Join(names, "|"))
		}
		for _, row := range r.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = string(v)
				}
			}
			b.WriteString(strings.Join(vals, "|") + "\n")
		}
		b.WriteString(r.CommandTag.String() + "\n")
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			fmt.Fprintf(&b, "ERROR %s\n", pe.Code)
		} else {
			fmt.Fprintf(&b, "ERROR %v\n", err)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
