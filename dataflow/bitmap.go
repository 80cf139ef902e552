package dataflow

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Bitmap is a set of vnodes.
type Bitmap struct {
	words []uint64
	n     int
}

// NewBitmap returns an empty set over vnodes 0..n-1.
func NewBitmap(n int) *Bitmap { return &Bitmap{words: make([]uint64, (n+63)/64), n: n} }

// FullBitmap returns the set of all vnodes 0..n-1.
func FullBitmap(n int) *Bitmap {
	b := NewBitmap(n)
	for i := 0; i < n; i++ {
		b.Set(i)
	}
	return b
}

// Set adds vnode v.
func (b *Bitmap) Set(v int) { b.words[v/64] |= 1 << (v % 64) }

// Clear removes vnode v.
func (b *Bitmap) Clear(v int) { b.words[v/64] &^= 1 << (v % 64) }

// Has reports whether vnode v is in the set.
func (b *Bitmap) Has(v int) bool { return b.words[v/64]&(1<<(v%64)) != 0 }

// Len returns the number of vnodes in the set.
func (b *Bitmap) Len() int {
	n := 0
	for _, w := range b.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Equal reports whether b and o hold the same vnodes.
func (b *Bitmap) Equal(o *Bitmap) bool { return b.n == o.n && slices.Equal(b.words, o.words) }

// minus returns the vnodes in b but not in o.
func (b *Bitmap) minus(o *Bitmap) *Bitmap {
	out := NewBitmap(b.n)
	for i := range out.words {
		out.words[i] = b.words[i] &^ o.words[i]
	}
	return out
}

// Size returns the number of vnodes the set ranges over (G).
func (b *Bitmap) Size() int { return b.n }

// Each calls fn for each vnode in the set, in increasing order.
func (b *Bitmap) Each(fn func(v int)) {
	for i, w := range b.words {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(i*64 + t)
			w &^= 1 << t
		}
	}
}

// String renders the set as ranges, e.g. "0-63,128".
func (b *Bitmap) String() string {
	var parts []string
	start, prev := -1, -2
	flush := func() {
		if start < 0 {
			return
		}
		if start == prev {
			parts = append(parts, strconv.Itoa(start))
		} else {
			parts = append(parts, strconv.Itoa(start)+"-"+strconv.Itoa(prev))
		}
	}
	b.Each(func(v int) {
		if v != prev+1 {
			flush()
			start = v
		}
		prev = v
	})
	flush()
	return strings.Join(parts, ",")
}
