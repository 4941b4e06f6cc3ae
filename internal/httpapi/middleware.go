package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/ids"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
)

// HeaderAPIKey carries the partner's API key.
const HeaderAPIKey = "auth-api-key"

// requestInfo is what the middleware learns about a request, for its log line. It is
// also the request's context (its parent's, with itself under ctxKey) and holds the
// request's statusRecorder: one allocation per request instead of three.
type requestInfo struct {
	context.Context
	rec       statusRecorder // the writer logRequests gives the handlers
	id        string
	partnerID int64
	route     string
	effect    effect // of the endpoint that matched
	// console marks a call of the portal's test console (ServeConsole), for its request
	// log entry.
	console bool
	key     *tradewind.APIKey // the key that authenticated the request; nil before
	body    []byte            // the request body once read
}

type ctxKey struct{}

// Value answers ri for ctxKey, as context.WithValue(parent, ctxKey{}, ri) would.
func (ri *requestInfo) Value(key any) any {
	if key == (ctxKey{}) {
		return ri
	}
	return ri.Context.Value(key)
}

func infoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(ctxKey{}).(*requestInfo)
	return ri
}

// RequestID returns the request id of ctx, or "".
func RequestID(ctx context.Context) string {
	if ri := infoFrom(ctx); ri != nil {
		return ri.id
	}
	return ""
}

// LogHandler wraps h so that every record logged with a request's context carries
// its request_id.
func LogHandler(h slog.Handler) slog.Handler { return ctxLogHandler{h} }

type ctxLogHandler struct{ slog.Handler }

func (h ctxLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h ctxLogHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return ctxLogHandler{h.Handler.WithAttrs(a)}
}
func (h ctxLogHandler) WithGroup(n string) slog.Handler { return ctxLogHandler{h.Handler.WithGroup(n)} }

// validRequestID accepts a caller's X-Request-Id of 1–64 printable ASCII characters.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if c <= 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// requestID gives every request an id, echoed in X-Request-Id and every log line.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := headerGet(r.Header, hdrRequestID)
		if !validRequestID(id) {
			// Time-ordered: the request log's index of request ids grows at its right
			// edge instead of taking a write on a random page for every entry.
			id = ids.TimeOrdered("req_", s.cfg.Clock.Now())
		}
		headerSet(w.Header(), hdrRequestID, id)
		_, console := consoleOf(r.Context())
		next.ServeHTTP(w, r.WithContext(&requestInfo{Context: r.Context(), id: id, console: console}))
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	// capture keeps the first reqlog.MaxBody bytes of the answer in body, and counts
	// every byte in size, for the request log; with errorsOnly, only an error's answer
	// (whose code the usage counters keep).
	capture, errorsOnly bool
	body                []byte
	size                int64
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.capture && (!r.errorsOnly || r.status >= 400) {
		r.size += int64(len(b))
		if room := reqlog.MaxBody - len(r.body); room > 0 {
			r.body = append(r.body, b[:min(room, len(b))]...)
		}
	}
	return r.ResponseWriter.Write(b)
}

// logRequests logs one structured line per request; never a header or a body.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := infoFrom(r.Context())
		rec := &ri.rec
		*rec = statusRecorder{ResponseWriter: w, capture: s.cfg.RequestLog != nil}
		var at time.Time
		if rec.capture {
			at = s.cfg.Clock.Now()
			// An entry that would be dropped anyway keeps only an error's answer, for
			// its code; the others go to a buffer the log hands back once written.
			if rec.errorsOnly = s.cfg.RequestLog.Full(); !rec.errorsOnly {
				rec.body = reqlog.CaptureBuffer()
			}
		}
		next.ServeHTTP(rec, r)
		end := time.Now()
		d := end.Sub(start)
		switch {
		case rec.capture && ri.key != nil:
			s.cfg.RequestLog.Record(s.logEntry(r, ri, rec, at, d), !rec.errorsOnly)
		case rec.capture:
			reqlog.Recycle(rec.body)
		}
		s.logRequest(r, ri, rec.status, end, d)
		if s.cfg.Observe != nil {
			s.cfg.Observe(ri.route, rec.status, ri.partnerID, d)
		}
	})
}

// logRequest logs the request's line, as s.logger.InfoContext would with these
// attributes, but with typed attributes (no boxing) and without the caller's program
// counter, which only a handler with AddSource would show (serve's has none): the line
// is the same, its cost smaller.
func (s *Server) logRequest(r *http.Request, ri *requestInfo, status int, at time.Time, d time.Duration) {
	ctx := r.Context()
	h := s.logger.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	rec := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.String("method", r.Method), slog.String("route", ri.route), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Int64("duration_ms", d.Milliseconds()), slog.Int64("partner_id", ri.partnerID),
		slog.Bool("console", ri.console))
	_ = h.Handle(ctx, rec)
}

// recoverPanics turns a panic into a logged 500 envelope.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				writeError(w, r, s.logger, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

