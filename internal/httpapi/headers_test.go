package httpapi

import (
	"net/http"
	"testing"

	"github.com/tradewind/tradewind/internal/booking"
)

// TestCanonicalHeaderNames checks that the names headerGet and headerSet index the
// header map with are the canonical forms of the names the API documents, so that they
// find and set what Header.Get and Header.Set would.
func TestCanonicalHeaderNames(t *testing.T) {
	for name, documented := range map[string]string{
		hdrAPIKey: HeaderAPIKey, hdrRequestID: "x-request-id", hdrContentType: "content-type", hdrContentEnc: "content-encoding",
		hdrContentLength: "content-length", hdrNoSniff: "x-content-type-options", hdrCacheControl: "cache-control",
		hdrIdempotencyKey: HeaderIdempotencyKey, hdrScenario: booking.HeaderScenario,
		hdrRateLimitLimit: HeaderRateLimitLimit, hdrRateLimitRemaining: HeaderRateLimitRemaining, hdrRateLimitReset: HeaderRateLimitReset,
	} {
		if c := http.CanonicalHeaderKey(documented); c != name {
			t.Errorf("%q: canonical form %q, indexed as %q", documented, c, name)
		}
	}
	h := http.Header{}
	h.Set(HeaderAPIKey, "k")
	if got := headerGet(h, hdrAPIKey); got != "k" {
		t.Errorf("headerGet after Set: %q", got)
	}
	headerSet(h, hdrContentType, "application/json")
	if got := h.Get("content-type"); got != "application/json" || len(h.Values("Content-Type")) != 1 {
		t.Errorf("Get after headerSet: %q", got)
	}
}
