package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/authcache"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// BenchmarkWriteHandler serves the load benchmark's two writes, POST /bookings/prebook
// and POST /bookings (live key, a hotel night spread over the catalog), through the whole
// partner API handler in-process from 16 goroutines at once, on SQLite and PostgreSQL:
// request id, log line, request log capture (over a store that discards, so the
// database's work is the request's own), key and partner from the auth cache, serve's
// guards (IP allowlist, mTLS, signature, replay, the in-process rate limit, with a budget
// that never refuses), the Idempotency-Key, decoding, the service over the read model's
// tracked store, the envelope. The "service" cases run the same requests' service calls
// without HTTP (BenchmarkPrebookParallel's work): "http" less "service" is the chain
// around a write. cpu-µs/op is the process's CPU time per request (all goroutines).
//
//	go test -run XXX -bench WriteHandler -benchmem ./internal/httpapi/
//
// TRADEWIND_BENCH_HOTELS shrinks the catalog (default 1 000 hotels in 20 cities, 60
// days) for callgrind, TRADEWIND_BENCH_SERIAL=1 sends one request at a time
// (docs/performance-history.md, "prebookfast6").
func BenchmarkWriteHandler(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) { benchWrites(b, o) })
	}
}

func benchWrites(b *testing.B, o storetest.Opener) {
	// TRADEWIND_BENCH_SERIAL=1: one request at a time, for instruction counts that do
	// not depend on how 16 goroutines interleave.
	serial := os.Getenv("TRADEWIND_BENCH_SERIAL") == "1"
	hotels := 1000
	if n, err := strconv.Atoi(os.Getenv("TRADEWIND_BENCH_HOTELS")); err == nil && n > 0 {
		hotels = n
	}
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: hotels, Cities: 20, Days: 60, Seed: 1, Start: apitest.Start})
	var l *reqlog.Logger
	var auth *authcache.Cache
	env := apitest.New(b, o, func(c *httpapi.Config) {
		c.Logger = slog.New(httpapi.LogHandler(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))
		l = reqlog.New(reqlog.Config{Store: discardStore{}, Logger: c.Logger, WriterShare: 1})
		c.RequestLog = l
		auth = authcache.New(c.Store, nil)
		c.Auth = auth
		c.Guards = httpapi.PartnerGuards(c.Service, security.ProxyTrust{}, ratelimit.NewMemory(c.Clock.Now))
	})
	authCtx, stopAuth := context.WithCancel(context.Background())
	authDone := make(chan struct{})
	go func() { defer close(authDone); auth.Run(authCtx) }()
	defer func() { stopAuth(); <-authDone }()
	env.Import(doc)
	// As the load benchmark (and serve) has it: reads from the model, writes through the
	// tracked store that keeps it current. No request has been served yet.
	env.UseReadModel(false)
	limit, rate := "1000000000", 1000000 // the largest budget; the clock does not move
	p := env.NewPartner("bench", booking.PartnerParams{CreditLimit: &limit, RateLimit: &rate})
	h := env.Server.Config.Handler
	key, err := env.Store.KeyGetByHash(context.Background(), security.HashKey(p.LiveKey))
	if err != nil {
		b.Fatal(err)
	}
	partner, err := env.Store.PartnerGetByID(context.Background(), p.ID)
	if err != nil {
		b.Fatal(err)
	}
	caller := &booking.Caller{Partner: partner, Key: key}

	// quote is the i-th request's hotel night: any hotel, room and night in the first
	// 50 days, spread so that consecutive requests rarely meet on a row.
	quote := func(i int) booking.QuoteRequest {
		ht := doc.Hotels[(i*7919)%len(doc.Hotels)]
		return booking.QuoteRequest{ProductType: "hotel", HotelID: ht.ID, RoomID: ht.Rooms[i%len(ht.Rooms)].ID,
			CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1}
	}
	body := func(q booking.QuoteRequest, guest bool) []byte {
		s := `{"product_type":"hotel","hotel_id":` + strconv.FormatInt(q.HotelID, 10) + `,"room_id":` + strconv.FormatInt(q.RoomID, 10) +
			`,"check_in":"` + q.CheckIn + `","check_out":"` + q.CheckOut + `","rooms":1,"adults":1`
		if guest {
			s += `,"guest":{"name":"Load Test"}`
		}
		return []byte(s + "}")
	}
	var seq atomic.Int64
	cases := []struct {
		name string
		do   func(i int) error
	}{
		{"prebook/http", func(i int) error {
			req := httptest.NewRequest(http.MethodPost, httpapi.Prefix+"/bookings/prebook", bytes.NewReader(body(quote(i), false)))
			req.Header.Set(httpapi.HeaderAPIKey, p.LiveKey)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return answered(rec, http.StatusOK)
		}},
		{"prebook/service", func(i int) error {
			q := quote(i)
			_, err := env.Service.Prebook(context.Background(), caller, &q)
			return err
		}},
		{"book/http", func(i int) error {
			req := httptest.NewRequest(http.MethodPost, httpapi.Prefix+"/bookings", bytes.NewReader(body(quote(i), true)))
			req.Header.Set(httpapi.HeaderAPIKey, p.LiveKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(httpapi.HeaderIdempotencyKey, "bench-http-"+strconv.FormatInt(seq.Add(1), 10))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return answered(rec, http.StatusCreated)
		}},
		{"book/service", func(i int) error {
			req := &booking.BookRequest{QuoteRequest: quote(i), Guest: &booking.Guest{Name: "Load Test"}}
			_, _, err := env.Service.Book(context.Background(), caller, "bench-svc-"+strconv.FormatInt(seq.Add(1), 10), req)
			return err
		}},
	}
	var n atomic.Int64 // shared by the cases: each request meets rows the others have not
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			if serial {
				for b.Loop() {
					if err := c.do(int(n.Add(1))); err != nil && tradewind.ErrorCode(err) != tradewind.ECodeInvalidQuote {
						b.Fatalf("%s: %v", c.name, err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := c.do(int(n.Add(1))); err != nil && tradewind.ErrorCode(err) != tradewind.ECodeInvalidQuote {
						b.Errorf("%s: %v", c.name, err)
						return
					}
				}
			})
			b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
		})
	}
	b.StopTimer()
	_ = l.Close(context.Background())
	if d := l.Stats().Dropped; d > 0 {
		b.Logf("request log: %d entries dropped", d)
	}
}

// answered returns nil for an answer with status want, or for a 422 invalid_quote (a
// night the benchmark sold out), and an error holding the answer otherwise.
func answered(rec *httptest.ResponseRecorder, want int) error {
	if rec.Code == want {
		return nil
	}
	if rec.Code == http.StatusUnprocessableEntity && bytes.Contains(rec.Body.Bytes(), []byte(`"code":"invalid_quote"`)) {
		return nil
	}
	return tradewind.Errorf(tradewind.ECodeInternal, "status %d: %s", rec.Code, rec.Body)
}
