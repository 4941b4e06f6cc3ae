package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// surfaceAnswerBound is the most an answer may add to the size of its request.
const surfaceAnswerBound = 64 << 10

// surfaceRoutes returns every route the server has, as "METHOD /path" with the full path:
// the partner API's, the documentation's and the probes.
func surfaceRoutes() []string {
	var out []string
	for _, r := range httpapi.Routes() {
		m, p, _ := strings.Cut(r, " ")
		out = append(out, m+" "+httpapi.Prefix+p)
	}
	for _, r := range openapi.Routes() {
		m, p, _ := strings.Cut(r, " ")
		out = append(out, m+" "+httpapi.Prefix+p)
	}
	return append(out, "GET /healthz", "GET /readyz")
}

// surfaceTarget builds a request target from a route path, its {parameters} replaced by
// param, then mutated: mutation selects where extra goes (none, a parameter, a suffix, a
// prefix, a dot or empty segment, the query).
func surfaceTarget(path string, mutation uint8, extra string) string {
	param := "1"
	if mutation%8 == 1 {
		param = extra
	}
	// One pass over the route's path: a param that holds braces is not a parameter
	// again (replacing until none is left never ended for one).
	var b strings.Builder
	for {
		i, j := strings.IndexByte(path, '{'), strings.IndexByte(path, '}')
		if i < 0 || j < i {
			break
		}
		b.WriteString(path[:i] + param)
		path = path[j+1:]
	}
	b.WriteString(path)
	path = b.String()
	switch mutation % 8 {
	case 2:
		return path + extra
	case 3:
		return extra + path
	case 4:
		i := strings.LastIndexByte(path, '/')
		return path[:i] + "/." + path[i:]
	case 5:
		i := strings.LastIndexByte(path, '/')
		return path[:i] + "/" + path[i:]
	case 6:
		return path + "?" + extra
	case 7:
		return path + "/" + extra
	}
	return path
}

