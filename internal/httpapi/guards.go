package httpapi

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/replay"
	"github.com/tradewind/tradewind/internal/security"
)

// Rate-limit response headers; see docs/security.md.
const (
	HeaderRateLimitLimit     = "RateLimit-Limit"     // HeaderRateLimitLimit is the partner's budget per minute.
	HeaderRateLimitRemaining = "RateLimit-Remaining" // HeaderRateLimitRemaining is how many requests would be allowed now.
	HeaderRateLimitReset     = "RateLimit-Reset"     // HeaderRateLimitReset is the whole seconds until the budget is full again.
	HeaderRetryAfter         = "Retry-After"         // HeaderRetryAfter is the whole seconds to wait after a 429.
)

// PartnerGuards returns the contract checks in the order a request meets them once its
// key is authenticated: IP allowlist, mutual TLS, request signature (accepted once on a
// state-changing endpoint, recorded in the database of svc), rate limit.
func PartnerGuards(svc *booking.Service, trust security.ProxyTrust, limiter ratelimit.Limiter) []Guard {
	return PartnerGuardsWithLedger(svc, trust, limiter, replay.NewStore(svc.Store, svc.Clock.Now))
}

// PartnerGuardsWithLedger is PartnerGuards recording signatures in ledger (Redis, with
// --redis), refusing state-changing signed requests with 503 while it cannot answer.
// On a test console call the portal session stands in for all but the rate limit, which
// the console shares with the partner's API calls.
func PartnerGuardsWithLedger(svc *booking.Service, trust security.ProxyTrust, limiter ratelimit.Limiter, ledger replay.Ledger) []Guard {
	return []Guard{sessionStandsIn(IPAllowlist(trust)), sessionStandsIn(MutualTLS(trust)), sessionStandsIn(Signature(svc)),
		sessionStandsIn(NoReplay(ledger)), RateLimit(limiter)}
}

// IPAllowlist returns the guard that answers 403 ip_not_allowed when the partner has an
// allowlist and the client address (the peer, or X-Forwarded-For from a trusted proxy)
// is outside it.
func IPAllowlist(trust security.ProxyTrust) Guard {
	return func(_ http.ResponseWriter, r *http.Request, c *booking.Caller, _ []byte) error {
		if len(c.Partner.AllowIPs) == 0 {
			return nil
		}
		allow, err := security.ParseAllowlist(c.Partner.AllowIPs)
		if err != nil {
			return fmt.Errorf("allowlist of partner %d: %w", c.Partner.ID, err)
		}
		if allow.Empty() {
			return nil
		}
		if ip := trust.ClientIP(r); !allow.Allows(ip) {
			return tradewind.Errorf(tradewind.ECodeIPNotAllowed,
				"Requests from %s are not allowed for this partner; ask the operator to register the address.", ip)
		}
		return nil
	}
}

// MutualTLS returns the guard that answers 403 mtls_required when the partner requires a
// client certificate (or pins any) and the request carries no verified one, or one that
// matches none of the partner's pinned fingerprints.
func MutualTLS(trust security.ProxyTrust) Guard {
	return func(_ http.ResponseWriter, r *http.Request, c *booking.Caller, _ []byte) error {
		p := c.Partner
		if !p.RequireMTLS && len(p.CertFingerprints) == 0 {
			return nil
		}
		fp, ok := security.VerifiedClientCert(r, trust)
		if !ok {
			return tradewind.Errorf(tradewind.ECodeMTLSRequired, "A verified client certificate is required for this partner.")
		}
		if len(p.CertFingerprints) > 0 && !slices.Contains(p.CertFingerprints, fp) {
			return tradewind.Errorf(tradewind.ECodeMTLSRequired, "The client certificate is not one registered for this partner.")
		}
		return nil
	}
}

