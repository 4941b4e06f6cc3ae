package httpapi_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// secGuards installs the partner guards trusting trust, with limiter (an in-process
// limiter on the environment's clock when nil).
func secGuards(trust security.ProxyTrust, limiter ratelimit.Limiter) apitest.Option {
	return func(cfg *httpapi.Config) {
		if limiter == nil {
			limiter = ratelimit.NewMemory(cfg.Clock.Now)
		}
		cfg.Guards = append(cfg.Guards, httpapi.PartnerGuards(cfg.Service, trust, limiter)...)
	}
}

// secTrust parses trusted proxy CIDRs.
func secTrust(tb testing.TB, cidrs ...string) security.ProxyTrust {
	tb.Helper()
	t, err := security.ParseTrustedProxies(cidrs)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// secOnServer returns a copy of env that sends its requests to srv.
func secOnServer(env *apitest.Env, srv *httptest.Server) *apitest.Env {
	out := *env
	out.Server, out.URL = srv, srv.URL+httpapi.Prefix
	return &out
}

// secSigningSecret reads the partner's current signing secret.
func secSigningSecret(tb testing.TB, env *apitest.Env, name string) string {
	tb.Helper()
	p, err := env.Store.PartnerGetByName(context.Background(), name)
	if err != nil || p.SigningSecret == "" {
		tb.Fatalf("signing secret of %s: %v (%q)", name, err, p.SigningSecret)
	}
	return p.SigningSecret
}

// secSign returns the signature headers computed independently of internal/security: hex
// HMAC-SHA256 over "<ts>.<METHOD>.<Prefix+path>.<raw body>", where path is what the
// client chose to sign (the path alone, or the path and query).
func secSign(secret string, ts int64, method, path, body string) map[string]string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.%s.%s.%s", ts, method, httpapi.Prefix+path, body)
	return map[string]string{"X-Partner-Timestamp": strconv.FormatInt(ts, 10), "X-Partner-Signature": hex.EncodeToString(m.Sum(nil))}
}

