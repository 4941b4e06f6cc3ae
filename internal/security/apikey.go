package security

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
)

// Key and secret prefixes.
const (
	KeyPrefixTest       = "tw_test_" // KeyPrefixTest starts every test-mode API key.
	KeyPrefixLive       = "tw_live_" // KeyPrefixLive starts every live-mode API key.
	SecretPrefixWebhook = "whsec_"   // SecretPrefixWebhook starts webhook subscription secrets.
	SecretPrefixSigning = "tws_"     // SecretPrefixSigning starts partner request-signing secrets.
)

// Key modes accepted by GenerateKey and returned by KeyMode.
const (
	ModeTest = "test" // ModeTest is the mode of keys that never draw real credit.
	ModeLive = "live" // ModeLive is the mode of keys that make real bookings.
)

const (
	keyRandomLen    = 40  // random characters in a generated key
	keyMinRandomLen = 32  // fewest random characters a valid key carries
	keyMaxLen       = 128 // longest string ValidKeyShape accepts
	secretRandomLen = 32  // random characters in a generated secret
	displayLen      = 12  // characters of a key that may be shown and logged
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// GenerateKey returns a new API key for mode "test" or "live": "tw_test_" or "tw_live_"
// followed by 40 random base62 characters from crypto/rand.
func GenerateKey(mode string) (string, error) {
	var prefix string
	switch mode {
	case ModeTest:
		prefix = KeyPrefixTest
	case ModeLive:
		prefix = KeyPrefixLive
	default:
		return "", fmt.Errorf("generate key: unknown mode %q (want %q or %q)", mode, ModeTest, ModeLive)
	}
	s, err := randomBase62(keyRandomLen)
	if err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	return prefix + s, nil
}

// GenerateSecret returns prefix followed by 32 random base62 characters, for webhook
// (SecretPrefixWebhook) and request-signing (SecretPrefixSigning) secrets.
func GenerateSecret(prefix string) (string, error) {
	s, err := randomBase62(secretRandomLen)
	if err != nil {
		return "", fmt.Errorf("generate secret: %w", err)
	}
	return prefix + s, nil
}

// randomBase62 returns n uniformly random base62 characters, rejecting bytes >= 248 so
// that every character is equally likely.
func randomBase62(n int) (string, error) {
	const limit = 256 - 256%len(base62) // 248
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, base62[int(b)%len(base62)])
			if len(out) == n {
				break
			}
		}
	}
	return string(out), nil
}

// HashKey returns the lowercase hex SHA-256 of the full key, the only form a key is stored
// and looked up in.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyMatchesHash reports, in constant time, whether key hashes to the stored hash (as
// returned by HashKey; hex of either case).
func KeyMatchesHash(key, hash string) bool {
	return subtle.ConstantTimeCompare([]byte(HashKey(key)), []byte(strings.ToLower(hash))) == 1
}

// KeyDisplayPrefix returns the first 12 characters of key (such as "tw_live_AbCd"), which
// identify it safely in logs and user interfaces; a shorter string is returned unchanged.
func KeyDisplayPrefix(key string) string {
	if len(key) <= displayLen {
		return key
	}
	return key[:displayLen]
}

// ValidKeyShape reports whether key looks like an API key: "tw_test_" or "tw_live_"
// followed by 32 to 120 base62 characters; it says nothing about whether the key exists.
func ValidKeyShape(key string) bool {
	if KeyMode(key) == "" || len(key) > keyMaxLen {
		return false
	}
	rest := key[len(KeyPrefixTest):] // both prefixes have the same length
	if len(rest) < keyMinRandomLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

// KeyMode returns "test" or "live" from the key's prefix, or "" when it has neither.
func KeyMode(key string) string {
	switch {
	case strings.HasPrefix(key, KeyPrefixTest):
		return ModeTest
	case strings.HasPrefix(key, KeyPrefixLive):
		return ModeLive
	}
	return ""
}
