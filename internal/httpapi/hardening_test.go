package httpapi_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// secLogLines decodes the JSON log lines written after the first skip bytes.
func secLogLines(tb testing.TB, env *apitest.Env, skip int) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(env.LogText()[skip:]), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			tb.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

var generatedRequestID = regexp.MustCompile(`^req_[0-9A-Za-z]{24}$`)

// TestRequestIDEverywhere checks that every response, whatever answers it, carries an
// X-Request-Id, and that every line logged while serving carries that request_id.
func TestRequestIDEverywhere(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil), func(cfg *httpapi.Config) {
			cfg.Middleware = append(cfg.Middleware, httpapi.LimitAuthFailures(security.ProxyTrust{}, 1, cfg.Clock.Now))
		})
		yes, one := true, 1
		p := env.NewPartner("acme", booking.PartnerParams{})
		slow := env.NewPartner("slow", booking.PartnerParams{RateLimit: &one})
		signer := env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes})
		fenced := env.NewPartner("fenced", booking.PartnerParams{AllowIPs: []string{"192.0.2.0/24"}})
		narrow := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"catalog:read"}})
		mark := len(env.LogText())

		huge := `{"destination":"` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`
		seen := map[string]bool{}
		for _, tt := range []struct {
			name string
			req  apitest.Request
			want int
		}{
			{"ok", apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.LiveKey}, 200},
			{"body too large", apitest.Request{Method: "POST", Path: "/hotels/search", Key: p.LiveKey, Body: huge}, 400},
			{"scope", apitest.Request{Method: "GET", Path: "/bookings", Key: narrow}, 403},
			{"allowlist", apitest.Request{Method: "GET", Path: "/meta/ping", Key: fenced.LiveKey}, 403},
			{"not found", apitest.Request{Method: "GET", Path: "/bookings/HTL-00000000", Key: p.LiveKey}, 404},
			{"no endpoint", apitest.Request{Method: "GET", Path: "/nowhere", Key: p.LiveKey}, 404},
			{"method", apitest.Request{Method: "DELETE", Path: "/meta/ping", Key: p.LiveKey}, 405},
			{"rate ok", apitest.Request{Method: "GET", Path: "/meta/ping", Key: slow.LiveKey}, 200},
			{"rate limited", apitest.Request{Method: "GET", Path: "/meta/ping", Key: slow.LiveKey}, 429},
			{"unsigned", apitest.Request{Method: "GET", Path: "/meta/ping", Key: signer.LiveKey}, 401},
			{"bad key", apitest.Request{Method: "GET", Path: "/meta/ping", Key: "tw_live_" + strings.Repeat("E", 40)}, 401},
			{"failures blocked", apitest.Request{Method: "GET", Path: "/meta/ping", Key: "tw_live_" + strings.Repeat("F", 40)}, 429},
		} {
			res := env.Do(tt.req)
			id := res.Header.Get("X-Request-Id")
			if res.Status != tt.want || !generatedRequestID.MatchString(id) || seen[id] {
				t.Errorf("%s: %d with X-Request-Id %q (want %d and a new generated id)", tt.name, res.Status, id, tt.want)
			}
			seen[id] = true
		}
		for _, path := range []string{"/healthz", "/readyz"} {
			resp, err := env.Server.Client().Get(env.Server.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if id := resp.Header.Get("X-Request-Id"); resp.StatusCode != 200 || !generatedRequestID.MatchString(id) {
				t.Errorf("%s: %d with X-Request-Id %q", path, resp.StatusCode, id)
			}
		}
		// A caller's id is echoed; a malformed one is replaced.
		for id, echoed := range map[string]bool{"trace-42/abc": true, "has space": false, strings.Repeat("a", 65): false} {
			res := env.Do(apitest.Request{Method: "GET", Path: "/meta/credit", Key: p.TestKey, Header: map[string]string{"X-Request-Id": id}})
			if got := res.Header.Get("X-Request-Id"); (got == id) != echoed || got == "" {
				t.Errorf("X-Request-Id %q answered with %q", id, got)
			}
		}

		lines := secLogLines(t, env, mark)
		logged := map[string]bool{}
		for _, l := range lines {
			id, _ := l["request_id"].(string)
			if id == "" {
				t.Errorf("log line without request_id: %v", l)
			}
			if l["msg"] == "request" {
				logged[id] = true
			}
		}
		for id := range seen {
			if !logged[id] {
				t.Errorf("no request line logged for %s", id)
			}
		}
	})
}

// TestNoSecretsInLogs sends keys, signing secrets' signatures and bad credentials, and
// checks that none of them reaches the log.
func TestNoSecretsInLogs(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		env.Import(apitest.Catalog())
		yes := true
		p := env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes})
		secret := secSigningSecret(t, env, "signer")
		expiring := env.NewKey("signer", booking.KeyParams{Mode: "live", ExpiresAt: env.Clock.Now().Add(time.Minute)})
		badKey := "tw_live_" + strings.Repeat("F", 40)
		var sent []string

		call := func(key, method, path, body string, header map[string]string) {
			env.Do(apitest.Request{Method: method, Path: path, Key: key, Body: secBody(body), Header: header})
			sent = append(sent, header["X-Partner-Signature"])
		}
		now := env.Clock.Now().Unix()
		call(p.LiveKey, "GET", "/meta/ping", "", secSign(secret, now, "GET", "/meta/ping", ""))
		call(p.TestKey, "GET", "/bookings?page=2", "", secSign(secret, now, "GET", "/bookings?page=2", ""))
		call(p.LiveKey, "GET", "/meta/credit", "", secSign(secret, now, "GET", "/meta/ping", ""))    // invalid
		call(p.LiveKey, "GET", "/meta/ping", "", secSign(secret, now-3600, "GET", "/meta/ping", "")) // expired
		body := `{"product_type":"hotel","hotel_id":501}`
		call(p.LiveKey, "POST", "/bookings", body, secSign(secret, now, "POST", "/bookings", body)) // no Idempotency-Key
		call(badKey, "GET", "/meta/ping", "", secSign(secret, now, "GET", "/meta/ping", ""))
		env.Clock.Advance(2 * time.Minute)
		call(expiring, "GET", "/meta/ping", "", secSign(secret, env.Clock.Now().Unix(), "GET", "/meta/ping", ""))

		logs := env.LogText()
		if !strings.Contains(logs, `"msg":"request"`) || !strings.Contains(logs, "unusable key") {
			t.Fatalf("the requests were not logged:\n%s", logs)
		}
		for name, s := range map[string]string{"test key": p.TestKey, "live key": p.LiveKey, "expired key": expiring,
			"bad key": badKey, "signing secret": secret, "secret body": strings.TrimPrefix(secret, security.SecretPrefixSigning)} {
			if strings.Contains(logs, s) {
				t.Errorf("the log contains the %s", name)
			}
		}
		for _, sig := range sent {
			if sig != "" && strings.Contains(logs, sig) {
				t.Errorf("the log contains a signature")
			}
		}
		if strings.Contains(strings.ToLower(logs), strings.ToLower(httpapi.HeaderAPIKey)+`":`) {
			t.Errorf("the log contains the key header:\n%s", logs)
		}
	})
}