// secBody turns "" into no body.
func secBody(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func TestSignature(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		env.Import(apitest.Catalog())
		yes := true
		p := env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes})
		plain := env.NewPartner("plain", booking.PartnerParams{})
		secret := secSigningSecret(t, env, "signer")
		now := env.Clock.Now().Unix()
		search := fmt.Sprintf(`{"destination":"Lisbon","check_in":%q,"check_out":%q,"adults":2}`, apitest.Day(10), apitest.Day(12))
		tampered := strings.Replace(search, `"adults":2`, `"adults":1`, 1)
		upper := secSign(secret, now, "GET", "/meta/ping", "")
		upper["X-Partner-Signature"] = strings.ToUpper(upper["X-Partner-Signature"])
		only := func(h map[string]string, name string) map[string]string { return map[string]string{name: h[name]} }
		valid := secSign(secret, now, "GET", "/meta/ping", "")

		tests := []struct {
			name         string
			method, path string
			body         string
			header       map[string]string
			status       int
			code         string
		}{
			{"valid GET", "GET", "/meta/ping", "", valid, 200, ""},
			{"upper-case hex", "GET", "/meta/ping", "", upper, 200, ""},
			{"query signed as sent", "GET", "/bookings?page=1&per_page=5", "", secSign(secret, now, "GET", "/bookings?page=1&per_page=5", ""), 200, ""},
			// partner-api.md signs "the full path including /api/partner/v1": the path alone.
			{"contract form: path only, query sent", "GET", "/bookings?page=1", "", secSign(secret, now, "GET", "/bookings", ""), 200, ""},
			{"contract form: path only, two parameters", "GET", "/bookings?page=1&per_page=5", "", secSign(secret, now, "GET", "/bookings", ""), 200, ""},
			{"contract form: path only, bare ?", "GET", "/bookings?", "", secSign(secret, now, "GET", "/bookings", ""), 200, ""},
			{"contract form: other path", "GET", "/bookings?page=1", "", secSign(secret, now, "GET", "/meta/ping", ""), 401, "signature_invalid"},
			{"contract form: path with a trailing ?", "GET", "/bookings?page=1", "", secSign(secret, now, "GET", "/bookings?", ""), 401, "signature_invalid"},
			{"query reordered", "GET", "/bookings?page=1&per_page=5", "", secSign(secret, now, "GET", "/bookings?per_page=5&page=1", ""), 401, "signature_invalid"},
			{"query changed after signing", "GET", "/bookings?page=2&per_page=5", "", secSign(secret, now, "GET", "/bookings?page=1&per_page=5", ""), 401, "signature_invalid"},
			{"query signed but not sent", "GET", "/bookings", "", secSign(secret, now, "GET", "/bookings?page=1", ""), 401, "signature_invalid"},
			{"path only, wrong secret", "GET", "/bookings?page=1", "", secSign(secret+"x", now, "GET", "/bookings", ""), 401, "signature_invalid"},
			{"path only, expired", "GET", "/bookings?page=1", "", secSign(secret, now-301, "GET", "/bookings", ""), 401, "signature_expired"},
			{"valid POST with body", "POST", "/hotels/search", search, secSign(secret, now, "POST", "/hotels/search", search), 200, ""},
			{"tampered body", "POST", "/hotels/search", tampered, secSign(secret, now, "POST", "/hotels/search", search), 401, "signature_invalid"},
			{"other path", "GET", "/meta/credit", "", valid, 401, "signature_invalid"},
			{"lower-case method signed", "GET", "/meta/ping", "", secSign(secret, now, "get", "/meta/ping", ""), 401, "signature_invalid"},
			{"wrong secret", "GET", "/meta/ping", "", secSign(secret+"x", now, "GET", "/meta/ping", ""), 401, "signature_invalid"},
			{"timestamp not a number", "GET", "/meta/ping", "", map[string]string{"X-Partner-Timestamp": "soon", "X-Partner-Signature": valid["X-Partner-Signature"]}, 401, "signature_invalid"},
			{"signature not hex", "GET", "/meta/ping", "", map[string]string{"X-Partner-Timestamp": valid["X-Partner-Timestamp"], "X-Partner-Signature": "zz"}, 401, "signature_invalid"},
			{"4m59s old", "GET", "/meta/ping", "", secSign(secret, now-299, "GET", "/meta/ping", ""), 200, ""},
			{"5m01s old", "GET", "/meta/ping", "", secSign(secret, now-301, "GET", "/meta/ping", ""), 401, "signature_expired"},
			{"4m59s ahead", "GET", "/meta/ping", "", secSign(secret, now+299, "GET", "/meta/ping", ""), 200, ""},
			{"5m01s ahead", "GET", "/meta/ping", "", secSign(secret, now+301, "GET", "/meta/ping", ""), 401, "signature_expired"},
			{"no headers", "GET", "/meta/ping", "", nil, 401, "signature_required"},
			{"timestamp only", "GET", "/meta/ping", "", only(valid, "X-Partner-Timestamp"), 401, "signature_required"},
			{"signature only", "GET", "/meta/ping", "", only(valid, "X-Partner-Signature"), 401, "signature_required"},
		}
		for _, key := range []string{p.LiveKey, p.TestKey} {
			for _, tt := range tests {
				res := env.Do(apitest.Request{Method: tt.method, Path: tt.path, Key: key, Body: secBody(tt.body), Header: tt.header})
				if res.Status != tt.status || res.Code != tt.code {
					t.Errorf("%s (%s key): got %d %q, want %d %q: %s", tt.name, key[:7], res.Status, res.Code, tt.status, tt.code, res.Raw)
				}
			}
		}
		// A timestamp that is not unix seconds is named as the problem, not the HMAC.
		bad := env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.LiveKey,
			Header: map[string]string{"X-Partner-Timestamp": "abc", "X-Partner-Signature": valid["X-Partner-Signature"]}}).Expect(t, 401, "signature_invalid")
		if bad.Message == nil || !strings.HasPrefix(*bad.Message, "X-Partner-Timestamp must be the signing time in unix seconds") {
			t.Errorf("malformed timestamp: %s", bad.Raw)
		}
		// A partner that does not sign needs no headers.
		env.Get(plain.LiveKey, "/meta/ping").Expect(t, 200, "")
		// A bad key is refused before the signature is looked at.
		env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: "tw_live_" + strings.Repeat("A", 40), Header: valid}).Expect(t, 401, "unauthorized")
	})
}

