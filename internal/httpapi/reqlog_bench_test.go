package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

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

// BenchmarkRequestLogCapture is the request log's cost per request: a hotel search
// served in-process (SQLite) without the request log (off), with it over a store that
// discards (on: capture, queue, redaction) and with it written to the same SQLite
// database (on-sqlite: the batch insert and compression too, every entry written before
// the timer stops, the writer unpaced). Compare ns/op, allocs/op and cpu-µs/op (the
// process's CPU time per request, all goroutines, less sensitive than ns/op to other
// load on the machine); the drops are reported (none expected).
func BenchmarkRequestLogCapture(b *testing.B) {
	search := `{"city": "LISBON", "check_in": "` + apitest.Day(1) + `", "check_out": "` + apitest.Day(4) + `"}`
	for _, name := range []string{"off", "on", "on-sqlite"} {
		b.Run(name, func(b *testing.B) {
			var l *reqlog.Logger
			var opts []apitest.Option
			if name != "off" {
				opts = append(opts, func(c *httpapi.Config) {
					var st reqlog.Store = discardStore{}
					if name == "on-sqlite" {
						st = c.Store
					}
					l = reqlog.New(reqlog.Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WriterShare: 1})
					c.RequestLog = l
				})
			}
			env := apitest.New(b, storetest.Openers()[0], opts...)
			env.Import(apitest.Catalog())
			p := env.NewPartner("bench", booking.PartnerParams{})
			h := env.Server.Config.Handler
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
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
			if l != nil {
				_ = l.Close(context.Background()) // the queued entries' writes count too
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			b.StopTimer()
			if l != nil {
				st := l.Stats()
				b.ReportMetric(float64(st.Dropped)/float64(b.N), "drops/op")
			}
		})
	}
}

// processCPU is the CPU time (user and system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
