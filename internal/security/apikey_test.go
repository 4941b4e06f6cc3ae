package security

import (
	"strings"
	"testing"
)

func TestGenerateKey(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeTest, ModeLive} {
		seen := map[string]bool{}
		for range 200 {
			k, err := GenerateKey(mode)
			if err != nil {
				t.Fatalf("GenerateKey(%q): %v", mode, err)
			}
			if want := "tw_" + mode + "_"; !strings.HasPrefix(k, want) || len(k) != len(want)+40 {
				t.Fatalf("GenerateKey(%q) = %q, want %s + 40 characters", mode, k, want)
			}
			if !ValidKeyShape(k) {
				t.Fatalf("ValidKeyShape(%q) = false", k)
			}
			if got := KeyMode(k); got != mode {
				t.Fatalf("KeyMode(%q) = %q, want %q", k, got, mode)
			}
			if seen[k] {
				t.Fatalf("GenerateKey(%q) repeated %q", mode, k)
			}
			seen[k] = true
		}
	}
	for _, mode := range []string{"", "Live", "prod"} {
		if k, err := GenerateKey(mode); err == nil {
			t.Errorf("GenerateKey(%q) = %q, want error", mode, k)
		}
	}
}

func TestRandomBase62Distribution(t *testing.T) {
	t.Parallel()
	// 62 000 characters: each symbol expected 1000 times; a biased generator
	// (b % 62 without rejection) gives the first 8 symbols about 1290.
	counts := map[byte]int{}
	for range 100 {
		s, err := randomBase62(620)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 620 {
			t.Fatalf("len = %d, want 620", len(s))
		}
		for i := 0; i < len(s); i++ {
			counts[s[i]]++
		}
	}
	if len(counts) != 62 {
		t.Fatalf("saw %d distinct symbols, want 62", len(counts))
	}
	for c, n := range counts {
		if strings.IndexByte(base62, c) < 0 {
			t.Fatalf("symbol %q outside base62", c)
		}
		if n < 820 || n > 1180 { // about ±5.7σ
			t.Errorf("symbol %q appeared %d times, want about 1000", c, n)
		}
	}
}

func TestGenerateSecret(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{SecretPrefixWebhook, SecretPrefixSigning} {
		a, err := GenerateSecret(prefix)
		if err != nil {
			t.Fatal(err)
		}
		b, err := GenerateSecret(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a, prefix) || len(a) != len(prefix)+32 || a == b {
			t.Errorf("GenerateSecret(%q) = %q, %q", prefix, a, b)
		}
		if strings.Trim(a[len(prefix):], base62) != "" {
			t.Errorf("GenerateSecret(%q) = %q has non-base62 characters", prefix, a)
		}
	}
}

func TestHashKey(t *testing.T) {
	t.Parallel()
	// sha256("abc")
	if got, want := HashKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("HashKey(abc) = %s, want %s", got, want)
	}
	if !KeyMatchesHash("abc", HashKey("abc")) || !KeyMatchesHash("abc", strings.ToUpper(HashKey("abc"))) {
		t.Error("KeyMatchesHash rejects the key's own hash")
	}
	for _, h := range []string{HashKey("abd"), HashKey("abc")[:63], "", "abc"} {
		if KeyMatchesHash("abc", h) {
			t.Errorf("KeyMatchesHash(abc, %q) = true", h)
		}
	}
	if HashKey("tw_live_a") == HashKey("tw_test_a") {
		t.Error("HashKey ignores the prefix")
	}
}

func TestKeyDisplayPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"tw_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd", "tw_live_AbCd"},
		{"tw_test_0123456789", "tw_test_0123"},
		{"tw_live_Ab", "tw_live_Ab"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := KeyDisplayPrefix(tt.in); got != tt.want {
			t.Errorf("KeyDisplayPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidKeyShape(t *testing.T) {
	t.Parallel()
	r32 := strings.Repeat("aZ09", 8)
	tests := []struct {
		key  string
		want bool
	}{
		{"tw_live_" + r32, true},
		{"tw_test_" + r32, true},
		{"tw_test_" + r32 + "12345678", true},
		{"tw_test_" + r32[:31], false},
		{"tw_test_" + strings.Repeat("a", 120), true},
		{"tw_test_" + strings.Repeat("a", 121), false},
		{"tw_prod_" + r32, false},
		{"TW_LIVE_" + r32, false},
		{"tw_live_" + r32[:31] + "-", false},
		{"tw_live_" + r32[:31] + "é", false},
		{" tw_live_" + r32, false},
		{"tw_live_", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidKeyShape(tt.key); got != tt.want {
			t.Errorf("ValidKeyShape(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	if KeyMode("tw_prod_x") != "" {
		t.Error("KeyMode of an unknown prefix is not empty")
	}
}