func TestSignatureRotationOverlap(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		yes := true
		p := env.NewPartner("rotor", booking.PartnerParams{RequireSignature: &yes})
		old := secSigningSecret(t, env, "rotor")
		if _, err := env.Service.UpdatePartner(context.Background(), "rotor",
			booking.PartnerParams{RotateSigningSecret: true, SecretOverlap: time.Hour}); err != nil {
			t.Fatal(err)
		}
		current := secSigningSecret(t, env, "rotor")
		if current == old {
			t.Fatal("rotation kept the secret")
		}
		ping := func(secret string) *apitest.Response {
			h := secSign(secret, env.Clock.Now().Unix(), "GET", "/meta/ping", "")
			return env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.LiveKey, Header: h})
		}
		// A request with a query string, signed over the path and query (the SDK) or over
		// the path alone (the contract): both forms work with either secret in the overlap.
		list := func(secret, signed string) *apitest.Response {
			h := secSign(secret, env.Clock.Now().Unix(), "GET", signed, "")
			return env.Do(apitest.Request{Method: "GET", Path: "/bookings?page=1", Key: p.LiveKey, Header: h})
		}
		for _, secret := range []string{old, current} {
			ping(secret).Expect(t, 200, "")
			list(secret, "/bookings?page=1").Expect(t, 200, "")
			list(secret, "/bookings").Expect(t, 200, "")
		}
		env.Clock.Advance(59 * time.Minute)
		ping(old).Expect(t, 200, "")
		list(old, "/bookings").Expect(t, 200, "")
		env.Clock.Advance(time.Minute)
		ping(old).Expect(t, 401, "signature_invalid")
		list(old, "/bookings?page=1").Expect(t, 401, "signature_invalid")
		list(old, "/bookings").Expect(t, 401, "signature_invalid")
		ping(current).Expect(t, 200, "")
		list(current, "/bookings?page=1").Expect(t, 200, "")
		list(current, "/bookings").Expect(t, 200, "")
	})
}

func TestIPAllowlist(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		direct := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		proxied := apitest.New(t, o, secGuards(secTrust(t, "127.0.0.1/32"), nil))
		office := []string{"10.0.0.0/8", "203.0.113.7", "2001:db8::/32"}
		type call struct {
			xff    string // "" sends none
			status int
		}
		for i, tt := range []struct {
			name  string
			env   *apitest.Env
			allow []string
			calls []call
		}{
			{"loopback allowed", direct, []string{"127.0.0.1"}, []call{{"", 200}}},
			{"loopback in a CIDR", direct, []string{"127.0.0.0/8"}, []call{{"", 200}}},
			{"no allowlist", direct, nil, []call{{"", 200}, {"192.0.2.1", 200}}},
			{"spoofed X-Forwarded-For from an untrusted peer is ignored", direct, office,
				[]call{{"", 403}, {"10.1.2.3", 403}, {"203.0.113.7", 403}, {"2001:db8::5", 403}}},
			{"X-Forwarded-For from a trusted proxy is honoured", proxied, office, []call{
				{"10.1.2.3", 200}, {"203.0.113.7", 200}, {"203.0.113.8", 403},
				{"2001:db8::5", 200}, {"2001:db8:ffff::1", 200}, {"2001:db9::1", 403}, {"::ffff:10.9.9.9", 200},
				{"", 403}, // the proxy itself is not the partner
				// The rightmost address the proxy did not add is the client: a client cannot
				// smuggle an allowed address in front of its own.
				{"10.1.2.3, 198.51.100.1", 403}, {"198.51.100.1, 10.1.2.3", 200},
			}},
		} {
			p := tt.env.NewPartner(fmt.Sprintf("p%d", i), booking.PartnerParams{AllowIPs: tt.allow})
			for _, c := range tt.calls {
				h := map[string]string{}
				if c.xff != "" {
					h["X-Forwarded-For"] = c.xff
				}
				res := tt.env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.TestKey, Header: h})
				want := ""
				if c.status == 403 {
					want = "ip_not_allowed"
				}
				if res.Status != c.status || res.Code != want {
					t.Errorf("%s: X-Forwarded-For %q: got %d %q, want %d %q", tt.name, c.xff, res.Status, res.Code, c.status, want)
				}
			}
		}

		// IPv6 peers: the same API on [::1].
		ln, err := net.Listen("tcp6", "[::1]:0")
		if err != nil {
			t.Fatalf("IPv6 loopback: %v", err)
		}
		srv6 := httptest.NewUnstartedServer(direct.Server.Config.Handler)
		srv6.Listener.Close()
		srv6.Listener = ln
		srv6.Start()
		t.Cleanup(srv6.Close)
		v6 := secOnServer(direct, srv6)
		p6 := direct.NewPartner("v6", booking.PartnerParams{AllowIPs: []string{"::1/128"}})
		v4 := direct.NewPartner("v4", booking.PartnerParams{AllowIPs: []string{"127.0.0.1/32"}})
		v6.Get(p6.LiveKey, "/meta/ping").Expect(t, 200, "")
		direct.Get(p6.LiveKey, "/meta/ping").Expect(t, 403, "ip_not_allowed")
		v6.Get(v4.LiveKey, "/meta/ping").Expect(t, 403, "ip_not_allowed")
	})
}

