package security

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newCert returns a self-signed certificate usable as a client CA and client certificate.
func newCert(tb testing.TB, cn string) tls.Certificate {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

func TestCertFingerprint(t *testing.T) {
	t.Parallel()
	c := &x509.Certificate{Raw: []byte("abc")}
	// sha256("abc")
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := CertFingerprint(c); got != want {
		t.Errorf("CertFingerprint() = %s, want %s", got, want)
	}
}

func TestNormalizeFingerprint(t *testing.T) {
	t.Parallel()
	const fp = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	colons := func(s string) string {
		var parts []string
		for i := 0; i < len(s); i += 2 {
			parts = append(parts, s[i:i+2])
		}
		return strings.Join(parts, ":")
	}
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{in: fp, want: fp},
		{in: strings.ToUpper(fp), want: fp},
		{in: colons(fp), want: fp},
		{in: strings.ToUpper(colons(fp)), want: fp},
		{in: " " + fp + "\n", want: fp},
		{in: "", wantErr: true},
		{in: fp[:62], wantErr: true},
		{in: fp + "00", wantErr: true},
		{in: "zz" + fp[2:], wantErr: true},
		{in: "sha256:" + fp, wantErr: true},
		{in: "a9993e364706816aba3e25717850c26c9cd0d89d", wantErr: true}, // SHA-1
	}
	for _, tt := range tests {
		got, err := NormalizeFingerprint(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("NormalizeFingerprint(%q) = %q, %v; want %q, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrInvalidFingerprint) {
			t.Errorf("NormalizeFingerprint(%q) error %v is not ErrInvalidFingerprint", tt.in, err)
		}
	}
}

func TestVerifiedClientCertFromEdge(t *testing.T) {
	t.Parallel()
	const fp = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	trust := mustProxyTrust(t, "10.0.0.0/8")
	tests := []struct {
		name     string
		remote   string
		verified string
		fp       string
		wantFP   string
		wantOK   bool
	}{
		{name: "trusted edge verified", remote: "10.0.0.2:80", verified: "SUCCESS", fp: strings.ToUpper(fp), wantFP: fp, wantOK: true},
		{name: "trusted edge without fingerprint", remote: "10.0.0.2:80", verified: "SUCCESS", wantFP: "", wantOK: true},
		{name: "trusted edge bad fingerprint", remote: "10.0.0.2:80", verified: "SUCCESS", fp: "xyz", wantFP: "", wantOK: true},
		{name: "trusted edge failed", remote: "10.0.0.2:80", verified: "FAILED:unable to verify", fp: fp},
		{name: "trusted edge none", remote: "10.0.0.2:80", verified: "NONE"},
		{name: "trusted edge lower case", remote: "10.0.0.2:80", verified: "success", fp: fp},
		{name: "trusted edge no header", remote: "10.0.0.2:80", fp: fp},
		{name: "untrusted peer", remote: "203.0.113.5:4711", verified: "SUCCESS", fp: fp},
		{name: "no headers", remote: "203.0.113.5:4711"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			if tt.verified != "" {
				r.Header.Set(HeaderClientCertVerified, tt.verified)
			}
			if tt.fp != "" {
				r.Header.Set(HeaderClientCertFingerprint, tt.fp)
			}
			gotFP, gotOK := VerifiedClientCert(r, trust)
			if gotFP != tt.wantFP || gotOK != tt.wantOK {
				t.Errorf("VerifiedClientCert() = %q, %v; want %q, %v", gotFP, gotOK, tt.wantFP, tt.wantOK)
			}
		})
	}
}

func TestVerifiedClientCertTLS(t *testing.T) {
	t.Parallel()
	client := newCert(t, "partner")
	stranger := newCert(t, "stranger")
	pool := x509.NewCertPool()
	pool.AddCert(client.Leaf)

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Edge headers from an untrusted direct client must not matter.
		fp, ok := VerifiedClientCert(r, ProxyTrust{})
		if !ok {
			fp = "not verified"
		}
		io.WriteString(w, fp)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	get := func(tb testing.TB, certs []tls.Certificate, header bool) string {
		tb.Helper()
		tr := srv.Client().Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.Certificates = certs
		tb.Cleanup(tr.CloseIdleConnections)
		req, err := http.NewRequest("GET", srv.URL, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if header {
			req.Header.Set(HeaderClientCertVerified, "SUCCESS")
			req.Header.Set(HeaderClientCertFingerprint, CertFingerprint(client.Leaf))
		}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			tb.Fatalf("GET: %v", err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}

	if got, want := get(t, []tls.Certificate{client}, false), CertFingerprint(client.Leaf); got != want {
		t.Errorf("with client certificate: got %q, want %q", got, want)
	}
	if got := get(t, nil, true); got != "not verified" {
		t.Errorf("without certificate but with spoofed headers: got %q, want not verified", got)
	}
	// A certificate from an unknown CA is either not sent by the client (it does not match
	// the acceptable CAs) or fails the handshake; either way it is never verified.
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = []tls.Certificate{stranger}
	t.Cleanup(tr.CloseIdleConnections)
	if resp, err := (&http.Client{Transport: tr}).Get(srv.URL); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "not verified" {
			t.Errorf("with unknown client certificate: got %q, want not verified", b)
		}
	}
}

func TestVerifiedClientCertUnverifiedTLS(t *testing.T) {
	t.Parallel()
	c := newCert(t, "partner")
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "203.0.113.5:4711"
	// RequestClientCert: a certificate was presented but nothing verified it.
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c.Leaf}}
	if fp, ok := VerifiedClientCert(r, ProxyTrust{}); ok {
		t.Errorf("VerifiedClientCert() = %q, true for an unverified certificate", fp)
	}
	r.TLS.VerifiedChains = [][]*x509.Certificate{{c.Leaf}}
	if fp, ok := VerifiedClientCert(r, ProxyTrust{}); !ok || fp != CertFingerprint(c.Leaf) {
		t.Errorf("VerifiedClientCert() = %q, %v; want %q, true", fp, ok, CertFingerprint(c.Leaf))
	}
}
