package pgbaseline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Binaries returns the directory of the newest PostgreSQL server binaries
// installed (Debian's /usr/lib/postgresql/N/bin, or initdb on the PATH),
// or "" when there are none.
func Binaries() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return majorVersion(a) - majorVersion(b) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if isServerDir(dirs[i]) {
			return dirs[i]
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && isServerDir(filepath.Dir(p)) {
		return filepath.Dir(p)
	}
	return ""
}

// majorVersion reads N from .../postgresql/N/bin (0 if it is no number).
func majorVersion(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// isServerDir reports whether dir holds initdb and pg_ctl.
func isServerDir(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// Server is a PostgreSQL server on a free loopback port, its cluster in
// a temporary directory. PostgreSQL refuses to run as root: then it runs
// as the user postgres (through runuser).
type Server struct {
	bin, dir string
	port     int
	// runAs is the user running the server, "" for the current one.
	runAs string
}

// Start creates a cluster with initdb and starts it with pg_ctl. The
// settings are PostgreSQL's defaults (commits are synced), except that
// it listens on loopback only, and the extra settings ("name=value", such
// as "TimeZone=UTC").
func Start(ctx context.Context, bin string, settings ...string) (_ *Server, err error) {
	dir, err := os.MkdirTemp("", "streamdb-pgbaseline-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if os.Geteuid() == 0 {
		if err := s.giveToPostgres(); err != nil {
			return nil, err
		}
	}
	if err := s.run(ctx, "initdb", "-D", s.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, err
	}
	if s.port, err = freePort(); err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s", s.port, s.dir)
	for _, set := range settings {
		opts += " -c " + set
	}
	if err := s.run(ctx, "pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		return nil, fmt.Errorf("%w\nPostgreSQL's log:\n%s", err, s.log())
	}
	return s, nil
}

// giveToPostgres makes the server run as the user postgres, which owns
// its directory.
func (s *Server) giveToPostgres() error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("PostgreSQL refuses to run as root and there is no user postgres (%v): run the bench as another user, or install PostgreSQL's server package, which creates that user", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(s.dir, uid, gid); err != nil {
		return err
	}
	s.runAs = u.Username
	return nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs one of PostgreSQL's programs as the server's user.
func (s *Server) run(ctx context.Context, prog string, args ...string) error {
	path := filepath.Join(s.bin, prog)
	if s.runAs != "" {
		args = append([]string{"-u", s.runAs, "--", path}, args...)
		path = "runuser"
	}
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", prog, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// log returns the server's log, for error messages.
func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	return string(b)
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ConnString is the connection string of database db ("postgres" is
// there from the start).
func (s *Server) ConnString(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDatabase creates the empty database name and returns its
// connection string.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	conn, err := pgx.Connect(ctx, s.ConnString("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.ConnString(name), nil
}

// Version returns the server's version, e.g. "15.18".
func (s *Server) Version(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, s.ConnString("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var v string
	err = conn.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return v, err
}

// Restart stops the server (fast shutdown: sessions are cut) and starts it
// again on the same port with the same settings.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.run(ctx, "pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "server.log"), "-m", "fast", "-w", "-t", "60", "restart"); err != nil {
		return fmt.Errorf("%w\nPostgreSQL's log:\n%s", err, s.log())
	}
	return nil
}

// Stop stops the server (fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	err := s.run(context.Background(), "pg_ctl", "-D", s.data(), "-m", "fast", "-w", "stop")
	return errors.Join(err, os.RemoveAll(s.dir))
}
