package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

func connect(t *testing.T, addr string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds bin/streamdb once per test run into a temp dir.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "streamdb-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "streamdb")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/streamdb/streamdb/cmd/streamdb").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// process is a streamdb server running as a child process.
type process struct {
	cmd  *exec.Cmd
	addr string
	logs *strings.Builder
	mu   *sync.Mutex
}

// startProcess runs `streamdb start` on listen/dataDir, with more flags
// if given (a free cluster address and HTTP address unless they name
// one), and waits for its ready line; a server that exits first fails
// the test with its log.
func startProcess(t testing.TB, dataDir, listen string, flags ...string) *process {
	t.Helper()
	args := []string{"start", "--listen", listen, "--data-dir", dataDir}
	if !slices.Contains(flags, "--cluster-addr") {
		args = append(args, "--cluster-addr", "127.0.0.1:0")
	}
	if !slices.Contains(flags, "--http-addr") {
		args = append(args, "--http-addr", "127.0.0.1:0")
	}
	cmd := exec.Command(binary(t), append(args, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, addr: listen, logs: &strings.Builder{}, mu: &sync.Mutex{}}
	ready, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			p.mu.Lock()
			p.logs.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if strings.Contains(sc.Text(), "streamdb ready") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-exited:
		select {
		case <-ready:
		default:
			t.Fatalf("server exited before it was ready; logs:\n%s", p.output())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("server did not become ready; logs:\n%s", p.output())
	}
	return p
}

// httpAddrRE finds the HTTP listener's address in a ready line, as text
// (http_addr=host:port) or JSON ("http_addr":"host:port").
var httpAddrRE = regexp.MustCompile(`http_addr"?[=:]"?([^\s"]+)`)

// httpAddr returns the address of the process's HTTP listener, from its
// ready line ("" if none).
func (p *process) httpAddr() string {
	if m := httpAddrRE.FindStringSubmatch(p.output()); m != nil {
		return m[1]
	}
	return ""
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// kill sends SIGKILL and waits for the process to die.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}
