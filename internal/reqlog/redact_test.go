package reqlog

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRedactJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"secret":"whsec_abc","url":"https://x"}`, `{"secret":"[redacted]","url":"https://x"}`},
		{`{"data": {"Secret" :  "whsec_a\"bc", "id": 1}}`, `{"data": {"Secret" :  "[redacted]", "id": 1}}`},
		{`[{"password":"p"},{"api_key":"tw_live_x","n":"secret"}]`, `[{"password":"[redacted]"},{"api_key":"[redacted]","n":"secret"}]`},
		{`{"\u0073ecret":"whsec_x"}`, `{"\u0073ecret":"[redacted]"}`},
		{`{"secret": "whsec_cut in the mid`, `{"secret": "[redacted]"`}, // a body cut at 64 KB
		{`{"note":"the word secret","secret_hint":"x"}`, `{"note":"the word secret","secret_hint":"x"}`},
		{`{"secret": 12}`, `{"secret": 12}`},
		{`not json "secret": "x"`, `not json "secret": "[redacted]"`},
		{`{"a":"b`, `{"a":"b`},
		{``, ``},
		{`{"API_KEY":"k","Auth-Api-Key":"k2"}`, `{"API_KEY":"[redacted]","Auth-Api-Key":"[redacted]"}`},
		{`{"ſecret":"x","ſecret":"y","secreţ":"z"}`, `{"ſecret":"[redacted]","ſecret":"[redacted]","secreţ":"z"}`}, // Unicode folding, as strings.EqualFold
		{`{"secrets":"x","pass":"y"}`, `{"secrets":"x","pass":"y"}`},
	}
	for _, c := range cases {
		if got := string(RedactJSON([]byte(c.in))); got != c.want {
			t.Errorf("RedactJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The shortcut for bodies without a secret name answers as the scan does, for secret
// names in any case, at any place (across the shortcut's 4 KB chunks too), escaped or
// folded from non-ASCII letters.
func TestRedactJSONShortcut(t *testing.T) {
	for _, f := range SecretFields {
		if !slices.ContainsFunc(secretNeedles, func(n []byte) bool { return strings.Contains(strings.ToLower(f), string(n)) }) {
			t.Errorf("secret field %q holds none of the shortcut's needles %q", f, secretNeedles)
		}
	}
	keys := []string{"secret", "SIGNING_SECRET", "Webhook_Secret", "client_secret", "API_KEY", "auth-API-key", "PassWord",
		"secreT", "\\u0070assword", "ſecret", "name", "api_keys", "pass_word"}
	for _, key := range keys {
		for _, at := range []int{0, 1, 4080, 4085, 4090, 4095, 4100, 9000} {
			body := `{"pad":"` + strings.Repeat("x", at) + `","` + key + `":"tw_live_value","n":1}`
			want := string(redactScan([]byte(body)))
			if got := string(RedactJSON([]byte(body))); got != want {
				t.Errorf("key %q at %d: RedactJSON = …%s, the scan …%s", key, at, tail(got), tail(want))
			}
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-60):] }

func FuzzRedactJSON(f *testing.F) {
	for _, s := range []string{`{"secret":"x"}`, `{"Api_Key" : "k"}`, `{"a":"b"}`, `{"\u0073ecret":"v"}`, `{"ſecret":"v"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := RedactJSON(body), redactScan(body); string(got) != string(want) {
			t.Errorf("RedactJSON(%q) = %q, the scan %q", body, got, want)
		}
	})
}

func TestRedactQuery(t *testing.T) {
	if got := RedactQuery("city=Lisbon&PASSWORD=hunter2"); strings.Contains(got, "hunter2") || !strings.Contains(got, "city=Lisbon") {
		t.Errorf("RedactQuery = %q", got)
	}
	if got := RedactQuery("b=2&a=1"); got != "b=2&a=1" {
		t.Errorf("a query without secrets changed: %q", got)
	}
	if got := RedactQuery("a=%zz&secret=x"); got != "" {
		t.Errorf("an unparsable query is kept: %q", got)
	}
}

func TestParseRetention(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string][2]time.Duration{
		"":                    {7 * day, 30 * day},
		"test=7d,live=30d":    {7 * day, 30 * day},
		"live=90d":            {7 * day, 90 * day},
		" test=36h , live=1d": {36 * time.Hour, day},
	} {
		test, live, err := ParseRetention(in)
		if err != nil || test != want[0] || live != want[1] {
			t.Errorf("ParseRetention(%q) = %v, %v, %v; want %v", in, test, live, err, want)
		}
	}
	for _, bad := range []string{"test", "test=0d", "test=-1h", "prod=7d", "test=7x", "live=9999999d"} {
		if _, _, err := ParseRetention(bad); err == nil {
			t.Errorf("ParseRetention(%q) accepted", bad)
		}
	}
}

// A body without secrets is scanned without allocating (the common answer).
func TestRedactJSONAllocations(t *testing.T) {
	body := []byte(strings.Repeat(`{"hotel_id":"h-1","name":"Casa","rooms":[{"room_id":"r","price":{"amount":1200}}]},`, 100))
	if n := testing.AllocsPerRun(20, func() { RedactJSON(body) }); n != 0 {
		t.Errorf("RedactJSON of a body without secrets: %v allocations", n)
	}
}

// BenchmarkRedactJSON: a search answer without secrets (the shortcut), and the scan it
// saves.
func BenchmarkRedactJSON(b *testing.B) {
	body := []byte(`{"data":[` + strings.Repeat(`{"hotel_id":"h-1","name":"Casa","rooms":[{"room_id":"r","price":{"amount":1200}}]},`, 70) + `{}]}`)
	for name, redact := range map[string]func([]byte) []byte{"RedactJSON": RedactJSON, "scan": redactScan} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				redact(body)
			}
		})
	}
}

// lowerASCII lowers as a byte loop would and refuses what is not ASCII or holds a
// backslash, wherever it is in the eight-byte words.
func TestLowerASCII(t *testing.T) {
	all := make([]byte, 0, 256)
	for c := range 256 {
		all = append(all, byte(c))
	}
	for c := range 256 {
		for pos := range 11 {
			src := []byte("abcdefghijk")
			src[pos] = byte(c)
			dst := make([]byte, len(src))
			ok := lowerASCII(dst, src)
			want := c < 0x80 && c != '\\'
			if ok != want {
				t.Fatalf("byte %#x at %d: %v, want %v", c, pos, ok, want)
			}
			if ok && string(dst) != strings.Map(func(r rune) rune {
				if 'A' <= r && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, string(src)) {
				t.Fatalf("byte %#x at %d: lowered %q", c, pos, dst)
			}
		}
	}
	_ = all
}
