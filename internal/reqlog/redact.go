package reqlog

import (
	"bytes"
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
