package portal

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// HashParams are argon2id's cost parameters.
type HashParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// OWASPParams are OWASP's recommended argon2id parameters (19 MiB, 2 passes, 1 lane).
var OWASPParams = HashParams{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

// TestParams are cheap parameters for tests only.
var TestParams = HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// Hasher hashes and verifies passwords with argon2id. A semaphore bounds the hashes
// computed at once, since each takes its MemoryKiB.
type Hasher struct {
	params HashParams
	sem    chan struct{}
}

// NewHasher returns a hasher with params (zero: OWASPParams).
func NewHasher(params HashParams) *Hasher {
	if params.MemoryKiB == 0 {
		params = OWASPParams
	}
	return &Hasher{params: params, sem: make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))}
}

// Hash returns the PHC string of password: $argon2id$v=19$m=…,t=…,p=…$salt$hash.
func (h *Hasher) Hash(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := h.derive(password, salt, h.params)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.params.MemoryKiB, h.params.Time,
		h.params.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string encoded (with the parameters
// it names). A malformed or empty hash matches nothing.
func (h *Hasher) Verify(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		h.derive(password, make([]byte, 16), h.params) // spend the same time
		return false
	}
	var p HashParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil || p.MemoryKiB == 0 ||
		p.MemoryKiB > 1<<20 || p.Time == 0 || p.Time > 10 || p.Threads == 0 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	return subtle.ConstantTimeCompare(h.derive(password, salt, p), want) == 1
}

// Dummy spends the time of a verification, so that an unknown e-mail answers as slowly
// as a wrong password.
func (h *Hasher) Dummy(password string) { h.derive(password, make([]byte, 16), h.params) }

func (h *Hasher) derive(password string, salt []byte, p HashParams) []byte {
	h.sem <- struct{}{}
	defer func() { <-h.sem }()
	return argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, 32)
}

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 12

// commonPasswords are frequent passwords of MinPasswordLength or more characters
// (from public breach-frequency lists), compared in lower case.
var commonPasswords = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`123456789012 1234567890123 12345678901234 123456789123 1234567891011
		passwordpassword password1234 password12345 password123456 password1234567 qwertyuiop123 qwertyuiopasdf
		qwerty123456 qwertyuiopasdfgh 1q2w3e4r5t6y 1q2w3e4r5t6y7u 1qaz2wsx3edc 1qaz2wsx3edc4rfv iloveyou1234
		abcdefghijkl abcd12345678 abc123456789 111111111111 000000000000 aaaaaaaaaaaa 123123123123
		welcome12345 letmein12345 administrator changeme1234 football1234 baseball1234 princess1234
		sunshine1234 trustno11234 superman1234 starwars1234 monkey123456 dragon123456 master123456
		qazwsxedcrfv zaq12wsxcde3 asdfghjkl123 asdfghjkl;' 987654321098 0987654321qw 147258369147
		passw0rd1234 p@ssw0rd1234 p@ssword1234 mypassword123 thisismypassword correcthorsebatterystaple`) {
		commonPasswords[p] = true
	}
}

// passwordProblem returns why password is refused, or "".
func passwordProblem(password, email string) string {
	switch {
	case len([]rune(password)) < MinPasswordLength:
		return fmt.Sprintf("password: at least %d characters", MinPasswordLength)
	case len(password) > 1024:
		return "password: at most 1024 characters"
	case commonPasswords[strings.ToLower(password)]:
		return "password: this is one of the most common passwords; choose another"
	case strings.EqualFold(password, email):
		return "password: must not be your e-mail address"
	case strings.Count(password, password[:1]) == len(password):
		return "password: must not repeat one character"
	}
	return ""
}
