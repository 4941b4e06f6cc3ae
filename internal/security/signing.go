// Package security holds the request-authentication building blocks of the partner API:
// request signatures, IP allowlists, client addresses behind trusted proxies, client
// certificates and API keys. It depends only on the standard library.
package security

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HeaderSignature is the request header that carries the hex HMAC-SHA256 signature.
const HeaderSignature = "X-Partner-Signature"

// HeaderTimestamp is the request header that carries the signing time in unix seconds.
const HeaderTimestamp = "X-Partner-Timestamp"

// DefaultMaxSkew is the signature age (in either direction) that VerifyRequest accepts
// when it is given a maxSkew of zero or less.
const DefaultMaxSkew = 5 * time.Minute

// ErrSignatureRequired means the signature or timestamp header is missing or empty
// (API code signature_required).
var ErrSignatureRequired = errors.New("request signature required")

// ErrSignatureExpired means the signed timestamp is further from now than the allowed
// skew, in the past or in the future (API code signature_expired).
var ErrSignatureExpired = errors.New("request signature expired")

// ErrSignatureInvalid means the timestamp is not an integer or the signature matches
// none of the partner's secrets (API code signature_invalid).
var ErrSignatureInvalid = errors.New("request signature invalid")

// ErrTimestampMalformed is the ErrSignatureInvalid of a timestamp that is not unix
// seconds in plain digits: the signature was never checked, and the answer says so.
var ErrTimestampMalformed = fmt.Errorf("%w: the timestamp is not unix seconds", ErrSignatureInvalid)

// SignRequest returns the hex HMAC-SHA256, keyed with secret, of
// "<ts>.<METHOD>.<path>.<body>", where METHOD is upper-cased and path is the request
// target exactly as sent: the full path including /api/partner/v1 and, when the request
// has a query string, "?" followed by the raw query (so the query is covered too, which
// is what the SDK does). The partner contract's form signs the path alone; the server
// accepts both (see RequestTargets).
func SignRequest(secret string, ts int64, method, path string, body []byte) string {
	return hex.EncodeToString(mac(secret, strconv.FormatInt(ts, 10), method, path, body))
}

// mac computes the raw HMAC-SHA256 of the signing string; ts is used as given.
func mac(secret, ts, method, path string, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write([]byte(strings.ToUpper(method)))
	h.Write([]byte{'.'})
	h.Write([]byte(path))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// VerifyRequest checks the signature headers of a request against each of secrets (the
// current and, during a rotation, the previous signing secret) and returns nil,
// ErrSignatureRequired, ErrSignatureExpired or ErrSignatureInvalid.
//
// path must be the request target exactly as sent (see SignRequest and RequestTarget).
// The timestamp must be unsigned decimal digits and is signed exactly as sent; it may
// differ from now by at most maxSkew (DefaultMaxSkew when maxSkew <= 0). The signature is
// accepted in upper- or lower-case hex and compared in constant time. Empty secrets never
// match.
func VerifyRequest(secrets []string, tsHeader, sigHeader string, method, path string, body []byte, now time.Time, maxSkew time.Duration) error {
	return VerifyRequestTargets(secrets, tsHeader, sigHeader, method, []string{path}, body, now, maxSkew)
}

// VerifyRequestTargets is VerifyRequest for a signature that may cover any one of
// targets (see RequestTargets): it succeeds when the signature matches some secret over
// some target. Every secret is tried over every target, each compared in constant time,
// so timing tells neither which secret nor which target matched.
func VerifyRequestTargets(secrets []string, tsHeader, sigHeader string, method string, targets []string, body []byte, now time.Time, maxSkew time.Duration) error {
	tsHeader, sigHeader = strings.TrimSpace(tsHeader), strings.TrimSpace(sigHeader)
	if tsHeader == "" || sigHeader == "" {
		return ErrSignatureRequired
	}
	if maxSkew <= 0 {
		maxSkew = DefaultMaxSkew
	}
	if !allDigits(tsHeader) {
		return ErrTimestampMalformed
	}
	ts, err := strconv.ParseInt(tsHeader, 10, 64)
	if err != nil {
		return ErrTimestampMalformed
	}
	signedAt := time.Unix(ts, 0)
	if now.Sub(signedAt) > maxSkew || signedAt.Sub(now) > maxSkew {
		return ErrSignatureExpired
	}
	got, err := hex.DecodeString(sigHeader)
	if err != nil || len(got) != sha256.Size {
		return ErrSignatureInvalid
	}
	ok := false
	for _, s := range secrets {
		if s == "" {
			continue
		}
		// Check every secret and target so that timing does not tell which one matched.
		for _, target := range targets {
			if hmac.Equal(mac(s, tsHeader, method, target, body), got) {
				ok = true
			}
		}
	}
	if !ok {
		return ErrSignatureInvalid
	}
	return nil
}

// allDigits reports whether s consists only of ASCII decimal digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// RequestTarget returns the path and query of r exactly as the client sent them, which is
// the path that SignRequest and VerifyRequest expect.
func RequestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	// Client-side requests and absolute-form targets: rebuild from the parsed URL.
	return r.URL.RequestURI()
}

// RequestTargets returns the request targets that a signature over r may cover:
// RequestTarget(r) (path and query exactly as sent, what the SDK signs) and, when r has a
// query string (even an empty one after a bare "?"), also the path alone, which is the
// form the partner contract defines ("the full path including /api/partner/v1"). A
// signature over the path alone does not cover the query.
func RequestTargets(r *http.Request) []string {
	target := RequestTarget(r)
	if i := strings.IndexByte(target, '?'); i >= 0 {
		return []string{target, target[:i]}
	}
	return []string{target}
}
