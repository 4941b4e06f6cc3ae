package reqlog

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// SecretFields are the JSON fields (at any depth, any case) and query parameters whose
// values the request log never stores; docs/request-logs.md lists the same.
var SecretFields = []string{"secret", "signing_secret", "webhook_secret", "client_secret", "api_key", "auth-api-key", "password"}

// Redacted replaces the value of a secret field.
const Redacted = "[redacted]"

func isSecret(name string) bool {
	return slices.ContainsFunc(SecretFields, func(f string) bool { return strings.EqualFold(f, name) })
}

// isSecretToken reports whether the JSON string token tok (quotes included) names a
// secret field, without building a string for the common key: plain ASCII is compared
// in place (ASCII case folding); a key with an escape or a non-ASCII byte (which
// Unicode case folding may equate with a secret name) is decoded and compared as
// isSecret does.
func isSecretToken(tok []byte) bool {
	name := tok[1 : len(tok)-1]
	if len(name) < minSecretLen || len(name) > maxSecretLen*utf8.UTFMax {
		return false
	}
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf {
			return isSecret(unquote(tok))
		}
	}
	if len(name) > maxSecretLen {
		return false
	}
	for _, f := range SecretFields {
		if len(f) == len(name) && equalFoldASCII(name, f) {
			return true
		}
	}
	return false
}

var minSecretLen, maxSecretLen = func() (int, int) {
	lo, hi := len(SecretFields[0]), 0
	for _, f := range SecretFields {
		lo, hi = min(lo, len(f)), max(hi, len(f))
	}
	return lo, hi
}()

// equalFoldASCII: b and s (of equal length, ASCII) equal but for the case of letters.
func equalFoldASCII(b []byte, s string) bool {
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// RedactJSON returns body with the string value of every secret field replaced by
// Redacted. It scans the text rather than decoding it, so that it also redacts a body cut
// in the middle (the stored 64 KB) and leaves every other byte as it was; a value cut by
// the end of the body is replaced whole. A body that is not JSON is returned unchanged
// unless it holds a "name": "value" pair that looks like one.
func RedactJSON(body []byte) []byte {
	if !mayHoldSecret(body) {
		return body
	}
	return redactScan(body)
}

// redactScan is RedactJSON's scan, for a body that may hold a secret.
func redactScan(body []byte) []byte {
	var out []byte // nil until something is redacted
	last := 0      // body[:last] is in out
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		end := stringEnd(body, i)
		if end < 0 {
			break
		}
		j := skipSpace(body, end+1)
		if j >= len(body) || body[j] != ':' || !isSecretToken(body[i:end+1]) {
			i = end
			continue
		}
		v := skipSpace(body, j+1)
		if v >= len(body) || body[v] != '"' {
			i = end
			continue
		}
		vend := stringEnd(body, v)
		if vend < 0 {
			vend = len(body) - 1
		}
		out = append(out, body[last:v]...)
		out = append(out, `"`+Redacted+`"`...)
		last, i = vend+1, vend
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// secretNeedles: every secret name (lowered) holds one of them (a test checks), so a
// body that holds none holds no secret name. Short needles of rare first letters: a
// search answer has few c, k and w, and finding one only means the full scan.
var secretNeedles = [][]byte{[]byte("cret"), []byte("key"), []byte("word")}

// mayHoldSecret reports whether RedactJSON must scan body: false when body is ASCII
// without escapes (so that a key is its bytes) and holds no secret name in any case.
// This costs a few microseconds for a 7 KB search answer, a fraction of the scan.
func mayHoldSecret(body []byte) bool {
	// The body is lowered a chunk at a time, each chunk beginning with the end of the
	// one before, so that a name across two chunks is found.
	var buf [4096]byte
	overlap := maxSecretLen - 1
	n := 0 // bytes in buf
	for start := 0; start < len(body); {
		take := min(len(buf)-n, len(body)-start)
		if !lowerASCII(buf[n:n+take], body[start:start+take]) {
			return true
		}
		n += take
		start += take
		for _, needle := range secretNeedles {
			if bytes.Contains(buf[:n], needle) {
				return true
			}
		}
		if n > overlap {
			n = copy(buf[:], buf[n-overlap:n])
		}
	}
	return false
}

// lowerASCII copies src to dst (as long) with ASCII letters lowered, eight bytes at a
// time; false, with dst undefined, when src holds a byte above ASCII or a backslash.
func lowerASCII(dst, src []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	dst = dst[:len(src)]
	for len(src) >= 8 {
		x := binary.LittleEndian.Uint64(src)
		b := x ^ ('\\' * ones) // a zero byte where src has a backslash
		if (x|((b-ones)&^b))&highs != 0 {
			return false
		}
		// 0x80 in the bytes from 'A' to 'Z' (x has no high bit: the sums do not carry).
		upper := ((x + (0x80-'A')*ones) &^ (x + (0x7f-'Z')*ones)) & highs
		binary.LittleEndian.PutUint64(dst, x|upper>>2)
		src, dst = src[8:], dst[8:]
	}
	for i, c := range src {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return true
}

// stringEnd returns the index of the quote that closes the JSON string opening at
// body[start], or -1 when the body ends first.
func stringEnd(body []byte, start int) int {
	for k := start + 1; k < len(body); k++ {
		switch body[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// unquote decodes a JSON string token; "" when it is not one.
func unquote(tok []byte) string {
	if !bytes.ContainsRune(tok, '\\') {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}

// RedactQuery returns the raw query with the values of secret parameters replaced.
func RedactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return "" // not a query the API reads: nothing worth keeping, maybe a secret
	}
	changed := false
	for k, vs := range vals {
		if isSecret(k) {
			for i := range vs {
				vs[i] = Redacted
			}
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return vals.Encode()
}