var errUnauthorized = tradewind.Errorf(tradewind.ECodeUnauthorized, "A valid, unexpired auth-api-key header is required.")

// authenticate finds the caller of a key. Invalid, revoked and expired keys are told
// apart only in the log, never to the client.
func (s *Server) authenticate(ctx context.Context, key string) (*booking.Caller, error) {
	if !security.ValidKeyShape(key) {
		return nil, errUnauthorized
	}
	hash := security.HashKey(key)
	k, err := s.cfg.Auth.KeyGetByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 {
		return nil, errUnauthorized
	}
	return s.callerOf(ctx, k)
}

// callerOf returns the caller of key k when k is usable and its partner active.
func (s *Server) callerOf(ctx context.Context, k *tradewind.APIKey) (*booking.Caller, error) {
	if !k.Usable(s.cfg.Clock.Now()) {
		s.logger.InfoContext(ctx, "unusable key", "key_id", k.ID, "key_prefix", k.Prefix, "revoked", !k.RevokedAt.IsZero())
		return nil, errUnauthorized
	}
	p, err := s.cfg.Auth.PartnerGetByID(ctx, k.PartnerID)
	if err != nil {
		return nil, err
	}
	if p.Status != tradewind.PartnerActive { // a portal sign-up has no API access until approved
		s.logger.InfoContext(ctx, "key of a partner that is not active", "key_id", k.ID, "partner_status", p.Status)
		return nil, errUnauthorized
	}
	s.cfg.Auth.KeyUsed(k.ID, s.cfg.Clock.Now())
	return &booking.Caller{Partner: p, Key: k}, nil
}

// authenticated runs an endpoint: body limit, key, guards, scope, product,
// Idempotency-Key, handler, envelope.
func (s *Server) authenticated(e endpoint) http.Handler {
	route := e.method + " " + e.path // once, not per request
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := infoFrom(r.Context())
		ri.route = route
		ri.effect = e.effect
		res, err := s.serveEndpoint(w, r, e, ri)
		if err != nil {
			writeError(w, r, s.logger, limitAuthFailure(w, r, err))
			return
		}
		writeSuccess(w, res)
	})
}

// readBody is io.ReadAll(rd), in a buffer of the declared length when there is one (a
// request's body is kept by its request log entry: io.ReadAll's 512 bytes for a
// 100-byte body are garbage for the collector).
func readBody(rd io.Reader, contentLength int64) ([]byte, error) {
	if contentLength <= 0 || contentLength > MaxBodyBytes {
		return io.ReadAll(rd)
	}
	b := make([]byte, 0, contentLength+1) // +1: the read that finds EOF need not grow it
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // a body longer than declared: grow as ReadAll does
		}
	}
}

func (s *Server) serveEndpoint(w http.ResponseWriter, r *http.Request, e endpoint, ri *requestInfo) (*response, error) {
	body, err := readBody(http.MaxBytesReader(w, r.Body, MaxBodyBytes), r.ContentLength)
	ri.body = body
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tradewind.Invalid([]string{fmt.Sprintf("body: larger than %d bytes", MaxBodyBytes)})
		}
		return nil, tradewind.Invalid([]string{"body: could not be read"})
	}
	c, err := s.caller(r)
	if err != nil {
		return nil, err
	}
	ri.partnerID, ri.key = c.Partner.ID, c.Key
	for _, g := range s.cfg.Guards {
		if err := g(w, r, c, body); err != nil {
			return nil, err
		}
	}
	if e.scope != "" && !c.Key.HasScope(e.scope) {
		return nil, tradewind.Errorf(tradewind.ECodeInsufficientScope, "This key lacks the %s scope.", e.scope)
	}
	// Before the body is decoded: a key without the product gets 403 product_not_enabled
	// whatever it sends.
	if e.product != "" {
		if err := c.RequireProduct(e.product); err != nil {
			return nil, err
		}
	}
	if e.idempotent {
		if err := oneHeader(r.Header, hdrIdempotencyKey); err != nil {
			return nil, err
		}
		if err := booking.CheckIdempotencyKey(headerGet(r.Header, hdrIdempotencyKey)); err != nil {
			return nil, err
		}
	}
	if err := checkContentType(r, body); err != nil {
		return nil, err
	}
	queryErr := unknownQuery(r, e)
	if queryErr != nil && e.method != http.MethodGet {
		return nil, queryErr // before anything is priced, held or written
	}
	if err := s.scenario(w, r, e, c); err != nil {
		return nil, err
	}
	res, err := e.h(r, c, body)
	if queryErr != nil {
		// A GET only reads: it ran so that its own problems (a bad filter, say) join
		// the list. An error that is not a bad request (a 404, say) stands alone.
		if err == nil {
			return nil, queryErr
		}
		return nil, joinInvalid(queryErr, err)
	}
	return res, err
}

// unknownQuery refuses the query parameters e does not read (booking.UnknownQuery).
func unknownQuery(r *http.Request, e endpoint) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	return booking.UnknownQuery(r.URL.Query(), e.query, e.method+" "+e.path)
}
