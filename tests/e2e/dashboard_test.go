package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// chromium is the browser the dashboard test drives (Debian's chromium).
const chromium = "/usr/bin/chromium"

var dashboardScreenshot = flag.String("dashboard.screenshot", "",
	"write TestDashboardRescale's screenshot of the dashboard during the rescale to this PNG file (relative to tests/e2e)")

// browserStarts is how many times startBrowser launches Chromium before it
// gives up: on a loaded CI machine Chromium has been seen to crash while
// starting (its crash reporter's output and no DevTools address), which says
// nothing about the dashboard.
const browserStarts = 3

// startBrowser launches headless Chromium with its profile and temporary
// files in the test's directory and returns a browser context, closed when
// the test ends.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	for try := 1; ; try++ {
		tmp := t.TempDir()
		opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
			chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1200, 900),
			chromedp.UserDataDir(tmp), chromedp.Env("TMPDIR="+tmp))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		browser, cancelBrowser := chromedp.NewContext(alloc)
		// The first run, of no actions, starts the browser.
		err := chromedp.Do(browser)
		if err == nil {
			t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
			return browser
		}
		cancelBrowser()
		cancelAlloc()
		if try == browserStarts || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("start Chromium (try %d of %d): %v", try, browserStarts, err)
		}
		t.Logf("Chromium did not start (try %d of %d), starting it again: %v", try, browserStarts, err)
	}
}

// TestDashboardRescale loads the dashboard in headless Chromium, rescales
// a keyed view from 3 to 5 actors and watches the page's vnode map go
// from 3 owners to 5 while the rescale's progress bar fills.
func TestDashboardRescale(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("the dashboard test drives headless Chromium at %s: %v (install Debian's chromium package: apt-get install chromium; .ci/run does)", chromium, err)
	}
	// Enough groups that a fluid rescale one vnode a step takes about a
	// hundred steps.
	_, addr, p := startPrepared(t,
		"CREATE TABLE t (id BIGINT PRIMARY KEY, k BIGINT)",
		"CREATE MATERIALIZED VIEW v WITH (parallelism = 3) AS SELECT k, count(*) AS n FROM t GROUP BY k",
		"INSERT INTO t SELECT g, g FROM generate_series(1, 300000) g")
	defer p.kill()
	browser := startBrowser(t)
	// The page polls every 100 ms, to see the rescale's steps.
	if _, err := chromedp.Run(browser, chromedp.Navigate("http://"+p.httpAddr()+"/?poll=100")); err != nil {
		t.Fatalf("load the dashboard: %v", err)
	}
	ctx, cancel := context.WithTimeout(browser, 3*time.Minute)
	defer cancel()
	const cells = `document.querySelectorAll('[data-job-name="v"] [data-vnode]')`
	// actors lists the distinct actors the map of view v shows, once it
	// shows all 256 vnodes.
	actors := fmt.Sprintf(`(() => { const c = [...%s]; return c.length === 256 ? [...new Set(c.map((e) => +e.dataset.actor))].sort((a, b) => a - b) : null })()`, cells)
	wait := func(what, expr string) string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Poll[string](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute)))
		if err != nil {
			t.Fatalf("waiting for the dashboard to show %s: %v", what, err)
		}
		return got
	}
	wait("view v's vnodes owned by actors 0, 1 and 2", fmt.Sprintf(`(() => { const a = %s; return a && a.join() === "0,1,2" && "ok" })()`, actors))
	title, err := chromedp.Run(ctx, chromedp.Evaluate[string](cells+`[17].title`))
	if err != nil || !strings.HasPrefix(title, "vnode 17 · actor ") {
		t.Errorf("tooltip of vnode 17: %q (%v), want vnode, actor and node", title, err)
	}
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 5 WITH (strategy = 'fluid', step = 1, wait = false)"); err != nil {
		t.Fatal(err)
	}
	// The rescale shows: moving with some vnodes moved (then the shot),
	// or already done when the page first sees it.
	phase := wait("view v's rescale", `(() => { const r = document.querySelector('[data-rescale]');
		if (!r) return false;
		if (r.dataset.phase !== "moving") return r.dataset.phase;
		return +r.dataset.moved > 0 && +r.dataset.moved < +r.dataset.total && "moving" })()`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	t.Logf("the page showed the rescale %s first", phase)
	if phase == "failed" {
		t.Fatal("the rescale failed: " + wait("its error", `document.querySelector('[data-rescale]').textContent`))
	}
	wait("view v's vnodes owned by five actors", fmt.Sprintf(`(() => { const a = %s; return a && a.length === 5 && "ok" })()`, actors))
	wait("the rescale done, 102 vnodes moved", `(() => { const r = document.querySelector('[data-rescale]');
		return r.dataset.phase === "done" && r.dataset.moved === r.dataset.total && +r.dataset.total > 0 && "ok" })()`)
	nodes := wait("the node with its 5+1 actors", `(() => { const r = document.querySelector('#nodes [data-node]'); return r && r.textContent.includes("up") && r.cells[4].textContent })()`)
	if nodes != "6" {
		t.Errorf("the node's actors shown: %s, want 6 (the table's writer and the view's 5)", nodes)
	}
	if *dashboardScreenshot != "" {
		if err := os.WriteFile(*dashboardScreenshot, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