// Signature returns the guard that verifies the HMAC request signature of partners that
// require signing against svc.SigningSecrets (so a rotation's previous secret still works
// during its overlap): 401 signature_required, signature_expired or signature_invalid.
// The signature may cover the path alone (the contract's form) or, when the request has a
// query string, the path and query as sent (what the SDK signs).
func Signature(svc *booking.Service) Guard {
	return func(_ http.ResponseWriter, r *http.Request, c *booking.Caller, body []byte) error {
		if !c.Partner.RequireSignature {
			return nil
		}
		// The contract signs the path alone; the SDK signs path and query (stronger).
		// With a query string both are accepted.
		err := security.VerifyRequestTargets(svc.SigningSecrets(c.Partner), r.Header.Get(security.HeaderTimestamp),
			r.Header.Get(security.HeaderSignature), r.Method, security.RequestTargets(r), body, svc.Clock.Now(), security.DefaultMaxSkew)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, security.ErrSignatureRequired):
			return tradewind.Errorf(tradewind.ECodeSignatureRequired,
				"This partner signs its requests: send the %s and %s headers.", security.HeaderTimestamp, security.HeaderSignature)
		case errors.Is(err, security.ErrSignatureExpired):
			return tradewind.Errorf(tradewind.ECodeSignatureExpired,
				"%s must be within %v of the server time; check the client's clock.", security.HeaderTimestamp, security.DefaultMaxSkew)
		case errors.Is(err, security.ErrTimestampMalformed):
			return tradewind.Errorf(tradewind.ECodeSignatureInvalid,
				"%s must be the signing time in unix seconds, digits only (such as %d).", security.HeaderTimestamp, svc.Clock.Now().Unix())
		case errors.Is(err, security.ErrSignatureInvalid):
			return tradewind.Errorf(tradewind.ECodeSignatureInvalid,
				"%s is not the hex HMAC-SHA256 of \"<timestamp>.<METHOD>.<path, or path and query, as sent>.<raw body>\".", security.HeaderSignature)
		}
		return err
	}
}

// replayMargin keeps a signature's record this long past its validity window, so that a
// server whose clock runs behind another's still finds it.
const replayMargin = time.Minute

// ReplayRetryAfter is the Retry-After, in seconds, of a signed state-changing request
// refused because the replay ledger could not answer.
const ReplayRetryAfter = 1

// NoReplay returns the guard that accepts a verified signature of a state-changing
// request (book, cancel, webhook create and delete) once: the same signature seen again
// while it could still verify is 401 signature_invalid, on every server sharing ledger.
// When ledger cannot answer, the request is refused with 503 service_unavailable and
// Retry-After (fail closed; replay.Monitor logs and counts it). It runs after Signature;
// requests of partners that do not sign, and reads, pass without asking ledger.
func NoReplay(ledger replay.Ledger) Guard {
	return func(w http.ResponseWriter, r *http.Request, c *booking.Caller, _ []byte) error {
		if !c.Partner.RequireSignature || infoFrom(r.Context()).effect != stateChanging {
			return nil
		}
		// Signature checked both headers; the record is of the signature's bytes, so
		// that re-casing the hex does not make a new signature.
		sig, err := hex.DecodeString(strings.TrimSpace(r.Header.Get(security.HeaderSignature)))
		ts, tsErr := strconv.ParseInt(strings.TrimSpace(r.Header.Get(security.HeaderTimestamp)), 10, 64)
		if err != nil || tsErr != nil {
			return tradewind.Errorf(tradewind.ECodeSignatureInvalid, "%s is not a hex HMAC-SHA256.", security.HeaderSignature)
		}
		expires := time.Unix(ts, 0).Add(security.DefaultMaxSkew + replayMargin)
		first, err := ledger.First(r.Context(), c.Partner.ID, sig, expires)
		if err != nil {
			// Fail closed: the ledger may hold this signature (Redis can time out after
			// recording it), and nothing else knows it. The retry must be signed afresh.
			return tradewind.Errorf(tradewind.ECodeUnavailable,
				"Signed requests that change state cannot be checked for replays right now; nothing was changed. Retry after %d seconds, signed afresh with a new %s.",
				ReplayRetryAfter, security.HeaderTimestamp).RetryIn(ReplayRetryAfter)
		}
		if !first {
			return tradewind.Errorf(tradewind.ECodeSignatureInvalid,
				"This %s was already used: the request was replayed. A request that changes state is accepted once per signature; sign every attempt, retries included, afresh with a new %s.",
				security.HeaderSignature, security.HeaderTimestamp)
		}
		return nil
	}
}

