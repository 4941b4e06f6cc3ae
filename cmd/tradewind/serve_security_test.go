package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// secResponse is what secCall read from the API.
type secResponse struct {
	status int
	header http.Header
	code   string
	body   string
}

// secCall sends a request with the key through client and reads the envelope's code.
func secCall(t *testing.T, client *http.Client, method, url, key string, body io.Reader, header map[string]string) secResponse {
	t.Helper()
	r, err := secDo(client, method, url, key, body, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

// secDo is secCall for other goroutines: it returns the error instead of failing.
func secDo(client *http.Client, method, url, key string, body io.Reader, header map[string]string) (secResponse, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return secResponse{}, err
	}
	if key != "" {
		req.Header.Set("auth-api-key", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return secResponse{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	var env struct{ Code string }
	_ = json.Unmarshal(raw, &env)
	return secResponse{resp.StatusCode, resp.Header, env.Code, string(raw)}, err
}

// secIssueKey creates a partner with the flags and returns a new test key of it.
func secIssueKey(t *testing.T, dsn, name string, flags ...string) string {
	t.Helper()
	var p map[string]any
	mustJSON(t, dsn, &p, append([]string{"partner", "create", "--name", name}, flags...)...)
	var k struct{ Key string }
	mustJSON(t, dsn, &k, "key", "issue", "--partner", name, "--mode", "test")
	return k.Key
}

// secWrite writes data to a new file in dir and returns its path.
func secWrite(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var metricsAt = regexp.MustCompile(`Metrics served at (http://\S+)`)

func TestServeTLSClientCertificatesAndMetrics(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	dir := t.TempDir()
	ca := apitest.NewCA(t)
	srvCert, clientCert := ca.IssueServer(t), ca.IssueClient(t, "acme")
	acme := secIssueKey(t, dsn, "acme", "--require-mtls")
	open := secIssueKey(t, dsn, "open")

	s := startServe(t, dsn, "--tls-cert", secWrite(t, dir, "server.pem", srvCert.CertPEM),
		"--tls-key", secWrite(t, dir, "server.key", srvCert.KeyPEM), "--client-ca", secWrite(t, dir, "ca.pem", ca.PEM),
		"--admin-addr", "127.0.0.1:0")
	if !strings.HasPrefix(s.base, "https://127.0.0.1:") {
		t.Fatalf("serving %s, want https", s.base)
	}
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	withCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{clientCert.TLS}}}}
	t.Cleanup(anonymous.CloseIdleConnections)
	t.Cleanup(withCert.CloseIdleConnections)

	if r := secCall(t, anonymous, "GET", s.base+"/meta/ping", acme, nil, nil); r.status != 403 || r.code != "mtls_required" {
		t.Errorf("mTLS partner without a certificate: %d %s", r.status, r.body)
	}
	r := secCall(t, withCert, "GET", s.base+"/meta/ping", acme, nil, nil)
	if r.status != 200 || r.header.Get("RateLimit-Limit") != "120" {
		t.Errorf("mTLS partner with a certificate: %d %v %s", r.status, r.header, r.body)
	}
	if r := secCall(t, anonymous, "GET", s.base+"/meta/ping", open, nil, nil); r.status != 200 {
		t.Errorf("partner without mTLS, no certificate: %d %s", r.status, r.body)
	}
	origin := strings.TrimSuffix(s.base, "/api/partner/v1")
	if r := secCall(t, anonymous, "GET", origin+"/metrics", "", nil, nil); r.status != 404 {
		t.Errorf("/metrics on the partner listener: %d", r.status)
	}

	m := metricsAt.FindStringSubmatch(s.out.String())
	if m == nil {
		t.Fatalf("no metrics address printed:\n%s", s.out.String())
	}
	text := secCall(t, http.DefaultClient, "GET", m[1], "", nil, nil).body
	for _, want := range []string{
		`tradewind_http_requests_total{partner="1",route="GET /meta/ping",status="403"} 1`,
		`tradewind_http_requests_total{partner="1",route="GET /meta/ping",status="200"} 1`,
		`tradewind_http_requests_total{partner="2",route="GET /meta/ping",status="200"} 1`,
		`tradewind_http_request_duration_seconds_count{route="GET /meta/ping"} 3`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, text)
		}
	}
}

