package security

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func mustAllowlist(tb testing.TB, entries ...string) Allowlist {
	tb.Helper()
	a, err := ParseAllowlist(entries)
	if err != nil {
		tb.Fatalf("ParseAllowlist(%q): %v", entries, err)
	}
	return a
}

func mustProxyTrust(tb testing.TB, cidrs ...string) ProxyTrust {
	tb.Helper()
	t, err := ParseTrustedProxies(cidrs)
	if err != nil {
		tb.Fatalf("ParseTrustedProxies(%q): %v", cidrs, err)
	}
	return t
}

func TestParseAllowlist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []string
		want    string // String() of the result
		wantErr bool
	}{
		{name: "none", entries: nil, want: ""},
		{name: "blank entries skipped", entries: []string{"", "  "}, want: ""},
		{name: "bare IPv4", entries: []string{"203.0.113.7"}, want: "203.0.113.7/32"},
		{name: "bare IPv6", entries: []string{"2001:db8::1"}, want: "2001:db8::1/128"},
		{name: "CIDRs", entries: []string{" 198.51.100.0/24 ", "2001:db8:1::/48"}, want: "198.51.100.0/24,2001:db8:1::/48"},
		{name: "host bits masked", entries: []string{"10.1.2.3/8"}, want: "10.0.0.0/8"},
		{name: "mapped address", entries: []string{"::ffff:192.0.2.1"}, want: "192.0.2.1/32"},
		{name: "mapped prefix", entries: []string{"::ffff:192.0.2.0/120"}, want: "192.0.2.0/24"},
		{name: "garbage", entries: []string{"example.com"}, wantErr: true},
		{name: "bad CIDR", entries: []string{"10.0.0.0/33"}, wantErr: true},
		{name: "zone", entries: []string{"fe80::1%eth0"}, wantErr: true},
		{name: "address with port", entries: []string{"10.0.0.1:80"}, wantErr: true},
		{name: "one bad among good", entries: []string{"10.0.0.1", "nope"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := ParseAllowlist(tt.entries)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAllowlist(%q) error = %v, wantErr %v", tt.entries, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got := a.String(); got != tt.want {
				t.Errorf("ParseAllowlist(%q) = %q, want %q", tt.entries, got, tt.want)
			}
			if a.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v, want %v", a.Empty(), tt.want == "")
			}
		})
	}
}

