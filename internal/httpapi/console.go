package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
)

// The portal's test console (shared/spec/portal.md) sends its calls through
// ServeConsole: the same handler chain as an API call (request id, log line, rate limit,
// scope, product, Idempotency-Key, sandbox scenario, handler, envelope), authenticated
// by key id for the signed-in partner instead of by the auth-api-key header, whose raw
// value is not stored. The portal session stands in for the IP allowlist, mutual TLS and
// request signature (see sessionStandsIn).

// consoleCall is the key a console call runs as; only ServeConsole puts one in a
// request's context, so no API client can make its request a console call.
type consoleCall struct{ partnerID, keyID int64 }

type consoleCtxKey struct{}

func consoleOf(ctx context.Context) (consoleCall, bool) {
	cc, ok := ctx.Value(consoleCtxKey{}).(consoleCall)
	return cc, ok
}

// consoleDropped are the request headers a console call never carries: the key is
// chosen by id, and the guards that read the others do not run.
var consoleDropped = []string{HeaderAPIKey, security.HeaderSignature, security.HeaderTimestamp, "Cookie", "Authorization"}

// ServeConsole serves r as a test console call of partner partnerID with its test key
// keyID. The portal has checked that the signed-in member may use the console; this
// checks that the key is the partner's, a test key and usable (else 401 unauthorized,
// as for a bad key), and the booking service refuses to cancel a live booking for it.
func (s *Server) ServeConsole(w http.ResponseWriter, r *http.Request, partnerID, keyID int64) {
	for _, h := range consoleDropped {
		r.Header.Del(h)
	}
	if r.Body == nil { // as a server's request always has one
		r.Body = http.NoBody
	}
	r = r.WithContext(context.WithValue(r.Context(), consoleCtxKey{}, consoleCall{partnerID: partnerID, keyID: keyID}))
	s.handler.ServeHTTP(w, r)
}

// caller authenticates r: by its auth-api-key header, or, for a console call, by the
// key id ServeConsole gave.
func (s *Server) caller(r *http.Request) (*booking.Caller, error) {
	if cc, ok := consoleOf(r.Context()); ok {
		return s.authenticateConsole(r.Context(), cc)
	}
	if n := len(r.Header[hdrAPIKey]); n > 1 {
		// Two keys (a proxy adding its own, say) are refused rather than one of them
		// chosen: which partner is calling must never be a guess.
		return nil, tradewind.Errorf(tradewind.ECodeUnauthorized, "Send one auth-api-key header, not %d.", n)
	}
	return s.authenticate(r.Context(), headerGet(r.Header, hdrAPIKey))
}

// authenticateConsole finds the caller of a console call: the partner's own usable test
// key, marked as a console caller.
func (s *Server) authenticateConsole(ctx context.Context, cc consoleCall) (*booking.Caller, error) {
	k, err := s.cfg.Store.KeyGetByID(ctx, cc.keyID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if k.PartnerID != cc.partnerID || k.Mode != tradewind.ModeTest {
		s.logger.InfoContext(ctx, "console key refused", "key_id", k.ID, "partner_id", cc.partnerID, "mode", k.Mode)
		return nil, errUnauthorized
	}
	c, err := s.callerOf(ctx, k)
	if err != nil {
		return nil, err
	}
	c.Console = true
	return c, nil
}

// sessionStandsIn wraps a guard for which the portal session stands in on a console
// call (IP allowlist, mutual TLS, signature and its replay check): the call comes from
// the portal's server, not from the partner's network, and nothing signs it.
func sessionStandsIn(g Guard) Guard {
	return func(w http.ResponseWriter, r *http.Request, c *booking.Caller, body []byte) error {
		if c.Console {
			return nil
		}
		return g(w, r, c, body)
	}
}
