package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// ErrDestinationForbidden is wrapped in the error of a delivery refused by the address guard.
var ErrDestinationForbidden = errors.New("destination forbidden")

// nonPublic4 lists IPv4 ranges that are not globally reachable unicast (IANA special-purpose registry).
var nonPublic4 = prefixes(
	"0.0.0.0/8",          // "this network"
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // carrier-grade NAT
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local, including cloud metadata 169.254.169.254
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // TEST-NET-1
	"192.88.99.0/24",     // 6to4 relay anycast (deprecated)
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // TEST-NET-2
	"203.0.113.0/24",     // TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved
	"255.255.255.255/32", // limited broadcast
)

// global6 is the only IPv6 range allocated for global unicast.
var global6 = netip.MustParsePrefix("2000::/3")

// nonPublic6 lists special-purpose ranges inside 2000::/3.
var nonPublic6 = prefixes(
	"2001::/23",     // IETF protocol assignments, including Teredo
	"2001:db8::/32", // documentation
	"2002::/16",     // 6to4, which embeds an arbitrary IPv4 address
	"3fff::/20",     // documentation
)

// nat64 is the well-known NAT64 prefix whose last 32 bits are an IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// IsPublicIP reports whether ip is a globally reachable unicast address that a webhook may be delivered to.
//
// IPv4-mapped IPv6 addresses are judged by their IPv4 address, and so are addresses in the
// well-known NAT64 prefix 64:ff9b::/96 (so that DNS64 networks keep working).
func IsPublicIP(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap() // a zoned address never matches a prefix
	if !ip.IsValid() {
		return false
	}
	if ip.Is4() {
		for _, p := range nonPublic4 {
			if p.Contains(ip) {
				return false
			}
		}
		return true
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte(b[12:])))
	}
	if !global6.Contains(ip) {
		return false // loopback, unspecified, ULA fc00::/7, link-local, multicast, IPv4-compatible, …
	}
	for _, p := range nonPublic6 {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// forbiddenError is the address guard's refusal; it matches ErrDestinationForbidden.
type forbiddenError struct{ reason string }

func (e *forbiddenError) Error() string        { return "destination forbidden: " + e.reason }
func (e *forbiddenError) Is(target error) bool { return target == ErrDestinationForbidden }

// guardDial is a net.Dialer Control func: it runs on the resolved address after the socket
// is created and before it connects, so no hostname or DNS answer can slip past it.
func guardDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &forbiddenError{reason: fmt.Sprintf("unparsable address %q", address)}
	}
	if !IsPublicIP(ap.Addr()) {
		return &forbiddenError{reason: ap.Addr().WithZone("").String() + " is not a public address"}
	}
	return nil
}

// CheckHost judges a subscription url's host when the subscription is created: an IP
// literal must be public (IsPublicIP), a numeric spelling other than a canonical address
// (decimal 2130706433, hex 0x7f.1, octal 0177.0.0.1, short 127.1) is refused whatever it
// decodes to, since resolvers disagree on it, and so is localhost (RFC 6761). It returns ""
// when the host is acceptable, else the reason. A hostname is not resolved here: the
// delivery-time guard (guardDial) judges the address it resolves to, against DNS rebinding.
func CheckHost(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if ip, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		if !IsPublicIP(ip) {
			return ip.WithZone("").String() + " is not a public address"
		}
		return ""
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return "localhost is not a public host"
	}
	return CheckSpelling(host)
}

// CheckSpelling is CheckHost's rule on how a host is written, the one kept when private
// hosts are allowed (serve --webhook-allow-private): a numeric host other than a plain
// IPv4 or IPv6 address is refused, since resolvers disagree on what it names.
func CheckSpelling(host string) string {
	if h := strings.TrimSuffix(strings.ToLower(host), "."); numericHost(h) {
		if _, err := netip.ParseAddr(h); err != nil {
			return "a numeric host must be written as a plain IPv4 or IPv6 address"
		}
	}
	return ""
}

// numericHost reports whether every dot-separated label of h is a number in decimal,
// octal or hex notation (the spellings inet_aton accepts), or h is one.
func numericHost(h string) bool {
	if h == "" {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return false
		}
		digits, hex := strings.CutPrefix(label, "0x")
		for _, r := range digits {
			if !(r >= '0' && r <= '9' || hex && r >= 'a' && r <= 'f') {
				return false
			}
		}
	}
	return true
}