func TestServeSecurityFlagErrors(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	dir := t.TempDir()
	ca := apitest.NewCA(t)
	cert := ca.IssueServer(t)
	certFile, keyFile := secWrite(t, dir, "c.pem", cert.CertPEM), secWrite(t, dir, "k.pem", cert.KeyPEM)
	caFile := secWrite(t, dir, "ca.pem", ca.PEM)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--client-ca", caFile}, "--client-ca needs --tls-cert and --tls-key"},
		{[]string{"--tls-cert", certFile}, "--tls-cert and --tls-key must be given together"},
		{[]string{"--tls-cert", certFile, "--tls-key", caFile}, "--tls-cert/--tls-key"},
		{[]string{"--tls-cert", certFile, "--tls-key", keyFile, "--client-ca", keyFile}, "no PEM certificate"},
		{[]string{"--trusted-proxies", "10.0.0.0/8,nonsense"}, "--trusted-proxies"},
		{[]string{"--redis", "http://127.0.0.1:6379"}, "--redis"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := run(ctx, append([]string{"--db", dsn, "serve", "--addr", "127.0.0.1:0"}, tt.args...),
			func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("serve %v: %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}

// TestServeRedisSharedBudget runs two servers over one database and one Redis: the
// partner's budget is shared, whichever server answers.
func TestServeRedisSharedBudget(t *testing.T) {
	t.Parallel()
	const redisDB = 15 // a database of its own, so that no other rate:partner:1 is touched
	admin := redis.NewClient(&redis.Options{Addr: apitest.RedisAddr(), DB: redisDB})
	t.Cleanup(func() { admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := admin.Ping(ctx).Err(); err != nil {
		t.Fatalf("Redis at %s is required (set TRADEWIND_TEST_REDIS_ADDR): %v", apitest.RedisAddr(), err)
	}
	dsn := storetest.SQLiteDSN(t)
	key := secIssueKey(t, dsn, "shared", "--rate-limit", "3")
	clear := func() { admin.Del(context.Background(), "rate:partner:1") }
	clear()
	t.Cleanup(clear)

	redisURL := fmt.Sprintf("redis://%s/%d", apitest.RedisAddr(), redisDB)
	a, b := startServe(t, dsn, "--redis", redisURL), startServe(t, dsn, "--redis", redisURL)
	for i, s := range []*runningServer{a, b, a} {
		if r := secCall(t, http.DefaultClient, "GET", s.base+"/meta/ping", key, nil, nil); r.status != 200 ||
			r.header.Get("RateLimit-Remaining") != fmt.Sprint(2-i) {
			t.Errorf("request %d: %d remaining %q", i+1, r.status, r.header.Get("RateLimit-Remaining"))
		}
	}
	for _, s := range []*runningServer{b, a} {
		if r := secCall(t, http.DefaultClient, "GET", s.base+"/meta/ping", key, nil, nil); r.status != 429 || r.code != "rate_limited" ||
			r.header.Get("Retry-After") == "" {
			t.Errorf("over budget: %d %v %s", r.status, r.header, r.body)
		}
	}
}

// hangingRedis returns the address of a port that accepts connections and never answers:
// a stuck Redis.
func hangingRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 100)
	t.Cleanup(func() {
		ln.Close()
		close(conns)
		for c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case conns <- c:
			default:
				c.Close()
			}
		}
	}()
	return ln.Addr().String()
}

// TestServeRedisUnreachableFailsOpen checks that the server keeps answering with --redis
// hanging, limiting on its own. How long a hanging Redis may cost a request is the client's
// timeouts, checked by TestServeRedisClientTimeouts (no wall-clock assertion here).
func TestServeRedisUnreachableFailsOpen(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	key := secIssueKey(t, dsn, "open", "--rate-limit", "2")
	s := startServe(t, dsn, "--redis", "redis://"+hangingRedis(t)+"/0")
	for i, want := range []int{200, 200, 429} {
		if r := secCall(t, http.DefaultClient, "GET", s.base+"/meta/ping", key, nil, nil); r.status != want {
			t.Errorf("request %d: %d, want %d: %s", i+1, r.status, want, r.body)
		}
	}
}

// TestServeReplayRedisStuck: with --redis stuck (it accepts connections and never
// answers), the replay ledger cannot answer, so a signed state-changing request is refused
// with 503 service_unavailable and Retry-After, and creates nothing; reads are answered;
// /metrics counts the refusal.
func TestServeReplayRedisStuck(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	secret, key := secSigner(t, dsn)
	s := startServe(t, dsn, "--redis", "redis://"+hangingRedis(t)+"/0", "--admin-addr", "127.0.0.1:0")

	body := `{"url":"https://hooks.signer.example/tw","event_types":["booking.cancelled"]}`
	ts := time.Now().Unix()
	r := secCall(t, http.DefaultClient, "POST", s.base+"/webhooks", key, strings.NewReader(body),
		signedHeaders(secret, ts, "POST", "/webhooks", body))
	if r.status != 503 || r.code != "service_unavailable" || r.header.Get("Retry-After") != strconv.Itoa(httpapi.ReplayRetryAfter) {
		t.Errorf("signed subscription with Redis stuck: %d Retry-After %q %s, want 503 service_unavailable with Retry-After %d",
			r.status, r.header.Get("Retry-After"), r.body, httpapi.ReplayRetryAfter)
	}
	r = secCall(t, http.DefaultClient, "GET", s.base+"/webhooks", key, nil, signedHeaders(secret, ts, "GET", "/webhooks", ""))
	if r.status != 200 || strings.Contains(r.body, `"id"`) {
		t.Errorf("subscriptions (a read) with Redis stuck: %d %s, want 200 and none", r.status, r.body)
	}
	m := metricsAt.FindStringSubmatch(s.out.String())
	if m == nil {
		t.Fatalf("no metrics address printed:\n%s", s.out.String())
	}
	if text := secCall(t, http.DefaultClient, "GET", m[1], "", nil, nil).body; !strings.Contains(text, "tradewind_replay_ledger_failures_total 1\n") {
		t.Errorf("/metrics does not count the refusal:\n%s", text)
	}
}

// secSigner creates the partner "signer", which signs its requests, and returns its
// signing secret and a new test key of it.
func secSigner(t *testing.T, dsn string) (secret, key string) {
	t.Helper()
	var p struct {
		SigningSecret string `json:"signing_secret"`
	}
	mustJSON(t, dsn, &p, "partner", "create", "--name", "signer", "--require-signature")
	var k struct{ Key string }
	mustJSON(t, dsn, &k, "key", "issue", "--partner", "signer", "--mode", "test")
	return p.SigningSecret, k.Key
}

// signedHeaders returns the JSON content type and the signature headers of a request to
// the partner API path signed at ts.
func signedHeaders(secret string, ts int64, method, path, body string) map[string]string {
	return map[string]string{"Content-Type": "application/json", "X-Partner-Timestamp": strconv.FormatInt(ts, 10),
		"X-Partner-Signature": security.SignRequest(secret, ts, method, httpapi.Prefix+path, []byte(body))}
}

// TestServeGracefulShutdown starts a request, shuts the server down while its body is
// still being sent, and checks that the request is answered in full and serve returns.
// It also checks the header size limit.
func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	key := secIssueKey(t, dsn, "acme")
	s := startServe(t, dsn)

	if r := secCall(t, http.DefaultClient, "GET", s.base+"/meta/ping", key, nil,
		map[string]string{"X-Padding": strings.Repeat("x", 80<<10)}); r.status != http.StatusRequestHeaderFieldsTooLarge || r.code != "bad_request" {
		t.Errorf("80 KiB of headers: %d %s, want 431 in the envelope", r.status, r.body)
	}

	body := fmt.Sprintf(`{"destination":"Lisbon","check_in":%q,"check_out":%q}`, dayFromNow(10), dayFromNow(12))
	pr, pw := io.Pipe()
	type result struct {
		secResponse
		err error
	}
	done := make(chan result, 1)
	// With Expect: 100-continue the client sends the body only once the handler reads it,
	// so the first Write returns when the request is being served.
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	t.Cleanup(client.CloseIdleConnections)
	go func() {
		r, err := secDo(client, "POST", s.base+"/hotels/search", key, pr, map[string]string{"Expect": "100-continue", "Content-Type": "application/json"})
		done <- result{r, err}
	}()
	if _, err := pw.Write([]byte(body[:10])); err != nil {
		t.Fatal(err)
	}

	s.cancel()
	u, _ := url.Parse(s.base)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err != nil {
			break // the listener is closed: shutdown has begun
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-s.done:
		t.Fatalf("serve returned (%v) with a request in flight", err)
	default:
	}

	if _, err := pw.Write([]byte(body[10:])); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if r := <-done; r.err != nil || r.status != 200 || !strings.Contains(r.body, `"success":true`) {
		t.Errorf("in-flight request: %v %d %s", r.err, r.status, r.body)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
		s.done <- err // for the cleanup's stop
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return after the last request")
	}
}

// TestServePlainHTTPRefused: plain HTTP on an address other machines can reach is refused
// at start, naming the ways out; loopback, --tls-cert, --trusted-proxies and
// --insecure-plain-http (or TRADEWIND_INSECURE_PLAIN_HTTP) start.
func TestServePlainHTTPRefused(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	// serve runs serve with args and env, and returns its error, or nil once it listens.
	serve := func(env map[string]string, args ...string) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			// The portal on a port of its own: the default 8081 may be another server's.
			err := run(ctx, append([]string{"--db", dsn, "serve", "--portal-addr", "127.0.0.1:0", "--log-level", "warn"}, args...),
				func(k string) string { return env[k] }, strings.NewReader(""), pw, io.Discard)
			pw.CloseWithError(err)
			done <- err
		}()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if listening.MatchString(sc.Text()) {
				go io.Copy(io.Discard, pr)
				cancel()
				return <-done
			}
		}
		return <-done
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.10:0", "myhost.example:0"} {
		err := serve(nil, "--addr", addr)
		if err == nil || !strings.Contains(err.Error(), "--tls-cert") || !strings.Contains(err.Error(), "--insecure-plain-http") ||
			!strings.Contains(err.Error(), "--trusted-proxies") {
			t.Errorf("plain HTTP on %s: %v, want a refusal naming --tls-cert, --trusted-proxies and --insecure-plain-http", addr, err)
		}
	}
	for _, tt := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"--addr", "127.0.0.1:0"}},
		{nil, []string{"--addr", "localhost:0"}},
		{nil, []string{"--addr", "0.0.0.0:0", "--insecure-plain-http"}},
		{map[string]string{"TRADEWIND_INSECURE_PLAIN_HTTP": "true"}, []string{"--addr", "0.0.0.0:0"}},
		{nil, []string{"--addr", "0.0.0.0:0", "--trusted-proxies", "10.0.0.0/8"}},
	} {
		if err := serve(tt.env, tt.args...); err != nil {
			t.Errorf("serve %v with %v: %v, want it to start", tt.args, tt.env, err)
		}
	}
}

