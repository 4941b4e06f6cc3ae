package security

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSignRequestKnownVector(t *testing.T) {
	t.Parallel()
	// Computed independently: printf '%s' '<string>' | openssl dgst -sha256 -hmac tws_secret
	const want = "f622a52664a776fe085f01efa47b2473e0ff526decbc934af626dc4672b818f0"
	for _, method := range []string{"POST", "post", "Post"} {
		got := SignRequest("tws_secret", 1700000000, method, "/api/partner/v1/bookings?x=1", []byte(`{"a":1}`))
		if got != want {
			t.Errorf("SignRequest(method %q) = %s, want %s", method, got, want)
		}
	}
}

func TestVerifyRequest(t *testing.T) {
	t.Parallel()
	const (
		current  = "tws_current"
		previous = "tws_previous"
		path     = "/api/partner/v1/hotels/search?page=2&per_page=10"
	)
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"destination":"Lisbon"}`)
	ts := now.Unix()
	tsStr := strconv.FormatInt(ts, 10)
	sign := func(secret string, ts int64) string { return SignRequest(secret, ts, "POST", path, body) }
	secrets := []string{current, previous}

	tests := []struct {
		name    string
		secrets []string
		ts, sig string
		method  string
		path    string
		body    []byte
		skew    time.Duration
		want    error
	}{
		{name: "current secret", ts: tsStr, sig: sign(current, ts)},
		{name: "previous secret", ts: tsStr, sig: sign(previous, ts)},
		{name: "upper-case hex", ts: tsStr, sig: strings.ToUpper(sign(current, ts))},
		{name: "lower-case method", ts: tsStr, sig: sign(current, ts), method: "post"},
		{name: "surrounding spaces", ts: " " + tsStr + " ", sig: " " + sign(current, ts) + " "},
		{name: "4m59s old", ts: strconv.FormatInt(ts-299, 10), sig: sign(current, ts-299)},
		{name: "exactly 5m old", ts: strconv.FormatInt(ts-300, 10), sig: sign(current, ts-300)},
		{name: "exactly 5m ahead", ts: strconv.FormatInt(ts+300, 10), sig: sign(current, ts+300)},
		{name: "zero skew means default", ts: strconv.FormatInt(ts-300, 10), sig: sign(current, ts-300), skew: -1},

		{name: "no timestamp", ts: "", sig: sign(current, ts), want: ErrSignatureRequired},
		{name: "no signature", ts: tsStr, sig: "", want: ErrSignatureRequired},
		{name: "blank signature", ts: tsStr, sig: "   ", want: ErrSignatureRequired},
		{name: "neither", want: ErrSignatureRequired},

		{name: "5m1s old", ts: strconv.FormatInt(ts-301, 10), sig: sign(current, ts-301), want: ErrSignatureExpired},
		{name: "5m1s ahead", ts: strconv.FormatInt(ts+301, 10), sig: sign(current, ts+301), want: ErrSignatureExpired},
		{name: "shorter skew", ts: strconv.FormatInt(ts-61, 10), sig: sign(current, ts-61), skew: time.Minute, want: ErrSignatureExpired},
		{name: "epoch zero", ts: "0", sig: sign(current, 0), want: ErrSignatureExpired},
		{name: "far future", ts: "9223372036854775807", sig: sign(current, 1<<63-1), want: ErrSignatureExpired},
		{name: "expired beats bad signature", ts: strconv.FormatInt(ts-3600, 10), sig: "00", want: ErrSignatureExpired},

		{name: "non-integer timestamp", ts: "yesterday", sig: sign(current, ts), want: ErrTimestampMalformed},
		{name: "fractional timestamp", ts: tsStr + ".5", sig: sign(current, ts), want: ErrTimestampMalformed},
		{name: "signed timestamp", ts: "+" + tsStr, sig: sign(current, ts), want: ErrTimestampMalformed},
		{name: "negative timestamp", ts: "-" + tsStr, sig: sign(current, ts), want: ErrTimestampMalformed},
		{name: "millisecond timestamp", ts: tsStr + "000", sig: sign(current, ts*1000), want: ErrSignatureExpired},
		{name: "overflowing timestamp", ts: "99999999999999999999", sig: sign(current, ts), want: ErrTimestampMalformed},
		{name: "unknown secret", ts: tsStr, sig: sign("tws_other", ts), want: ErrSignatureInvalid},
		{name: "no secrets", secrets: []string{}, ts: tsStr, sig: sign(current, ts), want: ErrSignatureInvalid},
		{name: "empty secret never matches", secrets: []string{""}, ts: tsStr, sig: sign("", ts), want: ErrSignatureInvalid},
		{name: "timestamp mismatch", ts: strconv.FormatInt(ts+1, 10), sig: sign(current, ts), want: ErrSignatureInvalid},
		{name: "leading zero timestamp", ts: "0" + tsStr, sig: sign(current, ts), want: ErrSignatureInvalid},
		{name: "other method", ts: tsStr, sig: sign(current, ts), method: "PUT", want: ErrSignatureInvalid},
		{name: "query not covered", ts: tsStr, sig: sign(current, ts), path: "/api/partner/v1/hotels/search", want: ErrSignatureInvalid},
		{name: "query changed", ts: tsStr, sig: sign(current, ts), path: "/api/partner/v1/hotels/search?page=3&per_page=10", want: ErrSignatureInvalid},
		{name: "body changed", ts: tsStr, sig: sign(current, ts), body: []byte(`{"destination":"Porto"}`), want: ErrSignatureInvalid},
		{name: "not hex", ts: tsStr, sig: strings.Repeat("zz", 32), want: ErrSignatureInvalid},
		{name: "truncated", ts: tsStr, sig: sign(current, ts)[:62], want: ErrSignatureInvalid},
		{name: "prefixed", ts: tsStr, sig: "sha256=" + sign(current, ts), want: ErrSignatureInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := secrets
			if tt.secrets != nil {
				s = tt.secrets
			}
			method, p, b := "POST", path, body
			if tt.method != "" {
				method = tt.method
			}
			if tt.path != "" {
				p = tt.path
			}
			if tt.body != nil {
				b = tt.body
			}
			err := VerifyRequest(s, tt.ts, tt.sig, method, p, b, now, tt.skew)
			if !errors.Is(err, tt.want) {
				t.Errorf("VerifyRequest() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRequestTargetRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ target, want string }{
		{"/api/partner/v1/meta/ping", "/api/partner/v1/meta/ping"},
		{"/api/partner/v1/bookings?page=2&status=confirmed", "/api/partner/v1/bookings?page=2&status=confirmed"},
		{"/api/partner/v1/hotels/search?q=S%C3%A3o+Paulo&x=%2F", "/api/partner/v1/hotels/search?q=S%C3%A3o+Paulo&x=%2F"},
		{"/api/partner/v1/hotels/a%2Fb", "/api/partner/v1/hotels/a%2Fb"},
		{"/api/partner/v1/meta/ping?", "/api/partner/v1/meta/ping?"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", tt.target, strings.NewReader("{}"))
		if got := RequestTarget(r); got != tt.want {
			t.Errorf("RequestTarget(%q) = %q, want %q", tt.target, got, tt.want)
		}
		now := time.Unix(1_700_000_000, 0)
		sig := SignRequest("tws_k", now.Unix(), "POST", tt.want, []byte("{}"))
		if err := VerifyRequest([]string{"tws_k"}, "1700000000", sig, r.Method, RequestTarget(r), []byte("{}"), now, 0); err != nil {
			t.Errorf("VerifyRequest(%q) = %v", tt.target, err)
		}
	}

	// A request built on the client side has no RequestURI.
	r := httptest.NewRequest("GET", "/x?a=1", nil)
	r.RequestURI = ""
	if got := RequestTarget(r); got != "/x?a=1" {
		t.Errorf("RequestTarget(client request) = %q, want /x?a=1", got)
	}
}

func TestRequestTargetsAcceptPathAloneOrPathAndQuery(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	secrets := []string{"tws_new", "tws_old"}
	tests := []struct {
		sent, signed string
		want         error
	}{
		{"/api/partner/v1/bookings?page=1", "/api/partner/v1/bookings?page=1", nil},
		{"/api/partner/v1/bookings?page=1", "/api/partner/v1/bookings", nil},
		{"/api/partner/v1/bookings?", "/api/partner/v1/bookings", nil},
		{"/api/partner/v1/bookings?", "/api/partner/v1/bookings?", nil},
		{"/api/partner/v1/bookings", "/api/partner/v1/bookings", nil},
		{"/api/partner/v1/bookings", "/api/partner/v1/bookings?page=1", ErrSignatureInvalid},
		{"/api/partner/v1/bookings?page=2", "/api/partner/v1/bookings?page=1", ErrSignatureInvalid},
		{"/api/partner/v1/bookings?page=1", "/api/partner/v1/booking", ErrSignatureInvalid},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.sent, nil)
		for _, secret := range secrets {
			sig := SignRequest(secret, now.Unix(), "GET", tt.signed, nil)
			err := VerifyRequestTargets(secrets, "1700000000", sig, "GET", RequestTargets(r), nil, now, 0)
			if err != tt.want {
				t.Errorf("sent %q, signed %q with %s: %v, want %v", tt.sent, tt.signed, secret, err, tt.want)
			}
		}
	}
}
