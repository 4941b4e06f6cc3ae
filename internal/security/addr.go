package security

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// HeaderForwardedFor is the header in which proxies append the address of their peer.
const HeaderForwardedFor = "X-Forwarded-For"

// Allowlist is a set of IP prefixes a partner may call from; the zero value is empty.
type Allowlist struct {
	prefixes []netip.Prefix
}

// ParseAllowlist builds an Allowlist from IPv4/IPv6 addresses and CIDRs (a bare address
// is a /32 or /128); blank entries are skipped and any other malformed entry is an error.
func ParseAllowlist(entries []string) (Allowlist, error) {
	p, err := parsePrefixes(entries)
	if err != nil {
		return Allowlist{}, fmt.Errorf("parse allowlist: %w", err)
	}
	return Allowlist{prefixes: p}, nil
}

// Empty reports whether the allowlist has no entries (an empty allowlist allows nothing;
// callers decide whether "no allowlist configured" means "no restriction").
func (a Allowlist) Empty() bool { return len(a.prefixes) == 0 }

// Allows reports whether ip lies in one of the allowlist's prefixes; IPv4-mapped IPv6
// addresses are compared as IPv4 and an invalid address is never allowed.
func (a Allowlist) Allows(ip netip.Addr) bool {
	return containsAddr(a.prefixes, ip)
}

// String returns the prefixes of the allowlist, comma-separated.
func (a Allowlist) String() string { return joinPrefixes(a.prefixes) }

// ProxyTrust knows which direct peers are trusted reverse proxies whose X-Forwarded-For
// header may be believed; the zero value trusts no one.
type ProxyTrust struct {
	prefixes []netip.Prefix
}

// ParseTrustedProxies builds a ProxyTrust from the addresses and CIDRs of the reverse
// proxies in front of the service; blank entries are skipped.
func ParseTrustedProxies(cidrs []string) (ProxyTrust, error) {
	p, err := parsePrefixes(cidrs)
	if err != nil {
		return ProxyTrust{}, fmt.Errorf("parse trusted proxies: %w", err)
	}
	return ProxyTrust{prefixes: p}, nil
}

// String returns the trusted prefixes, comma-separated.
func (t ProxyTrust) String() string { return joinPrefixes(t.prefixes) }

// Trusted reports whether the direct peer of r (its RemoteAddr) is a trusted proxy.
func (t ProxyTrust) Trusted(r *http.Request) bool {
	return containsAddr(t.prefixes, peerAddr(r))
}

// ClientIP returns the address of the client that made r: the direct peer, or, only when
// that peer is a trusted proxy, the rightmost X-Forwarded-For address that is not itself a
// trusted proxy (the leftmost one if all are trusted). All X-Forwarded-For header lines
// are read in order as one comma-separated list; a malformed entry stops the walk at the
// last good address. The result is invalid only when RemoteAddr cannot be parsed.
func (t ProxyTrust) ClientIP(r *http.Request) netip.Addr {
	client := peerAddr(r)
	if !containsAddr(t.prefixes, client) {
		return client
	}
	var hops []string
	for _, v := range r.Header.Values(HeaderForwardedFor) {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
		if !containsAddr(t.prefixes, a) {
			break
		}
	}
	return client
}

// peerAddr returns the address of r.RemoteAddr ("ip:port" or a bare ip), unmapped and
// without zone, or the invalid Addr.
func peerAddr(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return normalize(ap.Addr())
	}
	if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		return normalize(a)
	}
	return netip.Addr{}
}

// parseHop parses one X-Forwarded-For entry, which some proxies write with a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return normalize(a), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return normalize(ap.Addr()), true
	}
	return netip.Addr{}, false
}

// normalize unmaps IPv4-mapped IPv6 addresses and drops any zone.
func normalize(a netip.Addr) netip.Addr {
	return a.Unmap().WithZone("")
}

// containsAddr reports whether ip lies in one of prefixes.
func containsAddr(prefixes []netip.Prefix, ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = normalize(ip)
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// parsePrefixes parses addresses and CIDRs into masked prefixes; an IPv4-mapped IPv6
// prefix of at least 96 bits becomes the equivalent IPv4 prefix.
func parsePrefixes(entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(e, "/") {
			var err error
			if p, err = netip.ParsePrefix(e); err != nil {
				return nil, fmt.Errorf("invalid CIDR %q", e)
			}
		} else {
			a, err := netip.ParseAddr(e)
			if err != nil || a.Zone() != "" {
				return nil, fmt.Errorf("invalid IP address %q", e)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// joinPrefixes formats prefixes as a comma-separated list.
func joinPrefixes(prefixes []netip.Prefix) string {
	s := make([]string, len(prefixes))
	for i, p := range prefixes {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}
