package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/authcache"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// BenchmarkHandler serves the four searches and the four availabilities through the whole partner API handler
// (request id, logging, request log capture, key lookup, guards, decoding, the read
// model, the envelope), in-process over SQLite, as serve wires it, and reports its
// throughput as a share of a bare handler writing the same bytes ("%floor", the load
// benchmark's ratio without the network). The catalog: 1 000 hotels, 250 activities, 250
// rentals and 100 packages in 4 cities (about 250 hotels a city, the load benchmark's
// biggest city at its quarter size), 60 days. Keys and partners come from the auth cache,
// as serve has them. BenchmarkHandlerNoRequestLog is the same without the request log.
//
//	go test -run XXX -bench Handler ./internal/httpapi/
func BenchmarkHandler(b *testing.B) { benchHandler(b, true, benchCatalog) }

// BenchmarkHandlerNoRequestLog is BenchmarkHandler without the request log: the part of
// the cost that is not the log's.
func BenchmarkHandlerNoRequestLog(b *testing.B) { benchHandler(b, false, benchCatalog) }

// BenchmarkHandlerSmall is BenchmarkHandler over a catalog small enough that its set-up
// is cheap under callgrind: availability answers do not depend on the catalog's size, so
// its availability cases count the chain around them (docs/performance-history.md, "hotpath").
func BenchmarkHandlerSmall(b *testing.B) {
	benchHandler(b, true, catalog.GenerateOptions{Hotels: 40, Activities: 20, Rentals: 20, Packages: 20, Cities: 2,
		Days: 40, Seed: 7, Start: apitest.Start})
}

// BenchmarkHandlerSmallNoRequestLog is BenchmarkHandlerSmall without the request log.
func BenchmarkHandlerSmallNoRequestLog(b *testing.B) {
	benchHandler(b, false, catalog.GenerateOptions{Hotels: 40, Activities: 20, Rentals: 20, Packages: 20, Cities: 2,
		Days: 40, Seed: 7, Start: apitest.Start})
}

// BenchmarkHandlerRentalCity is BenchmarkHandler over one city of issue 12's rentals
// (250: the issue's 5 000 over 20 cities) with a few items of the other products, 60
// days: its rental-search case is the load benchmark's at the issue's size, with a set-up
// cheap enough for callgrind (docs/performance-history.md, "rentalflat").
func BenchmarkHandlerRentalCity(b *testing.B) {
	benchHandler(b, true, catalog.GenerateOptions{Hotels: 20, Activities: 20, Rentals: 250, Packages: 10, Cities: 1,
		Days: 60, Seed: 7, Start: apitest.Start})
}

// BenchmarkHandlerIssueCity is BenchmarkHandler in one city of issue 12's size (1 000
// hotels, 250 activities, 250 rentals, 50 packages, 60 days): its hotel-search case is
// the load benchmark's biggest-city search, the whole request (docs/performance-history.md,
// "hotelsearch4").
func BenchmarkHandlerIssueCity(b *testing.B) {
	benchHandler(b, true, catalog.GenerateOptions{Hotels: 1000, Activities: 250, Rentals: 250, Packages: 50, Cities: 1,
		Days: 60, Seed: 1, Start: apitest.Start})
}

// BenchmarkHandlerIssueCityYear is BenchmarkHandlerIssueCity with the issue's 365 days
// of inventory: the same searches over rooms whose days span a year (the load
// benchmark's catalog; docs/performance-history.md, "daymajor"). Its set-up imports six times
// the rows.
func BenchmarkHandlerIssueCityYear(b *testing.B) {
	benchHandler(b, true, catalog.GenerateOptions{Hotels: 1000, Activities: 250, Rentals: 250, Packages: 50, Cities: 1,
		Days: 365, Seed: 1, Start: apitest.Start})
}

var benchCatalog = catalog.GenerateOptions{Hotels: 1000, Activities: 250, Rentals: 250, Packages: 100, Cities: 4,
	Days: 60, Seed: 7, Start: apitest.Start}