// secTLSServer serves env's handler over HTTPS, asking for client certificates verified
// against ca, and returns env bound to it with a client presenting cert (none when nil).
func secTLSServer(t *testing.T, env *apitest.Env, ca *apitest.CA, cert *apitest.Issued) *apitest.Env {
	t.Helper()
	srv := httptest.NewUnstartedServer(env.Server.Config.Handler)
	srv.TLS = &tls.Config{ClientCAs: ca.Pool(), ClientAuth: tls.VerifyClientCertIfGiven}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	if cert != nil {
		srv.Client().Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{cert.TLS}
	}
	return secOnServer(env, srv)
}

// secFingerprint is the SHA-256 of the certificate in the colon-separated upper-case form
// that openssl prints.
func secFingerprint(c *apitest.Issued) string {
	sum := sha256.Sum256(c.Leaf.Raw)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

func TestMutualTLS(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		ca := apitest.NewCA(t)
		certA, certB := ca.IssueClient(t, "partner-a"), ca.IssueClient(t, "partner-b")
		yes := true
		mtls := env.NewPartner("mtls", booking.PartnerParams{RequireMTLS: &yes})
		pinned := env.NewPartner("pinned", booking.PartnerParams{RequireMTLS: &yes, CertFingerprints: []string{secFingerprint(certA)}})
		plain := env.NewPartner("plain", booking.PartnerParams{})

		noCert, withA, withB := secTLSServer(t, env, ca, nil), secTLSServer(t, env, ca, certA), secTLSServer(t, env, ca, certB)
		for _, tt := range []struct {
			name    string
			env     *apitest.Env
			partner *apitest.Partner
			status  int
		}{
			{"no certificate, mTLS not required", noCert, plain, 200},
			{"no certificate", noCert, mtls, 403},
			{"no certificate, pinned", noCert, pinned, 403},
			{"certificate from the CA", withA, mtls, 200},
			{"pinned certificate", withA, pinned, 200},
			{"another certificate from the CA", withB, mtls, 200},
			{"certificate not the pinned one", withB, pinned, 403},
			{"plain HTTP", env, mtls, 403},
		} {
			res := tt.env.Get(tt.partner.LiveKey, "/meta/ping")
			want := ""
			if tt.status == 403 {
				want = "mtls_required"
			}
			if res.Status != tt.status || res.Code != want {
				t.Errorf("%s: got %d %q, want %d %q", tt.name, res.Status, res.Code, tt.status, want)
			}
		}

		// A certificate the CA did not issue fails the TLS handshake itself.
		rogue := apitest.NewCA(t).IssueClient(t, "rogue")
		bad := secTLSServer(t, env, ca, rogue)
		req, _ := http.NewRequest("GET", bad.URL+"/meta/ping", nil)
		req.Header.Set(httpapi.HeaderAPIKey, plain.LiveKey)
		if resp, err := bad.Server.Client().Do(req); err == nil {
			resp.Body.Close()
			t.Errorf("a certificate from another CA was accepted: %d", resp.StatusCode)
		}
	})
}

