package security

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// HeaderClientCertVerified is the header in which a trusted TLS-terminating edge reports
// client-certificate verification; the value "SUCCESS" means verified.
const HeaderClientCertVerified = "X-Client-Cert-Verified"

// HeaderClientCertFingerprint is the header in which a trusted TLS-terminating edge sends
// the SHA-256 fingerprint (hex, colons optional) of the verified client certificate.
const HeaderClientCertFingerprint = "X-Client-Cert-Fingerprint"

// ErrInvalidFingerprint is returned by NormalizeFingerprint for anything but 64 hex digits.
var ErrInvalidFingerprint = errors.New("certificate fingerprint must be 64 hex digits (SHA-256)")

// CertFingerprint returns the lowercase hex SHA-256 of the certificate's DER encoding.
func CertFingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return hex.EncodeToString(sum[:])
}

// NormalizeFingerprint turns a SHA-256 fingerprint written in hex of any case, with or
// without colons ("AB:CD:…"), into the lowercase form CertFingerprint returns.
func NormalizeFingerprint(s string) (string, error) {
	s = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), ":", ""))
	if len(s) != 2*sha256.Size {
		return "", ErrInvalidFingerprint
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", ErrInvalidFingerprint
	}
	return s, nil
}

// VerifiedClientCert reports whether r carries a verified client certificate and returns
// its fingerprint: either the TLS connection itself verified a chain, or the direct peer is
// a trusted proxy that sends HeaderClientCertVerified "SUCCESS" (the fingerprint then comes
// from HeaderClientCertFingerprint and is empty when absent or malformed). These headers
// are ignored when the peer is not trusted.
func VerifiedClientCert(r *http.Request, trust ProxyTrust) (fingerprint string, ok bool) {
	if cs := r.TLS; cs != nil && len(cs.VerifiedChains) > 0 && len(cs.VerifiedChains[0]) > 0 {
		leaf := cs.VerifiedChains[0][0]
		if len(cs.PeerCertificates) > 0 {
			leaf = cs.PeerCertificates[0]
		}
		return CertFingerprint(leaf), true
	}
	if !trust.Trusted(r) || strings.TrimSpace(r.Header.Get(HeaderClientCertVerified)) != "SUCCESS" {
		return "", false
	}
	fp, err := NormalizeFingerprint(r.Header.Get(HeaderClientCertFingerprint))
	if err != nil {
		return "", true
	}
	return fp, true
}
