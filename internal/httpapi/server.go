// Package httpapi serves the partner API under /api/partner/v1: routes, middleware,
// handlers and the response envelope.
//
// routes.go declares every endpoint with its scope, the product its key must enable and
// whether it requires an Idempotency-Key; serveEndpoint checks these once, after the key
// and the guards. Handlers (the generic product handlers of products.go, the others in
// handlers.go) only decode the request, call the booking service, which validates it and
// keeps its own checks, and return data or an error that one adapter turns into the
// envelope.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

// Prefix is the path prefix of the partner API.
const Prefix = "/api/partner/v1"

// MaxBodyBytes is the largest request body accepted.
const MaxBodyBytes = 1 << 20

// Guard checks an authenticated request before its handler runs (IP allowlist, mTLS,
// signature, rate limit). body is the raw request body.
type Guard func(w http.ResponseWriter, r *http.Request, c *booking.Caller, body []byte) error

// Config holds the server's dependencies. Store, Service and Logger are required.
type Config struct {
	Store   store.Store
	Service *booking.Service
	Logger  *slog.Logger
	Clock   tradewind.Clock
	// Guards run in order after the API key is authenticated.
	Guards []Guard
	// Extra registers more routes on the main listener (e.g. the OpenAPI document).
	Extra func(mux *http.ServeMux)
	// Middleware wraps the routes, the first outermost, inside the request id, logging
	// and panic recovery (e.g. LimitAuthFailures).
	Middleware []func(http.Handler) http.Handler
	// Observe, when set, is called once per request with its endpoint ("" when none
	// matched), status, partner id (0 when not authenticated) and duration.
	Observe func(route string, status int, partnerID int64, d time.Duration)
	// RequestLog, when set, is given an entry for every request whose key resolved to a
	// partner, whatever its answer (docs/request-logs.md); it must not block.
	RequestLog RequestRecorder
	// ClientAddr, when set, tells the client's address for the request log (behind
	// trusted proxies, the forwarded one); by default the direct peer's.
	ClientAddr func(r *http.Request) netip.Addr
	// BookingCreated, when set, is called once for every booking created (not for replays).
	BookingCreated func(b *booking.BookingView)
	// Auth, when set, finds the key and the partner of each request instead of the
	// store, and hears of every key's use (serve: authcache.Cache).
	Auth Auth
	// Ready, when set, tells /readyz whether the server is ready beyond its database
	// (serve: the read model is built); its error is the status shown.
	Ready func() error
}

// Auth finds API keys and partners as the store does (ErrNotFound), from wherever it
// keeps them, and records the last use of each key.
type Auth interface {
	KeyGetByHash(ctx context.Context, hash string) (*tradewind.APIKey, error)
	PartnerGetByID(ctx context.Context, id int64) (*tradewind.Partner, error)
	KeyUsed(keyID int64, at time.Time)
}

// storeAuth reads every request's key and partner from the store and records no use.
type storeAuth struct{ store.Querier }

func (storeAuth) KeyUsed(int64, time.Time) {}

// Server is the partner API's HTTP handler.
type Server struct {
	cfg     Config
	logger  *slog.Logger
	handler http.Handler
}

// NewServer returns the partner API handler with all its middleware.
func NewServer(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = tradewind.SystemClock{}
	}
	if cfg.Auth == nil {
		cfg.Auth = storeAuth{cfg.Store}
	}
	s := &Server{cfg: cfg, logger: cfg.Logger}
	mux := http.NewServeMux()
	s.routes(mux)
	if cfg.Extra != nil {
		cfg.Extra(mux)
	}
	var h http.Handler = mux
	for i := len(cfg.Middleware) - 1; i >= 0; i-- {
		h = cfg.Middleware[i](h)
	}
	s.handler = s.requestID(s.logRequests(s.recoverPanics(s.harden(h))))
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// handlerFunc is a partner endpoint: it returns data or an error.
type handlerFunc func(r *http.Request, c *booking.Caller, body []byte) (*response, error)

// endpoint is one route of the partner API and what it requires of its caller, checked
// once by serveEndpoint before h runs: the scope, the product the key must enable, and an
// Idempotency-Key header.
type endpoint struct {
	method, path string
	scope        tradewind.Scope       // "" when none is required
	product      tradewind.ProductType // "" when the endpoint is not one product's
	idempotent   bool                  // requires a valid Idempotency-Key header
	effect       effect                // stateChanging: a signature is accepted once
	query        []string              // the query parameters it reads; any other is refused
	h            handlerFunc
}

// effect tells whether an endpoint changes state, which decides whether a request
// signature may be used again (decisions.md, "Request signing").
type effect bool

const (
	readOnly      effect = false // reads, and the POSTs of search, availability and prebook
	stateChanging effect = true  // book, cancel, webhook create and delete
)

// healthz answers when the process is up.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers when the database is reachable and Config.Ready agrees.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	Readyz(s.cfg.Store, s.cfg.Ready, s.logger)(w, r)
}

// Readyz returns the /readyz handler: 200 when st answers and ready (when set) returns
// nil, else 503 with the reason; serve's admin listener serves it too.
func Readyz(st store.Store, ready func() error, logger *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ready != nil {
			if err := ready(); err != nil {
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": err.Error()})
				return
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := st.Ping(ctx); err != nil {
			logger.WarnContext(r.Context(), "readiness check failed", "err", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unreachable"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}