func TestMutualTLSBehindTrustedEdge(t *testing.T) {
	t.Parallel()
	o := storetest.Openers()[0]
	edge := apitest.New(t, o, secGuards(secTrust(t, "127.0.0.1"), nil))
	untrusted := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
	ca := apitest.NewCA(t)
	certA, certB := ca.IssueClient(t, "a"), ca.IssueClient(t, "b")
	yes := true
	for _, env := range []*apitest.Env{edge, untrusted} {
		env.NewPartner("mtls", booking.PartnerParams{RequireMTLS: &yes})
		env.NewPartner("pinned", booking.PartnerParams{RequireMTLS: &yes, CertFingerprints: []string{secFingerprint(certA)}})
	}
	keys := func(env *apitest.Env, name string) string { return env.NewKey(name, booking.KeyParams{Mode: "live"}) }
	for _, tt := range []struct {
		name    string
		env     *apitest.Env
		partner string
		header  map[string]string
		status  int
	}{
		{"verified by the edge", edge, "mtls", map[string]string{"X-Client-Cert-Verified": "SUCCESS"}, 200},
		{"verified, pinned fingerprint", edge, "pinned", map[string]string{"X-Client-Cert-Verified": "SUCCESS", "X-Client-Cert-Fingerprint": secFingerprint(certA)}, 200},
		{"verified, lower-case fingerprint", edge, "pinned", map[string]string{"X-Client-Cert-Verified": "SUCCESS", "X-Client-Cert-Fingerprint": strings.ToLower(strings.ReplaceAll(secFingerprint(certA), ":", ""))}, 200},
		{"verified, other fingerprint", edge, "pinned", map[string]string{"X-Client-Cert-Verified": "SUCCESS", "X-Client-Cert-Fingerprint": secFingerprint(certB)}, 403},
		{"verified, no fingerprint, pinned", edge, "pinned", map[string]string{"X-Client-Cert-Verified": "SUCCESS"}, 403},
		{"edge failed verification", edge, "mtls", map[string]string{"X-Client-Cert-Verified": "FAILED:unknown CA"}, 403},
		{"no header", edge, "mtls", nil, 403},
		{"headers from an untrusted peer", untrusted, "mtls", map[string]string{"X-Client-Cert-Verified": "SUCCESS"}, 403},
		{"pinned headers from an untrusted peer", untrusted, "pinned", map[string]string{"X-Client-Cert-Verified": "SUCCESS", "X-Client-Cert-Fingerprint": secFingerprint(certA)}, 403},
	} {
		res := tt.env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: keys(tt.env, tt.partner), Header: tt.header})
		want := ""
		if tt.status == 403 {
			want = "mtls_required"
		}
		if res.Status != tt.status || res.Code != want {
			t.Errorf("%s: got %d %q, want %d %q", tt.name, res.Status, res.Code, tt.status, want)
		}
	}
}

// secRateHeaders returns the rate-limit headers of res as "limit/remaining/reset".
func secRateHeaders(res *apitest.Response) string {
	h := res.Header
	return h.Get("RateLimit-Limit") + "/" + h.Get("RateLimit-Remaining") + "/" + h.Get("RateLimit-Reset")
}

// TestRateLimit: a partner's budget is an exact sliding window of 60 s shared by its keys,
// and the headers say when the next request passes.
func TestRateLimit(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		three, big := 3, 1000
		p := env.NewPartner("small", booking.PartnerParams{RateLimit: &three})
		other := env.NewPartner("other", booking.PartnerParams{RateLimit: &big})

		// Test and live keys share one budget of 3 in any 60 s. RateLimit-Reset is when the
		// oldest request leaves the window; with nothing remaining, when the next passes.
		steps := []struct {
			advance    time.Duration
			key        string
			status     int
			headers    string
			retryAfter string
		}{
			{0, p.TestKey, 200, "3/2/60", ""},
			{10 * time.Second, p.LiveKey, 200, "3/1/50", ""},
			{10 * time.Second, p.TestKey, 200, "3/0/40", ""},
			{0, p.LiveKey, 429, "3/0/40", "40"},
			{39 * time.Second, p.TestKey, 429, "3/0/1", "1"}, // 59 s: nothing has refilled
			{time.Second, p.LiveKey, 200, "3/0/10", ""},      // 60 s: the first left the window
			{0, p.LiveKey, 429, "3/0/10", "10"},
			{10 * time.Second, p.TestKey, 200, "3/0/10", ""},
		}
		for i, s := range steps {
			env.Clock.Advance(s.advance)
			res := env.Get(s.key, "/meta/ping")
			if res.Status != s.status || secRateHeaders(res) != s.headers || res.Header.Get("Retry-After") != s.retryAfter {
				t.Fatalf("request %d: got %d %s Retry-After %q, want %d %s %q: %s", i+1, res.Status, secRateHeaders(res),
					res.Header.Get("Retry-After"), s.status, s.headers, s.retryAfter, res.Raw)
			}
			if s.status == 429 {
				res.Expect(t, 429, "rate_limited")
			}
		}
		// Other partners have budgets of their own; unauthenticated requests spend nothing
		// and carry no rate-limit headers.
		if res := env.Get(other.LiveKey, "/meta/ping").Expect(t, 200, ""); secRateHeaders(res) != "1000/999/60" {
			t.Errorf("other partner: %s", secRateHeaders(res))
		}
		if res := env.Get("tw_live_"+strings.Repeat("B", 40), "/meta/ping").Expect(t, 401, "unauthorized"); secRateHeaders(res) != "//" {
			t.Errorf("401 carries rate-limit headers: %s", secRateHeaders(res))
		}
		// Error responses after authentication carry the headers too.
		if res := env.Get(other.LiveKey, "/bookings/HTL-NOPE1234").Expect(t, 404, "not_found"); secRateHeaders(res) != "1000/998/60" {
			t.Errorf("404: %s", secRateHeaders(res))
		}
	})
}