func benchHandler(b *testing.B, requestLog bool, size catalog.GenerateOptions) {
	doc := catalog.Generate(size)
	var l *reqlog.Logger
	var auth *authcache.Cache
	env := apitest.New(b, storetest.Openers()[0], func(c *httpapi.Config) {
		c.Logger = slog.New(httpapi.LogHandler(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))
		if requestLog {
			l = reqlog.New(reqlog.Config{Store: discardStore{}, Logger: c.Logger})
			c.RequestLog = l
		}
		auth = authcache.New(c.Store, nil)
		c.Auth = auth
	})
	authCtx, stopAuth := context.WithCancel(context.Background())
	authDone := make(chan struct{})
	go func() { defer close(authDone); auth.Run(authCtx) }()
	defer func() { stopAuth(); <-authDone }()
	env.Import(doc)
	// The server's service reads a model of the imported catalog from now on.
	env.UseReadModel(false)
	p := env.NewPartner("bench", booking.PartnerParams{})
	h := env.Server.Config.Handler
	in, out := apitest.Day(30), apitest.Day(33)
	city := doc.Hotels[0].City
	cases := []struct{ name, path, body string }{
		{"hotel-search", "/hotels/search", `{"destination":"` + city + `","check_in":"` + in + `","check_out":"` + out + `"}`},
		{"activity-search", "/activities/search", `{"destination":"` + doc.Activities[0].City + `","date":"` + in + `"}`},
		{"rental-search", "/rentals/search", `{"destination":"` + doc.Rentals[0].City + `","check_in":"` + in + `","check_out":"` + out + `"}`},
		{"package-search", "/packages/search", `{"destination":"` + doc.Packages[0].City + `"}`},
		{"hotel-availability", "/hotels/availability", `{"hotel_id":` + strconv.FormatInt(doc.Hotels[len(doc.Hotels)/2].ID, 10) + `,"check_in":"` + in + `","check_out":"` + out + `"}`},
		{"activity-availability", "/activities/availability", `{"activity_id":` + strconv.FormatInt(doc.Activities[len(doc.Activities)/2].ID, 10) + `,"date":"` + in + `"}`},
		{"rental-availability", "/rentals/availability", `{"rental_id":` + strconv.FormatInt(doc.Rentals[len(doc.Rentals)/2].ID, 10) + `,"check_in":"` + in + `","check_out":"` + out + `"}`},
	}
	// The load benchmark's package: the first open one.
	for _, pk := range doc.Packages {
		if pk.Kind == "open" {
			cases = append(cases, struct{ name, path, body string }{"package-availability", "/packages/availability",
				`{"package_id":` + strconv.FormatInt(pk.ID, 10) + `,"travel_date":"` + in + `","adults":2}`})
			break
		}
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			do := func(h http.Handler) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, httpapi.Prefix+c.path, bytes.NewReader([]byte(c.body)))
				req.Header.Set(httpapi.HeaderAPIKey, p.LiveKey)
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			first := do(h)
			if first.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", c.name, first.Code, first.Body)
			}
			answer := first.Body.Bytes()
			bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(answer)
			})
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if rec := do(h); rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", c.name, rec.Code)
				}
			}
			api := b.Elapsed()
			t0 := time.Now()
			for range b.N {
				do(bare)
			}
			floor := time.Since(t0)
			b.ReportMetric(100*float64(floor)/float64(api), "%floor")
			// The harness's own allocations (request, recorder) and the bare handler's:
			// allocs/op less this is the API's.
			b.ReportMetric(testing.AllocsPerRun(100, func() { do(bare) }), "floor-allocs/op")
			b.ReportMetric(float64(len(answer)), "bytes/answer")
		})
	}
	b.StopTimer()
	if l != nil {
		_ = l.Close(context.Background())
		if d := l.Stats().Dropped; d > 0 {
			b.Logf("request log: %d entries dropped", d)
		}
	}
}
