package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
)

const (
	testSecret = "whsec_s3cr3t_do_not_leak"
	testBody   = `{"id":"evt_1","type":"booking.confirmed","created_at":"2026-03-01T10:00:00Z","partner":"acme","data":{}}`
)

// tlsServer starts an HTTPS test server on loopback and counts the connections it accepts.
func tlsServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// serverTLS returns the client TLS configuration that trusts srv's certificate.
func serverTLS(t *testing.T, srv *httptest.Server) *tls.Config {
	t.Helper()
	return srv.Client().Transport.(*http.Transport).TLSClientConfig
}

// loopbackOnly wraps a Control func so that, whatever it decides, a test never dials
// anything but loopback: a guard that wrongly allowed 10.0.0.1 fails the test instead.
func loopbackOnly(t *testing.T, guard func(string, string, syscall.RawConn) error) func(string, string, syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		if err := guard(network, address, c); err != nil {
			return err
		}
		if ap, err := netip.ParseAddrPort(address); err != nil || !ap.Addr().Unmap().IsLoopback() {
			t.Errorf("test would have connected to %s", address)
			return errors.New("test safety net: not loopback")
		}
		return nil
	}
}

// stall answers only after the client has gone away (or 5s have passed).
func stall(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
	// Never answer: a 200 written once the client gave up could still reach it in a race
	// with its own timeout.
	panic(http.ErrAbortHandler)
}

func deliver(d *Deliverer, url string) Attempt {
	return d.Deliver(context.Background(), url, testSecret, "evt_1", "booking.confirmed", []byte(testBody), time.Now())
}

func checkNoSecret(t *testing.T, a Attempt) {
	t.Helper()
	if a.Err != nil && strings.Contains(a.Err.Error(), testSecret) {
		t.Fatalf("attempt error %q reveals the secret", a.Err)
	}
}

func TestDeliverSignedSuccess(t *testing.T) {
	t.Parallel()
	now := time.Unix(1772359200, 0)
	type received struct {
		header http.Header
		body   []byte
		method string
	}
	got := make(chan received, 1)
	srv, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), body, r.Method}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))

	d := NewDeliverer(true, 0, serverTLS(t, srv))
	a := d.Deliver(context.Background(), srv.URL+"/hooks?x=1", testSecret, "evt_1", "booking.confirmed", []byte(testBody), now)
	if a.Err != nil || a.StatusCode != http.StatusAccepted || a.ResponseSnippet != `{"ok":true}` || a.Duration <= 0 {
		t.Fatalf("Deliver = %+v", a)
	}
	r := <-got
	if r.method != http.MethodPost || string(r.body) != testBody {
		t.Fatalf("receiver got %s %q", r.method, r.body)
	}
	if err := client.VerifyWebhook(testSecret, r.header, r.body, 0, now); err != nil {
		t.Fatalf("VerifyWebhook: %v", err)
	}
	want := map[string]string{
		"Content-Type":         "application/json",
		"User-Agent":           UserAgent,
		client.HeaderEvent:     "booking.confirmed",
		client.HeaderEventID:   "evt_1",
		client.HeaderTimestamp: "1772359200",
	}
	for k, v := range want {
		if g := r.header.Get(k); g != v {
			t.Errorf("header %s = %q, want %q", k, g, v)
		}
	}
	for k, vs := range r.header {
		for _, v := range vs {
			if strings.Contains(v, testSecret) {
				t.Errorf("header %s reveals the secret", k)
			}
		}
	}
}

