package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/ratelimit"
)

// BenchmarkRateLimitGuard is the cost per request of serve's rate limit guard with the
// in-process limiter (serve's default, without --redis): the key, the limiter and the
// three RateLimit headers. The clock moves a minute per request so that every request
// is allowed.
//
//	go test -run XXX -bench RateLimitGuard -benchmem ./internal/httpapi/
func BenchmarkRateLimitGuard(b *testing.B) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := RateLimit(ratelimit.NewMemory(func() time.Time { return now }))
	c := &booking.Caller{Partner: &tradewind.Partner{ID: 12345, RateLimit: 120}}
	r := httptest.NewRequest(http.MethodPost, Prefix+"/hotels/availability", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Minute)
		clear(w.Header())
		if err := g(w, r, c, nil); err != nil {
			b.Fatal(err)
		}
	}
}
