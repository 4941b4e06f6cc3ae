// Package apitest runs the real partner API in-process on 127.0.0.1:0 over a fresh
// database of either kind, with a controllable clock, for HTTP-level tests.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/clocktest"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// Clock is a settable clock, safe for concurrent use.
type Clock = clocktest.Clock

// NewClock returns a clock stopped at now.
func NewClock(now time.Time) *Clock { return clocktest.New(now) }

// Start is the time every test starts at: a fixed morning, so dates in tests are stable.
var Start = time.Date(2027, 1, 4, 9, 30, 0, 0, time.UTC)

// Day returns the date n days after Start, as YYYY-MM-DD.
func Day(n int) string { return Start.AddDate(0, 0, n).Format(tradewind.DateLayout) }

// Env is a running partner API over a fresh database.
type Env struct {
	TB      testing.TB
	DB      string // "sqlite" or "postgres"
	Store   *sqlstore.DB
	Service *booking.Service
	Clock   *Clock
	Server  *httptest.Server
	API     *httpapi.Server // the handler Server serves (the portal's test console calls it)
	URL     string          // base URL including /api/partner/v1
	Logs    *bytes.Buffer
	logMu   *sync.Mutex
}

// Option changes the server configuration before it starts.
type Option func(*httpapi.Config)

// AllowPrivateWebhooks accepts webhook subscriptions to loopback receivers, as serve
// --webhook-allow-private does: test receivers listen on 127.0.0.1.
func AllowPrivateWebhooks(c *httpapi.Config) { c.Service.WebhookAllowPrivate = true }

// ForEachDB runs fn as a parallel subtest on SQLite and on PostgreSQL.
func ForEachDB(t *testing.T, fn func(t *testing.T, o storetest.Opener)) {
	t.Helper()
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, o)
		})
	}
}

// New starts the partner API over a fresh database from o.
func New(tb testing.TB, o storetest.Opener, opts ...Option) *Env {
	tb.Helper()
	st := o.Open(tb)
	clock := NewClock(Start)
	logs := &bytes.Buffer{}
	mu := &sync.Mutex{}
	logger := slog.New(httpapi.LogHandler(slog.NewJSONHandler(&lockedWriter{w: logs, mu: mu}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	svc := booking.New(st, clock, logger)
	cfg := httpapi.Config{Store: st, Service: svc, Logger: logger, Clock: clock}
	for _, opt := range opts {
		opt(&cfg)
	}
	api := httpapi.NewServer(cfg)
	srv := httptest.NewUnstartedServer(api)
	httpapi.ConfigureServer(srv.Config) // as serve does
	srv.Start()
	tb.Cleanup(srv.Close)
	return &Env{TB: tb, DB: o.Name, Store: st, Service: svc, Clock: clock, Server: srv, API: api, URL: srv.URL + httpapi.Prefix, Logs: logs, logMu: mu}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// For returns a view of the environment that reports failures to tb, for subtests and
// fuzz targets that share one server.
func (e *Env) For(tb testing.TB) *Env {
	c := *e
	c.TB = tb
	return &c
}

// LogText returns everything logged so far.
func (e *Env) LogText() string {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	return e.Logs.String()
}

// Import loads a catalog document, failing the test on error.
func (e *Env) Import(doc *catalog.Document) booking.ImportReport {
	e.TB.Helper()
	rep, err := e.Service.ImportCatalog(context.Background(), doc)
	if err != nil {
		e.TB.Fatalf("import: %v", err)
	}
	return rep
}

// UseReadModel builds a read model of the store as it is now, and has the server's
// service read it and write through it as serve does: searches, availability and the
// quotes priced ahead of prebooks and bookings read the model, and the service's own
// claims and releases are applied to it as they commit (readmodel.Tracked). With poll,
// the model follows the store's change feed until the test ends, as serve's does;
// without, it never learns of a change made to e.Store directly, and stays the stale
// guess the store's checks must catch. Call it once, before the first booking: the
// service's group committer keeps the store it first booked through.
func (e *Env) UseReadModel(poll bool) *readmodel.Model {
	e.TB.Helper()
	m := readmodel.New(e.Store, e.Clock, nil)
	if err := m.Build(context.Background()); err != nil {
		e.TB.Fatalf("read model: %v", err)
	}
	if poll {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); m.Run(ctx) }()
		e.TB.Cleanup(func() { stop(); <-done })
	}
	e.Service.Reads = m
	e.Service.Store = readmodel.Tracked(e.Store, m)
	return m
}

// Partner is a partner created for a test, with a test and a live key.
type Partner struct {
	Name    string
	ID      int64
	TestKey string
	LiveKey string
}

// NewPartner creates a partner (net pricing, EUR, credit 10 000.00 unless params say
// otherwise) with a test and a live key carrying every scope and product.
func (e *Env) NewPartner(name string, params booking.PartnerParams) *Partner {
	e.TB.Helper()
	ctx := context.Background()
	if params.CreditLimit == nil {
		limit := "10000"
		params.CreditLimit = &limit
	}
	p, err := e.Service.CreatePartner(ctx, name, params)
	if err != nil {
		e.TB.Fatalf("create partner: %v", err)
	}
	out := &Partner{Name: name, ID: p.ID}
	out.TestKey = e.NewKey(name, booking.KeyParams{Mode: "test"})
	out.LiveKey = e.NewKey(name, booking.KeyParams{Mode: "live"})
	return out
}

// NewKey issues a key and returns its secret.
func (e *Env) NewKey(partner string, kp booking.KeyParams) string {
	e.TB.Helper()
	_, secret, err := e.Service.IssueKey(context.Background(), partner, kp)
	if err != nil {
		e.TB.Fatalf("issue key: %v", err)
	}
	return secret
}

// Response is a decoded API response.
type Response struct {
	Status  int
	Header  http.Header
	Raw     []byte
	Success bool            `json:"success"`
	Message *string         `json:"message"`
	Data    json.RawMessage `json:"data"`
	Meta    json.RawMessage `json:"meta"`
	Code    string          `json:"code"`
	Reason  string          `json:"reason"`
	Errors  []string        `json:"errors"`
}

// Decode decodes the response's data into v, failing the test on error.
func (r *Response) Decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		tb.Fatalf("decode data %s: %v", r.Data, err)
	}
}