func TestDeliverFailures(t *testing.T) {
	t.Parallel()
	var targetHits atomic.Int64
	target, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	}))
	long := strings.Repeat("é", 600) // 1200 bytes, 2 per rune

	tests := []struct {
		name        string
		handler     http.HandlerFunc
		timeout     time.Duration
		wantStatus  int
		wantErr     string
		wantSnippet func(string) bool
	}{
		{
			name:       "500",
			handler:    func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
			wantStatus: 500, wantErr: "status 500",
			wantSnippet: func(s string) bool { return s == "boom\n" },
		},
		{
			name:       "404 with a long body",
			handler:    func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404); _, _ = io.WriteString(w, long) },
			wantStatus: 404, wantErr: "status 404",
			wantSnippet: func(s string) bool { return s == long[:SnippetLimit] },
		},
		{
			name: "302 is not followed",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
			},
			wantStatus: 302, wantErr: "redirect 302 not followed",
		},
		{
			name: "307 is not followed",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
			},
			wantStatus: 307, wantErr: "redirect 307 not followed",
		},
		{
			name:       "slow answer times out",
			handler:    stall,
			timeout:    200 * time.Millisecond,
			wantStatus: 0, wantErr: "timeout after 200ms",
		},
		{
			name: "binary body is stored as text",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(400)
				_, _ = w.Write([]byte("a\x00b\xffc"))
			},
			wantStatus: 400, wantErr: "status 400",
			wantSnippet: func(s string) bool { return s == "ab\uFFFDc" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := tlsServer(t, tt.handler)
			a := deliver(NewDeliverer(true, tt.timeout, serverTLS(t, srv)), srv.URL)
			checkNoSecret(t, a)
			if a.Err == nil || a.Err.Error() != tt.wantErr || a.StatusCode != tt.wantStatus {
				t.Fatalf("Deliver = %+v; want status %d and error %q", a, tt.wantStatus, tt.wantErr)
			}
			if tt.wantSnippet != nil && !tt.wantSnippet(a.ResponseSnippet) {
				t.Fatalf("ResponseSnippet = %q", a.ResponseSnippet)
			}
		})
	}
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("redirect target was hit %d times", n)
	}
}

func TestDeliverTimeoutIsBounded(t *testing.T) {
	t.Parallel()
	srv, _ := tlsServer(t, http.HandlerFunc(stall))
	a := deliver(NewDeliverer(true, 150*time.Millisecond, serverTLS(t, srv)), srv.URL)
	var ne net.Error
	if a.Err == nil || !errors.As(a.Err, &ne) || !ne.Timeout() {
		t.Fatalf("Deliver error = %v, want a timeout", a.Err)
	}
	if a.Duration < 150*time.Millisecond || a.Duration > 3*time.Second {
		t.Fatalf("Duration = %v, want about the timeout", a.Duration)
	}
}

func TestDeliverCancelledContext(t *testing.T) {
	t.Parallel()
	srv, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := NewDeliverer(true, 0, serverTLS(t, srv)).Deliver(ctx, srv.URL, testSecret, "evt_1", "booking.confirmed", []byte(testBody), time.Now())
	if !errors.Is(a.Err, context.Canceled) || !strings.HasPrefix(a.Err.Error(), "cancelled") {
		t.Fatalf("Deliver error = %v, want cancelled", a.Err)
	}
}

func TestDeliverUntrustedCertificate(t *testing.T) {
	t.Parallel()
	srv, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	a := deliver(NewDeliverer(true, 0, nil), srv.URL) // system roots do not trust the test certificate
	checkNoSecret(t, a)
	if a.Err == nil || a.StatusCode != 0 || strings.Contains(a.Err.Error(), srv.URL) {
		t.Fatalf("Deliver = %+v; want a certificate error without the url", a)
	}
}

