package benchkit

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Progress shows how far a run is on stderr: redrawn in place on a
// terminal, a plain line every plainEvery otherwise.
type Progress struct {
	w     io.Writer
	tty   bool
	label string
	// unit names what is counted ("events").
	unit string
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

// NewProgress returns a progress display for label on w, counting unit
// ("events").
func NewProgress(w io.Writer, label, unit string) *Progress {
	return &Progress{w: w, tty: isTerminal(w), label: label, unit: unit, last: time.Now()}
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

// Update shows that done units of total are through after elapsed.
func (p *Progress) Update(done, total int64, elapsed time.Duration) {
	line := ProgressLine(p.label, p.unit, done, total, elapsed)
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

// Finish ends the display (the terminal line is cleared).
func (p *Progress) Finish() {
	if p.tty && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
}

// ProgressLine renders "label [=====>    ]  45%  123,456 unit/s  3.2s".
func ProgressLine(label, unit string, done, total int64, elapsed time.Duration) string {
	frac := 0.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	cells := int(frac * barWidth)
	bar := strings.Repeat("=", cells)
	if cells < barWidth {
		bar += ">" + strings.Repeat(" ", barWidth-cells-1)
	}
	rate := PerSecond(done, elapsed)
	return fmt.Sprintf("%-14s [%s] %3.0f%%  %s %s/s  %.1fs", label, bar, frac*100, Thousands(int64(rate)), unit, elapsed.Seconds())
}

// Thousands formats n with comma separators: 1234567 is "1,234,567".
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Thousands(-n)
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

// PerSecond is n per second of d (0 for no time).
func PerSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
