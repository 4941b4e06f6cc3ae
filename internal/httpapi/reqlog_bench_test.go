package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// discardStore takes the writer's batches and counters and keeps nothing, so that the
// benchmark measures the request path and the writer's redaction, not the database.
type discardStore struct{}

func (discardStore) RequestLogInsert(context.Context, []*store.RequestLogEntry) error { return nil }
func (discardStore) UsageAdd(context.Context, []tradewind.UsageRow) error             { return nil }

// BenchmarkRequestLogCapture is the capture middleware's cost per request: a hotel search
// served in-process (SQLite) with and without the request log. Compare ns/op and
// allocs/op of the two; the drops are reported (the writer keeps up: none expected).
func BenchmarkRequestLogCapture(b *testing.B) {
	search := `{"city": "LISBON", "check_in": "` + apitest.Day(1) + `", "check_out": "` + apitest.Day(4) + `"}`
	for _, logging := range []bool{false, true} {
		name := "off"
		if logging {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			var l *reqlog.Logger
			var opts []apitest.Option
			if logging {
				opts = append(opts, func(c *httpapi.Config) {
					l = reqlog.New(reqlog.Config{Store: discardStore{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
					c.RequestLog = l
				})
			}
			env := apitest.New(b, storetest.Openers()[0], opts...)
			env.Import(apitest.Catalog())
			p := env.NewPartner("bench", booking.PartnerParams{})
			h := env.Server.Config.Handler
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, httpapi.Prefix+"/hotels/search", strings.NewReader(search))
				req.Header.Set(httpapi.HeaderAPIKey, p.TestKey)
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("search: %d %s", rec.Code, rec.Body)
				}
			}
			b.StopTimer()
			if l != nil {
				_ = l.Close(context.Background())
				st := l.Stats()
				b.ReportMetric(float64(st.Dropped)/float64(b.N), "drops/op")
			}
		})
	}
}