// RateLimit returns the guard that spends one request of the partner's budget
// (Partner.RateLimit per minute, all its keys together) from limiter, sets the
// RateLimit-* headers on the response, and answers 429 rate_limited with Retry-After
// when the budget is spent.
func RateLimit(limiter ratelimit.Limiter) Guard {
	return func(w http.ResponseWriter, r *http.Request, c *booking.Caller, _ []byte) error {
		perMinute := c.Partner.RateLimit
		if perMinute < 1 {
			perMinute = booking.DefaultRateLimit
		}
		var key [len("partner:") + 20]byte // "partner:" and the id, built in one allocation
		res, err := limiter.Allow(r.Context(), string(strconv.AppendInt(append(key[:0], "partner:"...), c.Partner.ID, 10)), perMinute)
		if err != nil {
			return fmt.Errorf("rate limit of partner %d: %w", c.Partner.ID, err)
		}
		h := w.Header()
		headerSet(h, hdrRateLimitLimit, strconv.Itoa(res.Limit))
		headerSet(h, hdrRateLimitRemaining, strconv.Itoa(res.Remaining))
		headerSet(h, hdrRateLimitReset, strconv.Itoa(ratelimit.CeilSeconds(res.ResetAfter)))
		if !res.Allowed {
			return rateLimited(res.RetryAfterSeconds(), fmt.Sprintf("%d requests per minute", perMinute))
		}
		return nil
	}
}

// rateLimited returns the 429 rate_limited error, with its Retry-After.
func rateLimited(retryAfter int, budget string) error {
	return tradewind.Errorf(tradewind.ECodeRateLimited, "Rate limit of %s exceeded; retry after %d seconds.", budget, retryAfter).RetryIn(retryAfter)
}

// AuthFailureLimit is the number of failed authentications per minute that
// LimitAuthFailures allows one client address by default.
const AuthFailureLimit = 60

// LimitAuthFailures returns middleware that limits, per client address (an IPv6 address
// by its /64), the partner API requests refused for their key (401 unauthorized: a
// missing, malformed, unknown, revoked or expired key) to perMinute in any minute, in an
// in-process sliding window. A bad key beyond that is answered 429 rate_limited with
// Retry-After (when a bad key would be answered 401 again) instead of 401; a refused
// attempt does not count. A request with a usable key is never counted nor refused, even
// when its signature fails, so clients with good keys behind one address are never
// throttled by a neighbour sending bad ones: they meet only their partner's budget.
func LimitAuthFailures(trust security.ProxyTrust, perMinute int, now func() time.Time) func(http.Handler) http.Handler {
	f := &authFailures{trust: trust, perMinute: perMinute, limiter: ratelimit.NewMemory(now)}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isPartnerAPI(r) {
				r = r.WithContext(context.WithValue(r.Context(), authFailuresKey{}, f))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// authFailures is the state of LimitAuthFailures, which it leaves in the context of each
// partner API request for limitAuthFailure.
type authFailures struct {
	trust     security.ProxyTrust
	perMinute int
	limiter   *ratelimit.Memory
}

type authFailuresKey struct{}

// limitAuthFailure is called with the error that answers a partner API request. When
// LimitAuthFailures is in use and err refuses the key (401 unauthorized), it counts the
// failure against the client address and returns the 429 that replaces the 401 once the
// address has failed perMinute times in the last minute; otherwise it returns err.
func limitAuthFailure(w http.ResponseWriter, r *http.Request, err error) error {
	f, _ := r.Context().Value(authFailuresKey{}).(*authFailures)
	var te *tradewind.Error
	if f == nil || !errors.As(err, &te) || te.Code != tradewind.ECodeUnauthorized {
		return err
	}
	res, lerr := f.limiter.Allow(r.Context(), f.clientKey(r), f.perMinute)
	if lerr != nil || res.Allowed {
		return err
	}
	return rateLimited(res.RetryAfterSeconds(), fmt.Sprintf("%d failed authentications per minute from one address", f.perMinute))
}

// isPartnerAPI reports whether r is for the partner API (not /healthz, /readyz).
func isPartnerAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, Prefix+"/") }

// clientKey returns the limiter key of r's client address: the address for IPv4, its /64
// for IPv6 (one subscriber typically holds a whole /64).
func (f *authFailures) clientKey(r *http.Request) string {
	ip := f.trust.ClientIP(r)
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}
