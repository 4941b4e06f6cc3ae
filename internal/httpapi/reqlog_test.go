package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// withRequestLog makes the server log requests through a reqlog.Logger over st (the
// server's store when nil), returned through *l.
func withRequestLog(l **reqlog.Logger, st reqlog.Store, cfg reqlog.Config) apitest.Option {
	return func(c *httpapi.Config) {
		if st == nil {
			st = c.Store
		}
		cfg.Store, cfg.Logger = st, slog.New(slog.NewTextHandler(io.Discard, nil))
		*l = reqlog.New(cfg)
		c.RequestLog = *l
	}
}

// rawRows returns every column of every request_logs row as text.
func rawRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM request_logs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		// The bodies are searched as captured: decompressed when stored compressed.
		encoding := ""
		for i, c := range cols {
			if c == "body_encoding" {
				encoding = fmt.Sprint(asText(vals[i]))
			}
		}
		var b strings.Builder
		for i, v := range vals {
			if cols[i] == "request_body" || cols[i] == "response_body" {
				body, err := sqlstore.DecodeRequestLogBody(encoding, []byte(asText(v)))
				if err != nil {
					t.Fatalf("%s: %v", cols[i], err)
				}
				v = string(body)
			}
			if raw, ok := v.([]byte); ok {
				v = string(raw)
			}
			fmt.Fprintf(&b, "%s=%v ", cols[i], v)
		}
		out = append(out, b.String())
	}
	return out
}

