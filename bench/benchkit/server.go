package benchkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a `streamdb start` child process serving on a free loopback
// port from a temporary data directory of its own.
type Server struct {
	cmd  *exec.Cmd
	dir  string
	addr string
	// httpAddr is the server's HTTP listener (metrics), "" if off.
	httpAddr string
	logs     *logTail
	// logFile, if set, receives the server's whole log (LogDirEnv).
	logFile *os.File
	// exited is closed once the process has exited; waitErr is then set.
	exited  chan struct{}
	waitErr error
}

// LogDirEnv names the environment variable that, when set to a directory,
// has every server of a bench write its whole log there (one file per
// data directory's name): what a run's servers did, for a diagnosis.
const LogDirEnv = "STREAMDB_BENCH_LOG_DIR"

// readyTimeout bounds how long a new server may take to accept clients.
const readyTimeout = 60 * time.Second

// readyAddr finds the address in the server's "streamdb ready" log line,
// readyHTTP the address of its HTTP listener.
var (
	readyAddr = regexp.MustCompile(`msg="streamdb ready".* addr=(\S+)`)
	readyHTTP = regexp.MustCompile(`msg="streamdb ready".* http_addr=(\S+)`)
)

// StartServer runs bin (the streamdb binary) as `streamdb start` with
// parallelism actors per fragment and barrierMS between barriers, and
// waits until it accepts connections.
func StartServer(ctx context.Context, bin string, parallelism, barrierMS int, extra ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", "streamdb-bench-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, logs: &logTail{}, exited: make(chan struct{})}
	if logDir := os.Getenv(LogDirEnv); logDir != "" {
		if s.logFile, err = os.Create(filepath.Join(logDir, filepath.Base(dir)+".log")); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s: %w", LogDirEnv, err)
		}
	}
	args := []string{"start", "--listen", "127.0.0.1:0", "--data-dir", dir, "--parallelism", strconv.Itoa(parallelism),
		"--barrier-interval-ms", strconv.Itoa(barrierMS)}
	if !slices.Contains(extra, "--cluster-addr") {
		args = append(args, "--cluster-addr", "127.0.0.1:0")
	}
	s.cmd = exec.Command(bin, append(args, extra...)...)
	// The server stops with the bench, however the bench ends.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w (build it with `make build`)", bin, err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.logs.add(line)
			if s.logFile != nil {
				fmt.Fprintln(s.logFile, line)
			}
			if m := readyAddr.FindStringSubmatch(line); m != nil {
				if h := readyHTTP.FindStringSubmatch(line); h != nil && h[1] != `""` {
					s.httpAddr = h[1]
				}
				select {
				case ready <- m[1]:
				default:
				}
			}
		}
		// Drain what the scanner could not split (a line too long).
		_, _ = io.Copy(io.Discard, stderr)
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.addr = <-ready:
		return s, nil
	case <-s.exited:
		err = fmt.Errorf("streamdb start exited before accepting connections (%v); its log:\n%s", s.waitErr, s.logs)
	case <-time.After(readyTimeout):
		err = fmt.Errorf("streamdb start did not accept connections within %v; its log:\n%s", readyTimeout, s.logs)
	case <-ctx.Done():
		err = ctx.Err()
	}
	return nil, errors.Join(err, s.Stop())
}

// StartCluster runs n streamdb processes on loopback as one cluster (the
// first starts it, the others join it) with parallelism actors per
// fragment of each job (0: the cluster's cores) and barrierMS between
// barriers, node i (from 1) with the flags extra(i) if extra is not nil;
// it returns them in order once every one accepts clients.
func StartCluster(ctx context.Context, bin string, n, parallelism, barrierMS int, extra func(node int) []string) ([]*Server, error) {
	first, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var out []*Server
	for i := range n {
		var s *Server
		for try := 1; ; try++ {
			addr := first
			if i > 0 {
				if addr, err = freeAddr(); err != nil {
					break
				}
			}
			flags := []string{"--node-id", fmt.Sprintf("n%d", i+1), "--cluster-addr", addr}
			if extra != nil {
				flags = append(flags, extra(i+1)...)
			}
			if i > 0 {
				flags = append(flags, "--join", first)
			}
			s, err = StartServer(ctx, bin, parallelism, barrierMS, flags...)
			// Another process may take the free address before the node
			// binds it: the node then starts again on another.
			if err == nil || try == startTries || !strings.Contains(err.Error(), "address already in use") {
				break
			}
			if i == 0 {
				if first, err = freeAddr(); err != nil {
					break
				}
			}
		}
		if err != nil {
			break
		}
		out = append(out, s)
	}
	if err != nil {
		for _, s := range out {
			err = errors.Join(err, s.Stop())
		}
		return nil, err
	}
	return out, nil
}

// startTries bounds the starts of a cluster's node whose address was
// taken meanwhile.
const startTries = 3

// freeAddr returns a free loopback address.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// ConnString is a pgx connection string for the server.
func (s *Server) ConnString() string {
	return fmt.Sprintf("postgres://bench@%s/streamdb?sslmode=disable", s.addr)
}

// HTTPAddr is the address of the server's HTTP listener (/metrics), ""
// if it serves none (--http-addr ”).
func (s *Server) HTTPAddr() string { return s.httpAddr }

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Dir is the server's data directory.
func (s *Server) Dir() string { return s.dir }

// Logs returns the last lines of the server's log.
func (s *Server) Logs() string { return s.logs.String() }

// Failed returns an error if the server exited on its own.
func (s *Server) Failed() error {
	select {
	case <-s.exited:
		return fmt.Errorf("the server exited (%v); its log:\n%s", s.waitErr, s.logs)
	default:
		return nil
	}
}

// stopTimeout is how long a server may take to shut down before it is
// killed.
const stopTimeout = 15 * time.Second

// Stop shuts the server down (SIGTERM, then SIGKILL after stopTimeout)
// and removes its data directory.
func (s *Server) Stop() error {
	defer os.RemoveAll(s.dir)
	if s.logFile != nil {
		defer s.logFile.Close()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("streamdb did not stop within %v of SIGTERM and was killed; its log:\n%s", stopTimeout, s.logs)
	}
}

// logTail keeps the last lines of a server's log for error messages.
type logTail struct {
	mu    sync.Mutex
	lines []string
}

// tailLines is how many log lines a logTail keeps.
const tailLines = 20

func (l *logTail) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == tailLines {
		l.lines = l.lines[1:]
	}
	l.lines = append(l.lines, line)
}

// String returns the kept lines.
func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