// TestRateLimitNoMinuteExceedsTheBudget sends a request a second for three minutes:
// exactly the budget passes in each minute (a token bucket passed about twice as many in
// the first), and every Retry-After is honest.
func TestRateLimitNoMinuteExceedsTheBudget(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, storetest.Openers()[0], secGuards(security.ProxyTrust{}, nil))
	limit := 20
	p := env.NewPartner("steady", booking.PartnerParams{RateLimit: &limit})
	var perMinute [3]int
	passAt := time.Time{} // the earliest time the last Retry-After promised a pass
	for i := range 3 * 60 {
		now := env.Clock.Now()
		res := env.Get(p.LiveKey, "/meta/ping")
		switch res.Status {
		case 200:
			perMinute[i/60]++
			if now.Before(passAt) {
				t.Fatalf("request %d passed before Retry-After promised", i)
			}
		case 429:
			ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
			if err != nil || ra < 1 || ra > 60 {
				t.Fatalf("request %d: Retry-After %q", i, res.Header.Get("Retry-After"))
			}
			passAt = now.Add(time.Duration(ra-1) * time.Second) // rounded up to whole seconds
		default:
			t.Fatalf("request %d: %d %s", i, res.Status, res.Raw)
		}
		env.Clock.Advance(time.Second)
	}
	if perMinute != [3]int{limit, limit, limit} {
		t.Errorf("allowed per minute %v, want %d each", perMinute, limit)
	}
}

// secRedis returns a client of the test Redis with the production timeouts, failing the
// test if Redis does not answer.
func secRedis(tb testing.TB, dialer func(ctx context.Context, network, addr string) (net.Conn, error)) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: apitest.RedisAddr(), Dialer: dialer, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, DialerRetries: 1, MaxRetries: -1})
	tb.Cleanup(func() { c.Close() })
	return c
}