func TestAllowlistAllows(t *testing.T) {
	t.Parallel()
	a := mustAllowlist(t, "203.0.113.7", "198.51.100.0/24", "2001:db8:1::/48")
	tests := []struct {
		ip   string
		want bool
	}{
		{"203.0.113.7", true},
		{"203.0.113.8", false},
		{"198.51.100.0", true},
		{"198.51.100.255", true},
		{"198.51.101.1", false},
		{"::ffff:203.0.113.7", true},
		{"::ffff:198.51.100.9", true},
		{"2001:db8:1:ffff::1", true},
		{"2001:db8:2::1", false},
		{"2001:db8:1::1%eth0", true},
		{"::1", false},
	}
	for _, tt := range tests {
		if got := a.Allows(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("Allows(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
	if a.Allows(netip.Addr{}) {
		t.Error("Allows(invalid) = true, want false")
	}
	if (Allowlist{}).Allows(netip.MustParseAddr("203.0.113.7")) {
		t.Error("empty Allowlist allows an address")
	}
	if !(Allowlist{}).Empty() {
		t.Error("zero Allowlist is not Empty")
	}
	// A mapped allowlist entry matches the plain IPv4 address.
	if !mustAllowlist(t, "::ffff:192.0.2.1").Allows(netip.MustParseAddr("192.0.2.1")) {
		t.Error("mapped entry does not allow plain IPv4")
	}
}

func TestProxyTrustClientIP(t *testing.T) {
	t.Parallel()
	trust := mustProxyTrust(t, "10.0.0.0/8", "fd00::/8", "192.0.2.10")
	tests := []struct {
		name        string
		remote      string
		xff         []string
		want        string // "" means the invalid Addr
		wantTrusted bool
	}{
		{name: "direct client", remote: "203.0.113.5:4711", want: "203.0.113.5"},
		{name: "spoofed XFF from untrusted peer", remote: "203.0.113.5:4711", xff: []string{"1.2.3.4"}, want: "203.0.113.5"},
		{name: "trusted proxy without XFF", remote: "10.0.0.2:80", want: "10.0.0.2", wantTrusted: true},
		{name: "one proxy", remote: "10.0.0.2:80", xff: []string{"203.0.113.5"}, want: "203.0.113.5", wantTrusted: true},
		{name: "client-supplied prefix ignored", remote: "10.0.0.2:80", xff: []string{"1.2.3.4, 203.0.113.5"}, want: "203.0.113.5", wantTrusted: true},
		{name: "chain of proxies", remote: "10.0.0.2:80", xff: []string{"1.2.3.4, 203.0.113.5, 192.0.2.10, 10.9.9.9"}, want: "203.0.113.5", wantTrusted: true},
		{name: "several header lines", remote: "10.0.0.2:80", xff: []string{"1.2.3.4, 203.0.113.5", "10.1.1.1"}, want: "203.0.113.5", wantTrusted: true},
		{name: "all trusted gives leftmost", remote: "10.0.0.2:80", xff: []string{"10.3.3.3, 10.1.1.1"}, want: "10.3.3.3", wantTrusted: true},
		{name: "malformed stops walk", remote: "10.0.0.2:80", xff: []string{"203.0.113.5, garbage, 10.1.1.1"}, want: "10.1.1.1", wantTrusted: true},
		{name: "malformed rightmost", remote: "10.0.0.2:80", xff: []string{"203.0.113.5, unknown"}, want: "10.0.0.2", wantTrusted: true},
		{name: "empty entry stops walk", remote: "10.0.0.2:80", xff: []string{"203.0.113.5,,10.1.1.1"}, want: "10.1.1.1", wantTrusted: true},
		{name: "entry with port", remote: "10.0.0.2:80", xff: []string{"203.0.113.5:5555"}, want: "203.0.113.5", wantTrusted: true},
		{name: "IPv6 entry with port", remote: "10.0.0.2:80", xff: []string{"[2001:db8::5]:5555"}, want: "2001:db8::5", wantTrusted: true},
		{name: "IPv6 proxy", remote: "[fd00::1]:443", xff: []string{"2001:db8::5"}, want: "2001:db8::5", wantTrusted: true},
		{name: "mapped peer", remote: "[::ffff:10.0.0.2]:80", xff: []string{"::ffff:203.0.113.5"}, want: "203.0.113.5", wantTrusted: true},
		{name: "bare remote address", remote: "10.0.0.2", xff: []string{"203.0.113.5"}, want: "203.0.113.5", wantTrusted: true},
		{name: "unparseable remote", remote: "@", xff: []string{"203.0.113.5"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			var want netip.Addr
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got := trust.ClientIP(r); got != want {
				t.Errorf("ClientIP() = %v, want %v", got, want)
			}
			if got := trust.Trusted(r); got != tt.wantTrusted {
				t.Errorf("Trusted() = %v, want %v", got, tt.wantTrusted)
			}
		})
	}
}

func TestProxyTrustZeroValue(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.2:80"
	r.Header.Set("X-Forwarded-For", "203.0.113.5")
	var trust ProxyTrust
	if got, want := trust.ClientIP(r), netip.MustParseAddr("10.0.0.2"); got != want {
		t.Errorf("ClientIP() = %v, want %v", got, want)
	}
	if trust.Trusted(r) {
		t.Error("zero ProxyTrust trusts a peer")
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/8", "bad"}); err == nil {
		t.Error("ParseTrustedProxies accepted a bad entry")
	}
}