// FuzzHTTPSurface sends requests over the whole HTTP surface — methods, every route's
// path with mutations, a header of any name and value, any body, with no key, a test or
// live key, a signing partner's key with a valid signature, or a bad key — through
// net/http's own request parser. Whatever is sent, the answer is never a 5xx, is the JSON
// envelope (except the documentation routes' and probes' successful answers, which are
// documents of their own) with nosniff, and is bounded: at most 64 KiB more than the
// request. Requests net/http's parser refuses are net/http's to answer (bare; see
// docs/security.md) and are skipped. `go test` runs the seeds (testdata/fuzz too).
func FuzzHTTPSurface(f *testing.F) {
	routes := surfaceRoutes()
	for i := range routes {
		f.Add("", uint8(i), uint8(0), "", "", "", uint8(i%5), []byte(nil))
	}
	for _, s := range []struct {
		method        string
		route, mut    uint8
		extra, hn, hv string
		key           uint8
		body          string
	}{
		{"POST", 2, 0, "", "Content-Type", "application/json", 1, `{"destination":"Lisbon","check_in":"2027-01-05","check_out":"2027-01-07"}`},
		{"POST", 2, 0, "", "Content-Type", "text/plain", 1, `{}`},
		{"POST", 2, 0, "", "", "", 1, `{"destination":"Lisbon"}`},
		{"POST", 16, 0, "", "Content-Type", "application/json", 3, `{"product_type":"hotel","hotel_id":501,"room_id":50101,"check_in":"2027-01-05","check_out":"2027-01-07","rooms":1,"adults":1,"guest":{"name":"A"}}`},
		{"POST", 16, 0, "", "Idempotency-Key", strings.Repeat("k", 300), 2, `{}`},
		{"POST", 16, 0, "", "Content-Type", "application/json", 3, `{"product_type":"hotel","hotel_id":501,"hotel_id":502,"guest":{"name":"A","name":"\ud800","x":[{"a":1,"a":[]}]}}`},
		{"GET", 0, 4, "", "", "", 1, ""},
		{"GET", 0, 5, "", "", "", 1, ""},
		{"GET", 3, 1, "%2e%2e", "", "", 1, ""},
		{"GET", 3, 1, "99999999999999999999999", "", "", 1, ""},
		{"GET", 17, 1, "HTL-%00", "", "", 2, ""},
		{"GET", 0, 3, "/.", "", "", 1, ""},
		{"GET", 0, 6, "page=-1&per_page=100000", "", "", 1, ""},
		{"GET", 15, 6, strings.Repeat("page=2&", 200), "", "", 2, ""},
		{"GET", 0, 0, "", "X-Pad", strings.Repeat("x", 70<<10), 1, ""},
		{"GET", 0, 0, "", "X-Request-Id", "\x80\xff", 1, ""},
		{"GET", 0, 0, "", "auth-api-key", "tw_live_\xff", 0, ""},
		{"GET", 0, 0, "", "X-Partner-Signature", strings.Repeat("ab", 32), 3, ""},
		{"GET", 0, 0, "", "X-Partner-Timestamp", "-1", 3, ""},
		{"GET", 0, 0, "", "X-Forwarded-For", "1.2.3.4, ::1, garbage", 1, ""},
		{"PATCH", 16, 0, "", "", "", 1, "{}"},
		{"OPTIONS", 0, 0, "", "", "", 1, ""},
		{"HEAD", 0, 0, "", "", "", 1, ""},
		{"TRACE", 0, 0, "", "", "", 0, ""},
		{"GET", 0, 2, "/", "", "", 1, ""},
		{"DELETE", 21, 1, "-1", "", "", 3, ""},
		{"POST", 20, 0, "", "Content-Type", "application/json; charset=utf-8", 3, `{"url":"https://hooks.example.com/x","event_types":["booking.cancelled"]}`},
		{"GET", 22, 0, "", "", "", 0, ""},
		{"GET", 24, 4, "", "", "", 0, ""},
	} {
		f.Add(s.method, s.route, s.mut, s.extra, s.hn, s.hv, s.key, []byte(s.body))
	}

	env := apitest.New(f, storetest.Openers()[0], secGuards(security.ProxyTrust{}, nil))
	env.Import(apitest.Catalog())
	unlimited := 1_000_000 // the fuzzer is not a rate-limit test
	yes := true
	p := env.NewPartner("fuzz", booking.PartnerParams{RateLimit: &unlimited})
	env.NewPartner("signer", booking.PartnerParams{RateLimit: &unlimited, RequireSignature: &yes})
	signerKey := env.NewKey("signer", booking.KeyParams{Mode: "test"})
	secret := secSigningSecret(f, env, "signer")
	handler := env.Server.Config.Handler
	var n int

	f.Fuzz(func(t *testing.T, method string, route, mutation uint8, extra, hname, hvalue string, key uint8, body []byte) {
		rm, rp, _ := strings.Cut(routes[int(route)%len(routes)], " ")
		if method == "" {
			method = rm
		}
		target := surfaceTarget(rp, mutation, extra)
		var head bytes.Buffer
		fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: api.example\r\n", method, target)
		switch key % 5 {
		case 1:
			fmt.Fprintf(&head, "auth-api-key: %s\r\n", p.TestKey)
		case 2:
			fmt.Fprintf(&head, "auth-api-key: %s\r\n", p.LiveKey)
		case 3:
			n++
			sig := secSign(secret, env.Clock.Now().Unix(), method, strings.TrimPrefix(target, httpapi.Prefix), string(body))
			fmt.Fprintf(&head, "auth-api-key: %s\r\nX-Partner-Timestamp: %s\r\nX-Partner-Signature: %s\r\nIdempotency-Key: fuzz-%d\r\n",
				signerKey, sig["X-Partner-Timestamp"], sig["X-Partner-Signature"], n)
		case 4:
			head.WriteString("auth-api-key: tw_live_" + strings.Repeat("Z", 40) + "\r\n")
		}
		if hname != "" {
			fmt.Fprintf(&head, "%s: %s\r\n", hname, hvalue)
		}
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", len(body))
		in := head.Len() + len(body)
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(append(head.Bytes(), body...))))
		if err != nil {
			return // net/http's parser refuses it: net/http answers, bare
		}
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		res := rec.Result()
		out := rec.Body.Bytes()
		what := fmt.Sprintf("%s %.200q", method, target)
		if res.StatusCode >= 500 {
			t.Fatalf("%s → %d %s", what, res.StatusCode, out)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: no X-Content-Type-Options: nosniff", what)
		}
		if res.StatusCode < 300 && slices.Contains([]string{"/healthz", "/readyz", httpapi.Prefix + "/docs", httpapi.Prefix + "/openapi.json",
			httpapi.Prefix + "/openapi.yaml"}, req.URL.Path) {
			return // documents of their own, the same whatever the request (documented)
		}
		if len(out) > surfaceAnswerBound+in {
			t.Fatalf("%s: a %d-byte request got a %d-byte answer", what, in, len(out))
		}
		if req.Method == http.MethodHead {
			return // no body to judge
		}
		var envl struct {
			Success *bool            `json:"success"`
			Message *string          `json:"message"`
			Code    string           `json:"code"`
			Errors  []string         `json:"errors"`
			Data    *json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(out, &envl); err != nil || envl.Success == nil || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s → %d is not the envelope: %.300s", what, res.StatusCode, out)
		}
		if *envl.Success != (res.StatusCode < 400) || !*envl.Success && (envl.Code == "" || envl.Message == nil || envl.Errors == nil) ||
			*envl.Success && envl.Data == nil {
			t.Fatalf("%s → %d: envelope incomplete: %.300s", what, res.StatusCode, out)
		}
	})
}