func TestDeliverRefusesNonPublicDestinations(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv, conns := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	portS := itoa(port)

	// An IPv6 loopback server, when the sandbox has ::1.
	var v6URL string
	var v6conns *atomic.Int64
	if ln, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		s6 := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		s6.Listener.Close()
		s6.Listener = ln
		v6conns = new(atomic.Int64)
		s6.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				v6conns.Add(1)
			}
		}
		s6.StartTLS()
		t.Cleanup(s6.Close)
		v6URL = s6.URL
	}

	tests := []struct {
		name string
		url  string
	}{
		{"127.0.0.1", "https://127.0.0.1:" + portS + "/hook"},
		{"localhost", "https://localhost:" + portS + "/hook"},
		{"::1", v6URL},
		{"IPv4-mapped loopback", "https://[::ffff:127.0.0.1]:" + portS + "/hook"},
		{"10.0.0.1", "https://10.0.0.1:" + portS + "/hook"},
		{"169.254.169.254", "https://169.254.169.254/latest/meta-data/"},
		{"http scheme", "http://127.0.0.1:" + portS + "/hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.url == "" {
				t.Skip("no IPv6 loopback")
			}
			for _, d := range []*Deliverer{
				NewDeliverer(false, 2*time.Second, serverTLS(t, srv)),                             // as production builds it
				newDeliverer(false, 2*time.Second, serverTLS(t, srv), loopbackOnly(t, guardDial)), // with the test safety net
			} {
				a := deliver(d, tt.url)
				checkNoSecret(t, a)
				if !errors.Is(a.Err, ErrDestinationForbidden) || a.StatusCode != 0 {
					t.Fatalf("Deliver(%s) = %+v; want ErrDestinationForbidden", tt.url, a)
				}
				if !strings.HasPrefix(a.Err.Error(), "destination forbidden: ") {
					t.Fatalf("error text %q", a.Err)
				}
			}
		})
	}
	t.Cleanup(func() {
		if n := hits.Load(); n != 0 {
			t.Errorf("refused destinations received %d requests", n)
		}
		if n := conns.Load(); n != 0 {
			t.Errorf("refused destinations accepted %d connections", n)
		}
		if v6conns != nil && v6conns.Load() != 0 {
			t.Errorf("refused IPv6 destination accepted %d connections", v6conns.Load())
		}
	})
}

func TestDeliverAllowPrivateAllowsLoopbackAndHTTP(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(plain.Close)
	if a := deliver(NewDeliverer(true, 0, nil), plain.URL); a.Err != nil || a.StatusCode != 200 {
		t.Fatalf("Deliver over http with allowPrivate = %+v", a)
	}
}

func TestDeliverBadURLs(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, wantErr string }{
		{"://nope", "invalid url"},
		{"/relative/path", "invalid url"},
		{"ftp://example.com/x", `unsupported url scheme "ftp"`},
		{"file:///etc/passwd", "invalid url"},
	}
	d := NewDeliverer(false, time.Second, nil)
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			if a := deliver(d, tt.url); a.Err == nil || a.Err.Error() != tt.wantErr {
				t.Fatalf("Deliver(%q) error = %v, want %q", tt.url, a.Err, tt.wantErr)
			}
		})
	}
}

func TestDelivererConcurrentUse(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	d := NewDeliverer(true, 0, serverTLS(t, srv))
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if a := deliver(d, srv.URL); a.Err != nil {
				t.Errorf("Deliver: %v", a.Err)
			}
		})
	}
	wg.Wait()
	if n.Load() != 20 {
		t.Fatalf("receiver got %d deliveries, want 20", n.Load())
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestTransportErrorsPartnerSafe: the text of a failed attempt, which the partner reads,
// names neither the resolver Tradewind asked nor the local address it sent from.
func TestTransportErrorsPartnerSafe(t *testing.T) {
	d := NewDeliverer(false, 10*time.Second, nil)
	local := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 41234}
	remote := &net.TCPAddr{IP: net.IPv4(93, 184, 216, 34), Port: 443}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&url.Error{Op: "Post", URL: "https://hooks.example/x", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &net.DNSError{Err: "no such host", Name: "hooks.example", Server: "10.255.255.53:53", IsNotFound: true}}},
			"DNS lookup of hooks.example failed: no such host"},
		{&url.Error{Op: "Post", URL: "https://hooks.example/x", Err: &net.OpError{Op: "read", Net: "tcp", Source: local, Addr: remote,
			Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}},
			"read tcp 93.184.216.34:443: read: connection reset by peer"},
		{&url.Error{Op: "Post", URL: "https://hooks.example/x", Err: &net.OpError{Op: "dial", Net: "tcp", Addr: remote,
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}},
			"dial tcp 93.184.216.34:443: connect: connection refused"},
	} {
		got := d.transportError(context.Background(), c.err).Error()
		if got != c.want {
			t.Errorf("transportError(%v) = %q, want %q", c.err, got, c.want)
		}
		if strings.Contains(got, "10.255.255.53") || strings.Contains(got, "10.0.0.5") {
			t.Errorf("%q names Tradewind's side", got)
		}
	}
}