// TestServeReplayRefusedAcrossServers runs two servers on one database, with and without
// --redis: a signed webhook subscription accepted by one is refused as a replay by the
// other, as serve wires it. A ledger too slow to answer (Redis under load) refuses a
// request with 503, never accepts it: the first request is then signed afresh and sent
// again, the replay sent again as it was.
func TestServeReplayRefusedAcrossServers(t *testing.T) {
	t.Parallel()
	for name, extra := range map[string][]string{
		"database": nil,
		"redis":    {"--redis", fmt.Sprintf("redis://%s/14", apitest.RedisAddr())},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsn := storetest.SQLiteDSN(t)
			secret, key := secSigner(t, dsn)
			a, b := startServe(t, dsn, extra...), startServe(t, dsn, extra...)

			body := `{"url":"https://hooks.signer.example/tw","event_types":["booking.cancelled"]}`
			var h map[string]string
			start := time.Now().Unix()
			r := untilAnswered(t, func(attempt int) secResponse {
				// A new timestamp makes a new signature: the refused one may be recorded.
				h = signedHeaders(secret, start+int64(attempt), "POST", "/webhooks", body)
				return secCall(t, http.DefaultClient, "POST", a.base+"/webhooks", key, strings.NewReader(body), h)
			})
			if r.status != 201 {
				t.Fatalf("signed subscription: %d %s", r.status, r.body)
			}
			r = untilAnswered(t, func(int) secResponse {
				return secCall(t, http.DefaultClient, "POST", b.base+"/webhooks", key, strings.NewReader(body), h)
			})
			if r.status != 401 || r.code != "signature_invalid" || !strings.Contains(r.body, "replayed") {
				t.Errorf("the replay on the other server: %d %s", r.status, r.body)
			}
		})
	}
}