func asText(v any) string {
	if raw, ok := v.([]byte); ok {
		return string(raw)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// TestRequestLogCapture: every request whose key resolved is logged, whatever its
// answer, with its bodies (the first 64 KB, marked when cut); no key, signature, cookie
// or webhook secret reaches the table; a request whose key did not resolve is not logged.
func TestRequestLogCapture(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var l *reqlog.Logger
		env := apitest.New(t, o, withRequestLog(&l, nil, reqlog.Config{}))
		acme := env.NewPartner("acme", booking.PartnerParams{})
		globex := env.NewPartner("globex", booking.PartnerParams{})
		readOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"availability:read"}})
		const signature, cookie = "t=1,v1=0123456789abcdef0123456789abcdef", "session=cookie-secret-value"
		hdr := map[string]string{"X-Request-Id": "trace-42", "X-Partner-Signature": signature, "Cookie": cookie,
			"User-Agent": "acme-sdk/2.1"}

		created := env.Do(apitest.Request{Method: "POST", Path: "/webhooks", Key: acme.LiveKey, Header: hdr,
			Body: webhookBody("https://hooks.acme.example/tw", "booking.confirmed")}).Expect(t, http.StatusCreated, "")
		whsec, _ := created.Map(t)["secret"].(string)
		if !strings.HasPrefix(whsec, "whsec_") {
			t.Fatalf("webhook create answered %s", created.Raw)
		}
		env.Do(apitest.Request{Method: "POST", Path: "/bookings", Key: acme.TestKey, Header: map[string]string{"Idempotency-Key": "idem-7"},
			Body: `{"product_type": "hotel"`}).Expect(t, 400, "bad_request")
		env.Post(readOnly, "/webhooks", webhookBody("https://x.example/", "booking.confirmed")).Expect(t, 403, "insufficient_scope")
		big := `{"city": "LISBON", "pad": "` + strings.Repeat("x", 100<<10) + `"}`
		env.Post(acme.TestKey, "/hotels/search", big)
		// Refused (ping takes no query), and logged with its query redacted.
		env.Get(acme.TestKey, "/meta/ping?password=hunter2&x=1").Expect(t, 400, "bad_request")
		env.Get("tw_test_notakeyatall0000000000000000", "/meta/ping").Expect(t, 401, "unauthorized")
		env.Get(globex.TestKey, "/meta/ping").Expect(t, 200, "")
		if err := l.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}

		list, err := env.Store.RequestLogList(context.Background(), store.RequestLogFilter{PartnerID: acme.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 5 {
			t.Fatalf("acme has %d entries, want 5 (the 401 is nobody's): %+v", len(list), list)
		}
		byRoute := map[string]*store.RequestLogEntry{}
		for _, e := range list {
			full, err := env.Store.RequestLogGet(context.Background(), acme.ID, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			byRoute[fmt.Sprint(e.Route, " ", e.Status)] = full
		}
		wh := byRoute["POST /webhooks 201"]
		if wh == nil || wh.Mode != tradewind.ModeLive || wh.RequestID != "trace-42" || wh.UserAgent != "acme-sdk/2.1" ||
			wh.Path != "/api/partner/v1/webhooks" || wh.Method != "POST" || wh.KeyPrefix == "" || wh.KeyID == 0 ||
			wh.ClientAddr != "127.0.0.1" || wh.Duration <= 0 || wh.Console || !wh.At.Equal(apitest.Start) {
			t.Fatalf("webhook create entry = %+v", wh)
		}
		if !strings.Contains(string(wh.RequestBody), `"url":"https://hooks.acme.example/tw"`) ||
			!strings.Contains(string(wh.ResponseBody), `"secret":"[redacted]"`) || wh.RequestBodyTruncated() || wh.ResponseBodyTruncated() {
			t.Errorf("webhook create bodies: %s → %s", wh.RequestBody, wh.ResponseBody)
		}
		bad := byRoute["POST /bookings 400"]
		if bad == nil || bad.ErrorCode != "bad_request" || bad.IdempotencyKey != "idem-7" || string(bad.RequestBody) != `{"product_type": "hotel"` ||
			!strings.Contains(string(bad.ResponseBody), `"code":"bad_request"`) || bad.Mode != tradewind.ModeTest {
			t.Errorf("failed booking entry = %+v", bad)
		}
		if e := byRoute["POST /webhooks 403"]; e == nil || e.ErrorCode != "insufficient_scope" {
			t.Errorf("403 entry = %+v", e)
		}
		var search *store.RequestLogEntry
		for k, e := range byRoute {
			if strings.HasPrefix(k, "POST /hotels/search") {
				search = e
			}
		}
		if search == nil || len(search.RequestBody) != reqlog.MaxBody || search.RequestSize != int64(len(big)) ||
			!search.RequestBodyTruncated() || string(search.RequestBody) != big[:reqlog.MaxBody] {
			t.Errorf("a 100 KB request body is kept as its first 64 KB, marked as cut: %d of %d bytes", len(search.RequestBody), search.RequestSize)
		}
		if ping := byRoute["GET /meta/ping 400"]; ping == nil || strings.Contains(ping.Query, "hunter2") || !strings.Contains(ping.Query, "x=1") {
			t.Errorf("ping entry query = %+v", ping)
		}

		rows := rawRows(t, env.Store.RequestLogSQL())
		if len(rows) != 6 {
			t.Fatalf("%d rows in request_logs, want 6", len(rows))
		}
		// The big bodies are stored compressed: the secrets are searched for in their
		// decompressed bytes (rawRows), not in bytes that could hide them.
		if !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "body_encoding=s2 ") }) {
			t.Errorf("no row stored compressed bodies: %.300q", rows)
		}
		for _, r := range rows {
			for _, secret := range []string{acme.TestKey, acme.LiveKey, readOnly, globex.TestKey, whsec, signature, "0123456789abcdef", cookie,
				"cookie-secret-value", "hunter2", "tw_test_notakeyatall"} {
				if strings.Contains(r, secret) {
					t.Errorf("a stored row holds the secret %q: %.300s", secret, r)
				}
			}
		}
		// The other partner's list holds its own request only.
		other, err := env.Store.RequestLogList(context.Background(), store.RequestLogFilter{PartnerID: globex.ID, Limit: 100})
		if err != nil || len(other) != 1 || other[0].PartnerID != globex.ID {
			t.Errorf("globex's entries = %+v, %v", other, err)
		}
	})
}

// stalledStore blocks every entry write until release is closed; the usage counters
// go through.
type stalledStore struct {
	reqlog.Store
	release chan struct{}
	once    sync.Once
	entered chan struct{}
}

