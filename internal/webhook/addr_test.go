package webhook

import (
	"errors"
	"net/netip"
	"testing"
)

func TestIsPublicIP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ip   string
		want bool
	}{
		// Public.
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"93.184.216.34", true},
		{"100.63.255.255", true}, // just below CGNAT
		{"100.128.0.0", true},    // just above CGNAT
		{"172.15.255.255", true}, // just below 172.16/12
		{"172.32.0.0", true},     // just above 172.16/12
		{"223.255.255.255", true},
		{"::ffff:8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"2a00:1450:4001:80b::200e", true},
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8
		// Loopback, unspecified, "this network".
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::1", false},
		{"::", false},
		// Private, CGNAT, link-local.
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"169.254.169.254", false},
		{"fc00::1", false},
		{"fd00:ec2::254", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"fec0::1", false},
		// Multicast, broadcast, reserved, documentation, benchmarking.
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"255.255.255.255", false},
		{"240.0.0.1", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"198.18.0.1", false},
		{"198.51.100.1", false},
		{"203.0.113.1", false},
		{"ff02::1", false},
		{"ff05::2", false},
		{"2001:db8::1", false},
		{"3fff::1", false},
		{"100::1", false},
		{"2001::1", false},       // Teredo
		{"2002:a00:1::1", false}, // 6to4 of 10.0.0.1
		// IPv4 forms hidden in IPv6.
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::127.0.0.1", false},        // IPv4-compatible (deprecated)
		{"64:ff9b::a00:1", false},     // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false},    // NAT64 of 127.0.0.1
		{"64:ff9b:1::808:808", false}, // local-use NAT64
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(tt.ip)
			if got := IsPublicIP(ip); got != tt.want {
				t.Fatalf("IsPublicIP(%s) = %v, want %v", tt.ip, got, tt.want)
			}
		})
	}
	if IsPublicIP(netip.Addr{}) {
		t.Fatal("IsPublicIP(zero Addr) = true")
	}
}

// TestGuardDial calls the Control func directly: it only inspects the address, nothing is dialled.
func TestGuardDial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		network, address string
		allowed          bool
	}{
		{"tcp4", "93.184.216.34:443", true},
		{"tcp6", "[2606:4700:4700::1111]:443", true},
		{"tcp4", "127.0.0.1:443", false},
		{"tcp6", "[::1]:443", false},
		{"tcp4", "10.0.0.1:443", false},
		{"tcp4", "169.254.169.254:80", false},
		{"tcp6", "[::ffff:169.254.169.254]:80", false},
		{"tcp6", "[fe80::1%eth0]:443", false},
		{"tcp", "not-an-address", false},
		{"tcp", "example.com:443", false}, // the Control func always sees a resolved IP; a name is refused
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			t.Parallel()
			err := guardDial(tt.network, tt.address, nil)
			if tt.allowed && err != nil {
				t.Fatalf("guardDial(%s) = %v, want nil", tt.address, err)
			}
			if !tt.allowed && !errors.Is(err, ErrDestinationForbidden) {
				t.Fatalf("guardDial(%s) = %v, want ErrDestinationForbidden", tt.address, err)
			}
		})
	}
}

func TestCheckHost(t *testing.T) {
	t.Parallel()
	for host, refused := range map[string]bool{
		"hooks.example.com": false, "HOOKS.Example.com.": false, "93.184.216.34": false, "[2606:2800:220:1::1]": false,
		"123.example": false, "0xdeadbeef.example": false, "1e100.net": false,
		"127.0.0.1": true, "10.1.2.3": true, "192.168.0.1": true, "169.254.169.254": true, "224.0.0.1": true,
		"[::1]": true, "[fe80::1]": true, "[fc00::1]": true, "[::ffff:127.0.0.1]": true, "0.0.0.0": true,
		"localhost": true, "api.localhost": true, "LOCALHOST.": true,
		"2130706433": true, "0x7f000001": true, "0x7f.1": true, "0177.0.0.1": true, "127.1": true, "017700000001": true,
		"8.8.8.010": true, // non-canonical spelling of a public-looking address is refused too
	} {
		if got := CheckHost(host) != ""; got != refused {
			t.Errorf("CheckHost(%q) refused = %v, want %v (%q)", host, got, refused, CheckHost(host))
		}
	}
}
