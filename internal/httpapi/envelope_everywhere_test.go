package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// rawAnswer is a response to a request written byte for byte.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// rawRequest writes head (request line and header lines, without the blank line ending
// the head) and body to env's server on a new connection, and reads the answer.
func rawRequest(t *testing.T, env *apitest.Env, head, body string) rawAnswer {
	t.Helper()
	conn, err := net.Dial("tcp", env.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	go func() { _, _ = io.WriteString(conn, head+"\r\nConnection: close\r\n\r\n"+body) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.80q: %v", head, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: b}
}

// envelopeCode returns the code of an error envelope, failing the test when body is not one.
func envelopeCode(t *testing.T, what string, a rawAnswer) string {
	t.Helper()
	var env struct {
		Success *bool    `json:"success"`
		Message *string  `json:"message"`
		Code    string   `json:"code"`
		Errors  []string `json:"errors"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil || env.Success == nil || *env.Success || env.Message == nil || env.Errors == nil ||
		a.header.Get("Content-Type") != "application/json" {
		t.Errorf("%s: %d %q is not the error envelope", what, a.status, a.body)
	}
	return env.Code
}

// TestEveryAnswerIsTheEnvelope sends what a careless client or an attacker might, byte
// for byte: paths that are not canonical, the prefix without its slash, "OPTIONS *",
// oversized headers, a body without Content-Type. Each is answered in the envelope, never
// redirected; the cases net/http answers itself are pinned as documented.
func TestEveryAnswerIsTheEnvelope(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		p := env.NewPartner("acme", booking.PartnerParams{})
		key := "auth-api-key: " + p.TestKey
		for _, tt := range []struct {
			target, method string
			status         int
			code           string
		}{
			{"/api/partner/v1/meta/./ping", "GET", 404, "not_found"},
			{"/api/partner/v1/meta/../meta/ping", "GET", 404, "not_found"},
			{"/api/partner/v1//meta/ping", "GET", 404, "not_found"},
			{"//api/partner/v1/meta/ping", "GET", 404, "not_found"},
			{"/api/partner/v1/meta/ping/.", "GET", 404, "not_found"},
			{"/api/partner/v1/%2E/meta/ping", "GET", 404, "not_found"},
			{"/api/partner/v1/docs/..", "GET", 404, "not_found"},
			{"/api/partner/v1/./openapi.json", "GET", 404, "not_found"},
			{"/api/partner/v1", "GET", 404, "not_found"},
			{"/", "GET", 404, "not_found"},
			{"/favicon.ico", "GET", 404, "not_found"},
			{"/healthz", "POST", 405, "method_not_allowed"},
			{"/api/partner/v1/docs", "POST", 405, "method_not_allowed"},
			{"*", "OPTIONS", 400, "bad_request"},
		} {
			what := tt.method + " " + tt.target
			a := rawRequest(t, env, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: api.example\r\n%s", tt.method, tt.target, key), "")
			if a.status != tt.status || envelopeCode(t, what, a) != tt.code || a.header.Get("Location") != "" {
				t.Errorf("%s: %d %s (Location %q), want %d %s", what, a.status, a.body, a.header.Get("Location"), tt.status, tt.code)
			}
		}

		// The head: over httpapi.MaxHeaderBytes the envelope says 431; over the server's
		// limit net/http answers a bare 431 itself, and a malformed header line a bare 400
		// (docs/security.md lists these).
		big := rawRequest(t, env, "GET /api/partner/v1/meta/ping HTTP/1.1\r\nHost: a\r\n"+key+"\r\nX-Pad: "+strings.Repeat("x", httpapi.MaxHeaderBytes), "")
		if big.status != 431 || envelopeCode(t, "oversized header", big) != "bad_request" {
			t.Errorf("oversized header: %d %s", big.status, big.body)
		}
		if a := rawRequest(t, env, "GET /api/partner/v1/meta/ping HTTP/1.1\r\nHost: a\r\nX-Pad: "+strings.Repeat("x", httpapi.ServerMaxHeaderBytes+8<<10), ""); a.status != 431 {
			t.Errorf("a head over the server's limit: %d, want net/http's 431", a.status)
		}
		if a := rawRequest(t, env, "GET /api/partner/v1/meta/ping HTTP/1.1\r\nHost: a\r\nX-Bad\x01: v", ""); a.status != 400 {
			t.Errorf("malformed header line: %d, want net/http's 400", a.status)
		}
		just := rawRequest(t, env, "GET /api/partner/v1/meta/ping HTTP/1.1\r\nHost: a\r\n"+key+"\r\nX-Pad: "+strings.Repeat("x", httpapi.MaxHeaderBytes-200), "")
		if just.status != 200 {
			t.Errorf("a head just under the limit: %d %s", just.status, just.body)
		}

		// A write with a body and no Content-Type, or another one, is 400.
		body := `{"destination":"Lisbon","check_in":"2027-02-01","check_out":"2027-02-03"}`
		for _, ct := range []string{"", "\r\nContent-Type: text/plain", "\r\nContent-Type: application/x-www-form-urlencoded"} {
			a := rawRequest(t, env, fmt.Sprintf("POST /api/partner/v1/hotels/search HTTP/1.1\r\nHost: a\r\n%s\r\nContent-Length: %d%s", key, len(body), ct), body)
			if a.status != 400 || envelopeCode(t, "content type "+ct, a) != "bad_request" || !strings.Contains(string(a.body), "Content-Type") {
				t.Errorf("body with Content-Type %q: %d %s", ct, a.status, a.body)
			}
		}
		a := rawRequest(t, env, fmt.Sprintf("POST /api/partner/v1/hotels/search HTTP/1.1\r\nHost: a\r\n%s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d", key, len(body)), body)
		if a.status != 200 {
			t.Errorf("application/json with a charset: %d %s", a.status, a.body)
		}
	})
}

// TestSecureHeaders: nosniff on every answer, no-store on every answer of the API, and
// a Content-Security-Policy on the reference page.
func TestSecureHeaders(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		p := env.NewPartner("acme", booking.PartnerParams{})
		for _, r := range []apitest.Request{
			{Method: "GET", Path: "/meta/ping", Key: p.TestKey},
			{Method: "GET", Path: "/meta/credit", Key: p.LiveKey},
			{Method: "GET", Path: "/bookings/HTL-00000000", Key: p.LiveKey},
			{Method: "GET", Path: "/meta/ping"},
			{Method: "POST", Path: "/hotels/search", Key: p.TestKey, Body: "{"},
			{Method: "GET", Path: "/nowhere", Key: p.TestKey},
		} {
			res := env.Do(r)
			if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s %s (%d): X-Content-Type-Options %q, Cache-Control %q", r.Method, r.Path, res.Status,
					res.Header.Get("X-Content-Type-Options"), res.Header.Get("Cache-Control"))
			}
		}
		for _, path := range []string{"/healthz", httpapi.Prefix + "/openapi.json", httpapi.Prefix + "/openapi.yaml", httpapi.Prefix + "/docs"} {
			resp, err := env.Server.Client().Get(env.Server.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: %d, X-Content-Type-Options %q", path, resp.StatusCode, resp.Header.Get("X-Content-Type-Options"))
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if strings.HasSuffix(path, "/docs") != (csp != "") {
				t.Errorf("%s: Content-Security-Policy %q", path, csp)
			}
			if strings.HasSuffix(path, "/docs") && (!strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline")) {
				t.Errorf("%s: Content-Security-Policy %q, want default-src 'none' and no unsafe-inline", path, csp)
			}
		}
	})
}
