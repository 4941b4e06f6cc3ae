package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradewind/tradewind/internal/security"
)

// BasePath is the path of the partner API on its host.
const BasePath = "/api/partner/v1"

// DefaultMaxAttempts is how many times a call is tried, in all, unless WithRetry says otherwise.
const DefaultMaxAttempts = 3

// DefaultUserAgent is the User-Agent the client sends unless WithUserAgent says otherwise.
const DefaultUserAgent = "tradewind-go/1.0"

// HeaderIdempotencyKey is the request header that makes POST /bookings idempotent.
const HeaderIdempotencyKey = "Idempotency-Key"

// maxResponse bounds the body of one response.
const maxResponse = 16 << 20

// Client calls the partner API with one API key; it is safe for concurrent use.
type Client struct {
	base        string // scheme://host/…/api/partner/v1, without a trailing slash
	baseErr     error  // why baseURL was unusable, returned by every call
	apiKey      string
	httpClient  *http.Client
	secret      string
	maxAttempts int
	userAgent   string
	now         func() time.Time
	sleep       func(ctx context.Context, d time.Duration) error
	stamps      stamps
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send its requests with hc (for timeouts, proxies, mutual
// TLS or tests) instead of a client with a 60-second timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithSigningSecret signs every request with the partner's signing secret: the hex
// HMAC-SHA256 of "<unix seconds>.<METHOD>.<path and ?query as sent>.<raw body>" in
// X-Partner-Signature, and the seconds in X-Partner-Timestamp.
func WithSigningSecret(secret string) Option { return func(c *Client) { c.secret = secret } }

// WithRetry sets how many times, in all, a call is tried (1: never retried).
func WithRetry(maxAttempts int) Option {
	return func(c *Client) { c.maxAttempts = max(maxAttempts, 1) }
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the API at baseURL with the API key apiKey (a tw_test_… or
// tw_live_… key; it decides the mode of every request).
//
// baseURL is the API's base address, ending in /api/partner/v1; a bare
// "https://host" gets BasePath appended. An unusable baseURL makes every call fail.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{apiKey: apiKey, httpClient: &http.Client{Timeout: 60 * time.Second}, maxAttempts: DefaultMaxAttempts,
		userAgent: DefaultUserAgent, now: time.Now, sleep: sleepCtx}
	c.base, c.baseErr = normalizeBase(baseURL)
	for _, opt := range opts {
		opt(c)
	}
	return c
}

func normalizeBase(baseURL string) (string, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("client: base URL %q is not an http(s) URL", baseURL)
	}
	if u.Path == "" {
		u.Path = BasePath
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call is one API call.
type call struct {
	method string
	path   string // relative to the base, with any query
	body   any    // marshalled as JSON; nil for none
	header http.Header
	// safe calls have no effect when repeated (reads, prebook, a book with its
	// Idempotency-Key): they are retried after network errors and 502–504 answers too.
	safe bool
}

// result is a decoded success envelope.
type result struct {
	status  int
	message *string
	data    json.RawMessage
	meta    json.RawMessage
}

// envelope is the body of every API response.
type envelope struct {
	Success bool            `json:"success"`
	Message *string         `json:"message"`
	Data    json.RawMessage `json:"data"`
	Meta    json.RawMessage `json:"meta"`
	Code    string          `json:"code"`
	Reason  string          `json:"reason"`
	Errors  []string        `json:"errors"`
}

// do runs a call with retries and decodes its data into out and its meta into meta
// (either may be nil).
//
// Every call is retried on 429 rate_limited and on Tradewind's own 503
// service_unavailable (replay ledger or sandbox scenario) after its Retry-After, since
// such a refused request had no effect. Safe calls are also retried after network
// errors and any 502, 503 and 504 answer, with exponential backoff and jitter. No retry
// outlasts ctx's deadline.
func (c *Client) do(ctx context.Context, cl call, out, meta any) (*result, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	var body []byte
	if cl.body != nil {
		var err error
		if body, err = json.Marshal(cl.body); err != nil {
			return nil, fmt.Errorf("client: encoding the request: %w", err)
		}
	}
	for attempt := 1; ; attempt++ {
		res, err := c.once(ctx, cl, body)
		if err == nil {
			if out != nil && len(res.data) > 0 {
				if err := json.Unmarshal(res.data, out); err != nil {
					return nil, fmt.Errorf("client: %s %s: decoding data: %w", cl.method, cl.path, err)
				}
			}
			if meta != nil && len(res.meta) > 0 {
				if err := json.Unmarshal(res.meta, meta); err != nil {
					return nil, fmt.Errorf("client: %s %s: decoding meta: %w", cl.method, cl.path, err)
				}
			}
			return res, nil
		}
		wait, retry := c.retryAfter(cl, err, attempt)
		if !retry || attempt >= c.maxAttempts || ctx.Err() != nil {
			return nil, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return nil, err
		}
		if c.sleep(ctx, wait) != nil {
			return nil, err
		}
	}
}

// retryAfter tells whether a failed attempt may be retried and after how long.
func (c *Client) retryAfter(cl call, err error, attempt int) (time.Duration, bool) {
	backoff := 250 * time.Millisecond << min(attempt-1, 5)
	backoff = backoff/2 + mathrand.N(backoff) // 0.5–1.5 × the base
	var apiErr *Error
	switch {
	case errors.As(err, &apiErr):
		retry := refusedUnchanged(apiErr) || cl.safe && IsTemporary(err)
		if apiErr.RetryAfter > 0 {
			return apiErr.RetryAfter, retry
		}
		return backoff, retry
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 0, false
	default: // the transport failed: the request may or may not have arrived
		var decode *decodeError
		return backoff, cl.safe && !errors.As(err, &decode)
	}
}

// refusedUnchanged tells whether an answer is a refusal that changed nothing, so safe to
// retry for any call: 429 rate_limited, or a 503 in the API's envelope with
// service_unavailable (a proxy's bare 503 may come after the request had its effect).
func refusedUnchanged(e *Error) bool {
	return e.HTTPStatus == http.StatusTooManyRequests ||
		e.HTTPStatus == http.StatusServiceUnavailable && e.Code == CodeServiceUnavailable
}

// decodeError is a success answer whose body could not be read as an envelope.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return e.err.Error() }
func (e *decodeError) Unwrap() error { return e.err }

// once sends one attempt of a call.
func (c *Client) once(ctx context.Context, cl call, body []byte) (*result, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.base+cl.path, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	for k, v := range cl.header {
		req.Header[k] = v
	}
	req.Header.Set("auth-api-key", c.apiKey)
	if sc := scenarioOf(ctx); sc != "" {
		req.Header.Set(HeaderScenario, sc)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.secret != "" {
		// Each attempt is signed afresh, never with a signature this client sent before:
		// the server accepts a state-changing request's signature once.
		ts, sig := c.stamps.sign(c.secret, c.now().Unix(), req.Method, req.URL.RequestURI(), body)
		req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(HeaderSignature, sig)
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: reading the response: %w", cl.method, cl.path, err)
	}
	var env envelope
	decodeErr := json.Unmarshal(raw, &env)
	if resp.StatusCode >= 300 {
		return nil, apiError(resp, &env, decodeErr)
	}
	if decodeErr != nil || !env.Success {
		return nil, &decodeError{fmt.Errorf("client: %s %s: %d answer is not a success envelope: %.200s", cl.method, cl.path, resp.StatusCode, raw)}
	}
	return &result{status: resp.StatusCode, message: env.Message, data: env.Data, meta: env.Meta}, nil
}

// apiError turns an error answer into an *Error, whatever its body.
func apiError(resp *http.Response, env *envelope, decodeErr error) *Error {
	e := &Error{HTTPStatus: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	if decodeErr == nil && env.Code != "" {
		e.Code, e.Reason, e.Errors = env.Code, env.Reason, env.Errors
		if env.Message != nil {
			e.Message = *env.Message
		}
	} else {
		e.Message = http.StatusText(resp.StatusCode) + " (the answer is not an API error envelope)"
	}
	return e
}

// stamps signs requests so that no two carry the same signature. The signature covers
// "<unix seconds>.<METHOD>.<path>.<body>", so two identical requests in one second — a
// retry after a quick failure, or two identical cancellations — would sign the same
// string, and the server refuses the second as a replay (decisions.md). A request whose
// signature this client already sent in that second is signed one second later instead
// (well within the server's five minutes of tolerated skew).
type stamps struct {
	mu   sync.Mutex
	used map[string]int64 // signature → its timestamp, only timestamps not yet past
}

// sign returns the timestamp and signature of a request signed at now or later.
func (s *stamps) sign(secret string, now int64, method, target string, body []byte) (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[string]int64{}
	}
	for sig, ts := range s.used {
		if ts < now { // a signature of an earlier second can no longer be produced
			delete(s.used, sig)
		}
	}
	for ts := now; ; ts++ {
		sig := security.SignRequest(secret, ts, method, target, body)
		if _, sent := s.used[sig]; !sent {
			s.used[sig] = ts
			return ts, sig
		}
	}
}

// newIdempotencyKey returns a random key for a booking attempt.
func newIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails on supported platforms
	return "twsdk-" + hex.EncodeToString(b)
}
