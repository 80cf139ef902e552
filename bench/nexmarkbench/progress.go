package nexmarkbench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress shows how far a query run is on stderr: redrawn in place on a
// terminal, a plain line every plainEvery otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	label string
	// last is when a line was last written (plain mode).
	last time.Time
	// width is the length of the last line drawn (terminal mode).
	width int
}

// plainEvery is the interval between progress lines when stderr is not a
// terminal.
const plainEvery = 5 * time.Second

// barWidth is the number of cells of the drawn bar.
const barWidth = 30

// newProgress returns a progress display for label on w.
func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, tty: isTerminal(w), label: label, last: time.Now()}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// update shows that done events of total are committed after elapsed.
func (p *progress) update(done, total int64, elapsed time.Duration) {
	line := progressLine(p.label, done, total, elapsed)
	if p.tty {
		pad := max(p.width-len(line), 0)
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
		p.width = len(line)
		return
	}
	if time.Since(p.last) >= plainEvery {
		fmt.Fprintln(p.w, line)
		p.last = time.Now()
	}
}

// finish ends the display (the terminal line is cleared).
func (p *progress) finish() {
	if p.tty && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
}

// progressLine renders "label [=====>    ]  45%  123,456 events/s  3.2s".
func progressLine(label string, done, total int64, elapsed time.Duration) string {
	frac := 0.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	cells := int(frac * barWidth)
	bar := strings.Repeat("=", cells)
	if cells < barWidth {
		bar += ">" + strings.Repeat(" ", barWidth-cells-1)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	return fmt.Sprintf("%-14s [%s] %3.0f%%  %s events/s  %.1fs", label, bar, frac*100, thousands(int64(rate)), elapsed.Seconds())
}

// thousands formats n with comma separators: 1234567 is "1,234,567".
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