// secNamespace returns a key prefix unique to the test and deletes its Redis keys at the
// end, so that parallel tests and repeated runs never share a budget.
func secNamespace(tb testing.TB) (string, *redis.Client) {
	tb.Helper()
	admin := secRedis(tb, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := admin.Ping(ctx).Err(); err != nil {
		tb.Fatalf("Redis at %s is required (set TRADEWIND_TEST_REDIS_ADDR to use another): %v", apitest.RedisAddr(), err)
	}
	ns := fmt.Sprintf("tradewind-test:%s:%d:", strings.ReplaceAll(tb.Name(), "/", ":"), time.Now().UnixNano())
	tb.Cleanup(func() {
		keys, _ := admin.Keys(context.Background(), "rate:"+ns+"*").Result()
		if len(keys) > 0 {
			admin.Del(context.Background(), keys...)
		}
	})
	return ns, admin
}

// nsLimiter prefixes every key with a namespace.
type nsLimiter struct {
	ratelimit.Limiter
	ns string
}

func (l nsLimiter) Allow(ctx context.Context, key string, perMinute int) (ratelimit.Result, error) {
	return l.Limiter.Allow(ctx, l.ns+key, perMinute)
}

func TestRateLimitSharedThroughRedis(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ns, _ := secNamespace(t)
		// Two servers over one database, each with its own Redis client and limiter.
		a := apitest.New(t, o, secGuards(security.ProxyTrust{}, nsLimiter{ratelimit.NewRedis(secRedis(t, nil), nil), ns}))
		srvB := httptest.NewServer(httpapi.NewServer(httpapi.Config{Store: a.Store, Service: a.Service,
			Logger: slog.New(slog.DiscardHandler), Clock: a.Clock,
			Guards: httpapi.PartnerGuards(a.Service, security.ProxyTrust{}, nsLimiter{ratelimit.NewRedis(secRedis(t, nil), nil), ns})}))
		t.Cleanup(srvB.Close)
		b := secOnServer(a, srvB)
		four := 4
		p := a.NewPartner("shared", booking.PartnerParams{RateLimit: &four})

		for i, env := range []*apitest.Env{a, b, a, b} {
			key := []string{p.TestKey, p.LiveKey}[i%2]
			res := env.Get(key, "/meta/ping").Expect(t, 200, "")
			if got, want := secRateHeaders(res), fmt.Sprintf("4/%d/", 3-i); !strings.HasPrefix(got, want) {
				t.Errorf("request %d: headers %s, want %s…", i+1, got, want)
			}
		}
		for _, env := range []*apitest.Env{a, b} {
			res := env.Get(p.LiveKey, "/meta/ping").Expect(t, 429, "rate_limited")
			// The window is Redis's clock: the first request leaves it in just under 60 s.
			ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
			if err != nil || ra < 50 || ra > 60 || res.Header.Get("RateLimit-Reset") != res.Header.Get("Retry-After") {
				t.Errorf("Retry-After %q, RateLimit-Reset %q, want the same, about 60 seconds",
					res.Header.Get("Retry-After"), res.Header.Get("RateLimit-Reset"))
			}
		}
	})
}

// redisSwitch is a dialer that refuses connections until up is set.
type redisSwitch struct{ up atomic.Bool }

func (s *redisSwitch) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !s.up.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused (test switch)")}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func TestRateLimitFailsOpenWhenRedisIsDown(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ns, admin := secNamespace(t)
		var sw redisSwitch
		client := secRedis(t, sw.dial)
		env := apitest.New(t, o, func(cfg *httpapi.Config) {
			limiter := ratelimit.NewFailOpen(ratelimit.NewRedis(client, nil), cfg.Logger, ratelimit.NewMemory(cfg.Clock.Now))
			secGuards(security.ProxyTrust{}, nsLimiter{limiter, ns})(cfg)
		})
		two := 2
		p := env.NewPartner("open", booking.PartnerParams{RateLimit: &two})
		redisKey := fmt.Sprintf("rate:%spartner:%d", ns, p.ID)

		// Redis down: the API answers, and this server still enforces the budget alone.
		env.Get(p.LiveKey, "/meta/ping").Expect(t, 200, "")
		if res := env.Get(p.TestKey, "/meta/ping").Expect(t, 200, ""); secRateHeaders(res) != "2/0/60" {
			t.Errorf("fallback headers %s", secRateHeaders(res))
		}
		env.Get(p.LiveKey, "/meta/ping").Expect(t, 429, "rate_limited")
		if !strings.Contains(env.LogText(), "failing open") {
			t.Errorf("the outage was not logged:\n%s", env.LogText())
		}
		if n := admin.Exists(context.Background(), redisKey).Val(); n != 0 {
			t.Fatalf("Redis key exists while Redis is down")
		}

		// Redis back: after the probe interval the shared budget applies again.
		sw.up.Store(true)
		time.Sleep(5*time.Second + 200*time.Millisecond)
		env.Get(p.LiveKey, "/meta/ping").Expect(t, 200, "")
		if n := admin.Exists(context.Background(), redisKey).Val(); n != 1 {
			t.Errorf("the limiter did not return to Redis")
		}
		env.Get(p.LiveKey, "/meta/ping").Expect(t, 200, "")
		env.Get(p.LiveKey, "/meta/ping").Expect(t, 429, "rate_limited")
	})
}

// secFailureEnv starts the API with the partner guards and LimitAuthFailures of perMinute
// failures per address, trusting 127.0.0.1 as a proxy so that tests choose the address.
func secFailureEnv(t *testing.T, perMinute int) *apitest.Env {
	t.Helper()
	trust := secTrust(t, "127.0.0.1")
	return apitest.New(t, storetest.Openers()[0], secGuards(trust, nil), func(cfg *httpapi.Config) {
		cfg.Middleware = append(cfg.Middleware, httpapi.LimitAuthFailures(trust, perMinute, cfg.Clock.Now))
	})
}

