package nexmark

import (
	"math"
	"math/bits"
	"slices"
)

// smallRng reproduces, draw for draw, the generator nexmark-rs seeds for
// every event: rand 0.8's SmallRng on a 64-bit target (xoshiro256++),
// seeded by SeedableRng's default seed_from_u64 (a PCG32 stream filling
// the 256-bit state), together with the exact sampling algorithms of the
// calls the reference makes. Matching them keeps our events equal to
// RisingWave's value for value.
type smallRng struct{ s0, s1, s2, s3 uint64 }

// seed resets the state as SeedableRng::seed_from_u64(state) does.
func (r *smallRng) seed(state uint64) {
	var w [8]uint64
	for i := range w {
		state = state*6364136223846793005 + 11634580027462260723
		xorshifted := uint32(((state >> 18) ^ state) >> 27)
		w[i] = uint64(bits.RotateLeft32(xorshifted, -int(state>>59)))
	}
	r.s0, r.s1, r.s2, r.s3 = w[0]|w[1]<<32, w[2]|w[3]<<32, w[4]|w[5]<<32, w[6]|w[7]<<32
}

// u64 is xoshiro256++'s next_u64.
func (r *smallRng) u64() uint64 {
	var res uint64
	res, r.s0, r.s1, r.s2, r.s3 = xoshiro(r.s0, r.s1, r.s2, r.s3)
	return res
}

// xoshiro is one xoshiro256++ step on a state the caller may keep in
// registers: it returns the output and the next state.
func xoshiro(s0, s1, s2, s3 uint64) (res, n0, n1, n2, n3 uint64) {
	res = bits.RotateLeft64(s0+s3, 23) + s0
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	return res, s0, s1, s2, bits.RotateLeft64(s3, 45)
}

// u32 is next_u32: the high half of next_u64.
func (r *smallRng) u32() uint32 { return uint32(r.u64() >> 32) }

// below64 is gen_range(0..n) over usize/u64 (n > 0): widening multiply
// with rand's conservative rejection zone.
func (r *smallRng) below64(n uint64) uint64 {
	zone := n<<bits.LeadingZeros64(n) - 1
	for {
		hi, lo := bits.Mul64(r.u64(), n)
		if lo <= zone {
			return hi
		}
	}
}

// below32 is gen_range(0..n) over i32/u32 (n > 0), also what
// SliceRandom::choose draws for slices shorter than 2^32.
func (r *smallRng) below32(n uint32) uint32 {
	zone := n<<bits.LeadingZeros32(n) - 1
	for {
		hi, lo := bits.Mul32(r.u32(), n)
		if lo <= zone {
			return hi
		}
	}
}

// letterZone is gen_range(b'a'..=b'z')'s exact rejection zone: u8 samples
// through u32 with a modulus-computed zone rather than the approximation.
const letterZone = math.MaxUint32 - (1<<32)%26

// appendLetters appends n letters, as gen_exact_string(n): each is
// gen_range(b'a'..=b'z'). The state stays in registers, letters being
// most of the generator's work.
func (r *smallRng) appendLetters(dst []byte, n int64) []byte {
	dst = slices.Grow(dst, int(n))
	out := dst[len(dst) : len(dst)+int(n)]
	s0, s1, s2, s3 := r.s0, r.s1, r.s2, r.s3
	for i := 0; i < len(out); {
		var v uint64
		v, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		hi, lo := bits.Mul32(uint32(v>>32), 26)
		if lo <= letterZone {
			out[i] = 'a' + byte(hi)
			i++
		}
	}
	r.s0, r.s1, r.s2, r.s3 = s0, s1, s2, s3
	return dst[:len(dst)+len(out)]
}

// price is gen_price: 10^(6x) * 100 rounded, x uniform in [0, 1) with 24
// bits as rand's gen::<f32>(), computed in single precision.
func (r *smallRng) price() int64 {
	x := float32(r.u32()>>8) * (1.0 / (1 << 24))
	p := float32(pow10(float32(x * 6)))
	return int64(math.Round(float64(float32(p * 100))))
}

// pow10 is 10^y for the exponents price draws, y = float32(6x): y is
// j·2^-23 with j < 6·2^23, so 10^y is the product of three table entries
// for j's bytes. Rounded to single precision it is powf(10, y) (glibc's
// powf, which Rust calls, may rarely differ by one unit in the last place).
func pow10(y float32) float64 {
	j := uint32(y * (1 << 23))
	return pow10Tables.hi[j>>16] * pow10Tables.mid[j>>8&0xff] * pow10Tables.lo[j&0xff]
}

// pow10Tables hold 10^(a·2^-7), 10^(b·2^-15) and 10^(c·2^-23).
var pow10Tables = func() (t struct{ hi, mid, lo []float64 }) {
	fill := func(n int, scale float64) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = math.Pow(10, float64(i)*scale)
		}
		return p
	}
	return struct{ hi, mid, lo []float64 }{fill(6<<7, 0x1p-7), fill(256, 0x1p-15), fill(256, 0x1p-23)}
}()

// appendExtra appends gen_next_extra: letters padding an event of
// currentSize bytes to desiredAverage bytes on average, uniform within
// ±20% of the padding.
func (r *smallRng) appendExtra(dst []byte, currentSize, desiredAverage int64) []byte {
	if currentSize > desiredAverage {
		return dst
	}
	avg := desiredAverage - currentSize
	delta := (avg + 2) / 5
	size := avg - delta
	if delta > 0 {
		size += int64(r.below64(uint64(2 * delta)))
	}
	return r.appendLetters(dst, size)
}