func (s *stalledStore) RequestLogInsert(ctx context.Context, entries []*store.RequestLogEntry) error {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.Store.RequestLogInsert(ctx, entries)
}

// TestRequestLogWriterStalled: with the writer stuck on the database, requests still
// answer at once, entries beyond the queue are dropped and counted, and the usage
// counters are exact.
func TestRequestLogWriterStalled(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var l *reqlog.Logger
		stalled := &stalledStore{release: make(chan struct{}), entered: make(chan struct{})}
		env := apitest.New(t, o, func(c *httpapi.Config) {
			stalled.Store = c.Store
			withRequestLog(&l, stalled, reqlog.Config{QueueSize: 3, BatchSize: 1})(c)
		})
		acme := env.NewPartner("acme", booking.PartnerParams{})
		env.Get(acme.TestKey, "/meta/ping").Expect(t, 200, "")
		<-stalled.entered // the writer holds the first entry and waits
		const n = 40
		for i := range n {
			if i%4 == 0 {
				env.Get(acme.TestKey, "/nope").Expect(t, 404, "not_found")
				continue
			}
			env.Get(acme.TestKey, "/meta/ping").Expect(t, 200, "")
		}
		st := l.Stats()
		if st.Dropped != n-3 {
			t.Errorf("dropped %d entries while the writer was stalled, want %d (the queue holds 3)", st.Dropped, n-3)
		}
		close(stalled.release)
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		st = l.Stats()
		if st.Written != 4 || st.Written+st.Dropped != n+1 {
			t.Errorf("stats after close = %+v, want 4 written (1 held + 3 queued) and the rest dropped", st)
		}
		if got := len(rawRows(t, env.Store.RequestLogSQL())); got != 4 {
			t.Errorf("%d rows written, want 4", got)
		}
		usage, err := env.Store.UsageList(context.Background(), acme.ID, apitest.Start.AddDate(0, 0, -1), apitest.Start.AddDate(0, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int64{}
		for _, u := range usage {
			counts[fmt.Sprint(u.Mode, " ", u.Route, " ", u.Status, " ", u.ErrorCode)] += u.Count
		}
		want := map[string]int64{"test GET /meta/ping 200 ": n + 1 - n/4, "test  404 not_found": n / 4}
		if fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("usage counters = %v, want %v", counts, want)
		}
	})
}

// TestRequestLogCaptureBuffersReused: the answers' capture buffers go back to a pool
// once their batch is written; every stored body is still its own request's answer,
// batch after batch, with requests in flight while batches are written.
func TestRequestLogCaptureBuffersReused(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var l *reqlog.Logger
		env := apitest.New(t, o, withRequestLog(&l, nil, reqlog.Config{BatchSize: 3, WriterShare: 1}))
		env.Import(apitest.Catalog())
		acme := env.NewPartner("acme", booking.PartnerParams{})
		const n = 24
		answers := make([][]byte, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				body := fmt.Sprintf(`{"destination": "Lisbon", "check_in": %q, "check_out": %q, "per_page": %d}`,
					apitest.Day(1+i%5), apitest.Day(3+i%5), 1+i)
				answers[i] = env.Do(apitest.Request{Method: "POST", Path: "/hotels/search", Key: acme.TestKey, Body: body,
					Header: map[string]string{"X-Request-Id": fmt.Sprint("buf-", i)}}).Expect(t, 200, "").Raw
			})
		}
		wg.Wait()
		if err := l.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			list, err := env.Store.RequestLogList(context.Background(), store.RequestLogFilter{PartnerID: acme.ID, RequestID: fmt.Sprint("buf-", i), Limit: 2})
			if err != nil || len(list) != 1 {
				t.Fatalf("request buf-%d: %d entries, %v", i, len(list), err)
			}
			e, err := env.Store.RequestLogGet(context.Background(), acme.ID, list[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if string(e.ResponseBody) != string(answers[i]) {
				t.Errorf("request buf-%d: stored answer\n%s\nwant\n%s", i, e.ResponseBody, answers[i])
			}
		}
	})
}