// TestLimitAuthFailures: an address that sends too many bad keys is refused further bad
// keys, while good keys from the same address pass untouched.
func TestLimitAuthFailures(t *testing.T) {
	t.Parallel()
	env := secFailureEnv(t, 5)
	yes, big := true, 1000
	p := env.NewPartner("good", booking.PartnerParams{RateLimit: &big})
	signerKey := env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes, RateLimit: &big}).LiveKey
	secret := secSigningSecret(t, env, "signer")
	bad := "tw_live_" + strings.Repeat("C", 40)
	from := func(addr, key string, header map[string]string) *apitest.Response {
		h := map[string]string{"X-Forwarded-For": addr}
		maps.Copy(h, header)
		return env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: key, Header: h})
	}

	// Requests with good keys never count, nor do bad signatures on a good key.
	for range 20 {
		from("198.51.100.1", p.LiveKey, nil).Expect(t, 200, "")
		from("198.51.100.1", signerKey, nil).Expect(t, 401, "signature_required")
	}
	// Five bad keys, one a second, are answered 401; the sixth is refused until the first
	// leaves the minute (55 s later), and a refused attempt does not count.
	for _, key := range []string{bad, "", "not-a-key", bad, "tw_test_" + strings.Repeat("C", 40)} {
		from("198.51.100.1", key, nil).Expect(t, 401, "unauthorized")
		env.Clock.Advance(time.Second)
	}
	for range 3 {
		res := from("198.51.100.1", bad, nil).Expect(t, 429, "rate_limited")
		if ra := res.Header.Get("Retry-After"); ra != "55" {
			t.Errorf("Retry-After %q, want 55", ra)
		}
		if res.Header.Get("X-Request-Id") == "" {
			t.Errorf("429 without X-Request-Id")
		}
	}
	// Meanwhile good keys from the same address pass, signed requests included.
	from("198.51.100.1", p.LiveKey, nil).Expect(t, 200, "")
	from("198.51.100.1", signerKey, secSign(secret, env.Clock.Now().Unix(), "GET", "/meta/ping", "")).Expect(t, 200, "")
	from("198.51.100.1", signerKey, nil).Expect(t, 401, "signature_required")
	// Other addresses, and the health checks, are not affected.
	from("198.51.100.2", bad, nil).Expect(t, 401, "unauthorized")
	if resp, err := env.Server.Client().Get(env.Server.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz while an address is refused: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// A second before the first failure leaves the window: still refused; then exactly one
	// more bad key is answered 401, the next waits for the second failure (1 s).
	env.Clock.Advance(54 * time.Second)
	if res := from("198.51.100.1", bad, nil).Expect(t, 429, "rate_limited"); res.Header.Get("Retry-After") != "1" {
		t.Errorf("at 59 s: Retry-After %q, want 1", res.Header.Get("Retry-After"))
	}
	env.Clock.Advance(time.Second)
	from("198.51.100.1", bad, nil).Expect(t, 401, "unauthorized")
	if res := from("198.51.100.1", bad, nil).Expect(t, 429, "rate_limited"); res.Header.Get("Retry-After") != "1" {
		t.Errorf("at 60 s: Retry-After %q, want 1", res.Header.Get("Retry-After"))
	}
	from("198.51.100.1", p.LiveKey, nil).Expect(t, 200, "")
}

func TestLimitAuthFailuresGroupsIPv6By64(t *testing.T) {
	t.Parallel()
	env := secFailureEnv(t, 1)
	p := env.NewPartner("good", booking.PartnerParams{})
	bad := "tw_test_" + strings.Repeat("D", 40)
	from := func(addr, key string) *apitest.Response {
		return env.Do(apitest.Request{Method: "GET", Path: "/meta/ping", Key: key, Header: map[string]string{"X-Forwarded-For": addr}})
	}
	from("2001:db8:1:2::1", bad).Expect(t, 401, "unauthorized")
	from("2001:db8:1:2::2", bad).Expect(t, 429, "rate_limited") // the same /64
	from("2001:db8:1:2:ffff::3", bad).Expect(t, 429, "rate_limited")
	from("2001:db8:1:2:ffff::3", p.TestKey).Expect(t, 200, "")
	from("2001:db8:1:3::1", bad).Expect(t, 401, "unauthorized")
}