// Maps returns the response's data as an array of JSON objects.
func (r *Response) Maps(tb testing.TB) []map[string]any {
	tb.Helper()
	var m []map[string]any
	r.Decode(tb, &m)
	return m
}

// Map returns the response's data as a JSON object.
func (r *Response) Map(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	r.Decode(tb, &m)
	return m
}

// ValidateResponse, when set (by the contract tests), checks every response Do receives.
var ValidateResponse func(tb testing.TB, req *http.Request, status int, header http.Header, body []byte)

// Request is one call to the API.
type Request struct {
	Method string
	Path   string // relative to /api/partner/v1, with any query
	Key    string
	Body   any // marshalled to JSON unless it is a string or []byte, sent as is
	Header map[string]string
}

// Do sends a request and decodes the envelope. It fails the test on transport errors.
func (e *Env) Do(r Request) *Response {
	e.TB.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.TB.Fatalf("marshal body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(r.Method, e.URL+r.Path, body)
	if err != nil {
		e.TB.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		req.Header.Set(httpapi.HeaderAPIKey, r.Key)
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		e.TB.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.TB.Fatalf("read body: %v", err)
	}
	if ValidateResponse != nil {
		ValidateResponse(e.TB, req, resp.StatusCode, resp.Header, raw)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if err := json.Unmarshal(raw, out); err != nil {
		e.TB.Fatalf("%s %s: response is not JSON (%d): %s", r.Method, r.Path, resp.StatusCode, raw)
	}
	return out
}

// Get sends a GET.
func (e *Env) Get(key, path string) *Response {
	e.TB.Helper()
	return e.Do(Request{Method: http.MethodGet, Path: path, Key: key})
}

// Post sends a POST with a JSON body.
func (e *Env) Post(key, path string, body any) *Response {
	e.TB.Helper()
	return e.Do(Request{Method: http.MethodPost, Path: path, Key: key, Body: body})
}

// Book sends POST /bookings with an Idempotency-Key.
func (e *Env) Book(key, idem string, body any) *Response {
	e.TB.Helper()
	h := map[string]string{}
	if idem != "" {
		h["Idempotency-Key"] = idem
	}
	return e.Do(Request{Method: http.MethodPost, Path: "/bookings", Key: key, Body: body, Header: h})
}

// Because fails the test unless the error's reason (the envelope's "reason") is reason.
func (r *Response) Because(tb testing.TB, reason string) *Response {
	tb.Helper()
	if r.Reason != reason {
		tb.Fatalf("reason %q, want %q; body: %s", r.Reason, reason, r.Raw)
	}
	return r
}

// Expect fails the test unless the response has the status and, for errors, the code.
func (r *Response) Expect(tb testing.TB, status int, code string) *Response {
	tb.Helper()
	if r.Status != status || r.Code != code {
		tb.Fatalf("got %d %q, want %d %q; body: %s", r.Status, r.Code, status, code, r.Raw)
	}
	if status >= 400 && (r.Success || r.Message == nil || r.Errors == nil) {
		tb.Fatalf("error envelope incomplete: %s", r.Raw)
	}
	if status < 400 && !r.Success {
		tb.Fatalf("success envelope has success=false: %s", r.Raw)
	}
	return r
}
