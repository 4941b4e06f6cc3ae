// Package ids makes the random and time-ordered identifiers of bookings, prebooks,
// events and requests.
package ids

import (
	"crypto/rand"
	"time"
)

// Alnum and Base62 are alphabets for Random.
const (
	Alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	Base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// sortable62 is base62 in byte order, for the part of an id that orders it.
const sortable62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// SortableAlnum is Alnum in byte order, for Cyclic.
const SortableAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Cyclic returns n characters of alphabet (which must be in byte order) that count at's
// time since 1970 in steps of step, modulo len(alphabet)^n: they grow with time and
// wrap around. A code that starts with them puts codes made together next to each other
// in an index, while over the cycles its values spread over the whole code space as
// random ones would.
func Cyclic(alphabet string, at time.Time, step time.Duration, n int) string {
	return string(appendDigits(make([]byte, 0, n), alphabet, max(at.UnixNano(), 0)/int64(step), n))
}

// appendDigits appends v's n last digits in alphabet's base, most significant first
// (the digits beyond n are dropped: v modulo len(alphabet)^n).
func appendDigits(out []byte, alphabet string, v int64, n int) []byte {
	out = append(out, make([]byte, n)...) // no allocation: append grows by a constant
	for i := len(out) - 1; i >= len(out)-n; i-- {
		out[i] = alphabet[v%int64(len(alphabet))]
		v /= int64(len(alphabet))
	}
	return out
}

// Random returns n characters drawn uniformly from alphabet by crypto/rand.
func Random(alphabet string, n int) string {
	return string(appendRandom(make([]byte, 0, n), alphabet, n))
}

// appendRandom appends n characters drawn uniformly from alphabet by crypto/rand: one
// read of random bytes, each byte below the largest multiple of len(alphabet) taken
// modulo it, the others skipped (no bias), rather than a big.Int per character.
func appendRandom(out []byte, alphabet string, n int) []byte {
	limit := 256 - 256%len(alphabet)
	var buf [64]byte
	for want := len(out) + n; len(out) < want; {
		if _, err := rand.Read(buf[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		for _, b := range buf {
			if int(b) < limit {
				out = append(out, alphabet[int(b)%len(alphabet)])
				if len(out) == want {
					break
				}
			}
		}
	}
	return out
}

// TimeOrdered returns prefix, 9 characters of at (microseconds since 1970, in byte
// order) and 15 random base62 ones (89 bits: what makes it unique). Ids made one after
// another then sort by time and land next to each other in an index (a right-edge
// insert) instead of on a random page each, which is what a database writes for every
// row that carries one. One allocation (the string) for a prefix of up to 40 bytes: it
// is made for every API request that brings no X-Request-Id.
func TimeOrdered(prefix string, at time.Time) string {
	var arr [64]byte
	buf := appendDigits(append(arr[:0], prefix...), sortable62, max(at.UnixMicro(), 0), 9)
	return string(appendRandom(buf, Base62, 15))
}