// untilAnswered calls send (with attempts 0, 1, …) until it is answered otherwise than
// 503 service_unavailable, at most 20 times, and returns the last answer.
func untilAnswered(t *testing.T, send func(attempt int) secResponse) secResponse {
	t.Helper()
	var r secResponse
	for attempt := range 20 {
		if r = send(attempt); r.status != 503 {
			return r
		}
		if r.code != "service_unavailable" || r.header.Get("Retry-After") == "" {
			t.Fatalf("503 without service_unavailable and Retry-After: %v %s", r.header, r.body)
		}
	}
	return r
}

// TestServeRedisClientTimeouts: the --redis client waits at most 200 ms for a pooled
// connection, to connect (once), to write and to read, so that a stuck Redis answers in
// milliseconds (the rate limiter fails open, the replay ledger closed); a URL's own
// settings win.
func TestServeRedisClientTimeouts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		url                     string
		dial, read, write, pool time.Duration
		dialerRetries           int
	}{
		{"redis://127.0.0.1:1/0", redisTimeout, redisTimeout, redisTimeout, redisTimeout, 1},
		{"redis://127.0.0.1:1/0?dial_timeout=1s&read_timeout=2s&write_timeout=3s&pool_timeout=4s", time.Second, 2 * time.Second,
			3 * time.Second, 4 * time.Second, 1},
	} {
		c := &serveCmd{Redis: tt.url}
		srv := newServer(c)
		rdb, err := c.redisClient(nil, srv)
		if err != nil {
			t.Fatal(err)
		}
		o := rdb.Options()
		if o.DialTimeout != tt.dial || o.ReadTimeout != tt.read || o.WriteTimeout != tt.write || o.PoolTimeout != tt.pool ||
			o.DialerRetries != tt.dialerRetries || o.MaxRetries > 0 {
			t.Errorf("%s: dial %v read %v write %v pool %v dialer retries %d retries %d", tt.url, o.DialTimeout, o.ReadTimeout,
				o.WriteTimeout, o.PoolTimeout, o.DialerRetries, o.MaxRetries)
		}
		rdb.Close()
	}
}
