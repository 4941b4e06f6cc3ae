package httpapi

import (
	"fmt"
	"net/http"

	"github.com/tradewind/tradewind"
)

// Header fields the partner API reads or sets on every request, by their canonical
// names. Header.Get and Header.Set canonicalize their key at every call (and, for a
// name not written canonically such as HeaderAPIKey, build a new string); these are
// canonical once, and headerGet and headerSet index the map directly, which is what
// Get and Set do after canonicalizing. TestCanonicalHeaderNames keeps them canonical.
const (
	hdrAPIKey         = "Auth-Api-Key" // HeaderAPIKey
	hdrRequestID      = "X-Request-Id"
	hdrContentType    = "Content-Type"
	hdrContentEnc     = "Content-Encoding"
	hdrContentLength  = "Content-Length"
	hdrNoSniff        = "X-Content-Type-Options"
	hdrCacheControl   = "Cache-Control"
	hdrIdempotencyKey = HeaderIdempotencyKey
	hdrScenario       = "Tradewind-Scenario" // booking.HeaderScenario

	hdrRateLimitLimit     = "Ratelimit-Limit"     // HeaderRateLimitLimit
	hdrRateLimitRemaining = "Ratelimit-Remaining" // HeaderRateLimitRemaining
	hdrRateLimitReset     = "Ratelimit-Reset"     // HeaderRateLimitReset
)

// headerGet is h.Get(key) for a canonical key.
func headerGet(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// headerSet is h.Set(key, v) for a canonical key.
func headerSet(h http.Header, key, v string) { h[key] = []string{v} }

// oneHeader refuses with 400 a request that sends the header key more than once with
// different values: which of them the API would use is a guess a proxy in front of it
// may make otherwise (two Idempotency-Keys, two Content-Types). The same value twice is
// no guess. Two auth-api-keys are a 401 (caller).
func oneHeader(h http.Header, key string) error {
	values := h[key]
	for _, v := range values[min(1, len(values)):] {
		if v != values[0] {
			return tradewind.Invalid([]string{fmt.Sprintf("%s: send one header, not %d", key, len(values))})
		}
	}
	return nil
}
