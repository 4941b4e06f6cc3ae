package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook delivery headers, as the partner API documents them.
const (
	// HeaderEvent carries the event type, e.g. "booking.confirmed".
	HeaderEvent = "X-Partner-Event"
	// HeaderEventID carries the stable event id, the receiver's de-duplication key.
	HeaderEventID = "X-Partner-Event-Id"
	// HeaderTimestamp carries the unix seconds at which the delivery was sent.
	HeaderTimestamp = "X-Partner-Timestamp"
	// HeaderSignature carries the hex HMAC-SHA256 of "<timestamp>.<raw_body>".
	HeaderSignature = "X-Partner-Signature"
	// HeaderSignatureNext carries, during a secret roll (24 hours), the same HMAC made with
	// the new secret, while HeaderSignature is still made with the old one.
	HeaderSignatureNext = "X-Partner-Signature-Next"
)

// DefaultWebhookTolerance is the largest accepted distance between a delivery's timestamp and now.
const DefaultWebhookTolerance = 5 * time.Minute

// MaxWebhookBody is the largest webhook body, in bytes, that ParseWebhook accepts.
const MaxWebhookBody = 1 << 20

// Errors returned by VerifyWebhook and ParseWebhook; match them with errors.Is.
var (
	// ErrWebhookNoSignature means both X-Partner-Signature and X-Partner-Signature-Next are missing or empty.
	ErrWebhookNoSignature = errors.New("webhook: missing signature")
	// ErrWebhookTimestamp means X-Partner-Timestamp is missing, not an integer or outside the tolerance.
	ErrWebhookTimestamp = errors.New("webhook: bad or expired timestamp")
	// ErrWebhookSignature means the signature does not match the body and timestamp.
	ErrWebhookSignature = errors.New("webhook: signature mismatch")
	// ErrWebhookTooLarge means the body is larger than MaxWebhookBody.
	ErrWebhookTooLarge = errors.New("webhook: body too large")
	// ErrWebhookMalformed means a verified body is not a valid event envelope or contradicts its headers.
	ErrWebhookMalformed = errors.New("webhook: malformed event")
)

// WebhookEvent is the JSON envelope of every webhook delivery.
type WebhookEvent struct {
	ID        string          `json:"id"`         // "evt_…", equal to X-Partner-Event-Id
	Type      string          `json:"type"`       // booking.confirmed, booking.cancelled or availability.changed
	CreatedAt time.Time       `json:"created_at"` // when the event happened, not when it was sent
	Partner   string          `json:"partner"`    // the partner identifier
	Data      json.RawMessage `json:"data"`       // the event's payload; its shape depends on Type
	// TestEvent is true on a sample event: the portal's "Send test event", or
	// Client.SendTestEvent (POST /webhooks/{id}/test).
	TestEvent bool `json:"test_event,omitempty"`
}

// SignWebhook returns the hex HMAC-SHA256, keyed with secret, of "<timestamp>.<body>".
func SignWebhook(secret string, timestamp int64, body []byte) string {
	return hex.EncodeToString(mac(secret, strconv.FormatInt(timestamp, 10), body))
}

func mac(secret, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// VerifyWebhook checks the signature headers of a delivery against its raw body, accepting
// a timestamp at most tolerance (DefaultWebhookTolerance when 0 or less) away from now.
//
// The signature may be in X-Partner-Signature or, during a secret roll, in
// X-Partner-Signature-Next: a delivery matches when either header was made with secret,
// so a receiver keeps working with the old secret and can switch to the new one at any
// time of the roll. The comparison is constant-time. The signed string uses the
// timestamp exactly as sent.
func VerifyWebhook(secret string, header http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	return verifyWebhook([]string{secret}, header, body, tolerance, now)
}

// verifyWebhook is VerifyWebhook for any of several secrets (a receiver in the middle of
// its own switch may hold both the old and the new one).
func verifyWebhook(secrets []string, header http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	var sigs [][]byte
	for _, h := range []string{HeaderSignature, HeaderSignatureNext} {
		if v := strings.TrimSpace(header.Get(h)); v != "" {
			got, err := hex.DecodeString(v)
			if err != nil {
				got = nil // an undecodable header matches nothing
			}
			sigs = append(sigs, got)
		}
	}
	if len(sigs) == 0 {
		return ErrWebhookNoSignature
	}
	tsText := strings.TrimSpace(header.Get(HeaderTimestamp))
	if tsText == "" {
		return fmt.Errorf("%w: header %s is missing", ErrWebhookTimestamp, HeaderTimestamp)
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: header %s is not an integer", ErrWebhookTimestamp, HeaderTimestamp)
	}
	// time.Time.Sub saturates, so absurd timestamps cannot overflow the comparison.
	if age := now.Sub(time.Unix(ts, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w: %s away from now, more than %s", ErrWebhookTimestamp, age.Round(time.Second), tolerance)
	}
	matched := false
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		want := mac(secret, tsText, body)
		for _, got := range sigs {
			// Every comparison runs, so the time taken does not tell which one matched.
			if got != nil && hmac.Equal(got, want) {
				matched = true
			}
		}
	}
	if !matched {
		return ErrWebhookSignature
	}
	return nil
}

// ParseWebhook reads r's body (at most MaxWebhookBody bytes), verifies it with VerifyWebhook
// against time.Now and DefaultWebhookTolerance, and decodes the event envelope.
//
// It also checks that X-Partner-Event-Id and X-Partner-Event, which the signature does not
// cover, agree with the signed body, so that de-duplicating by either is safe.
func ParseWebhook(r *http.Request, secret string) (*WebhookEvent, error) {
	return parseWebhook(r, []string{secret}, 0, time.Now())
}

func parseWebhook(r *http.Request, secrets []string, tolerance time.Duration, now time.Time) (*WebhookEvent, error) {
	if r.Body == nil {
		return nil, fmt.Errorf("%w: no body", ErrWebhookMalformed)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebhookBody+1))
	if err != nil {
		return nil, fmt.Errorf("webhook: reading body: %w", err)
	}
	if len(body) > MaxWebhookBody {
		return nil, ErrWebhookTooLarge
	}
	if err := verifyWebhook(secrets, r.Header, body, tolerance, now); err != nil {
		return nil, err
	}
	var ev WebhookEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWebhookMalformed, err)
	}
	if ev.ID == "" || ev.Type == "" {
		return nil, fmt.Errorf("%w: id and type are required", ErrWebhookMalformed)
	}
	if h := r.Header.Get(HeaderEventID); h != "" && h != ev.ID {
		return nil, fmt.Errorf("%w: header %s does not match the body's id", ErrWebhookMalformed, HeaderEventID)
	}
	if h := r.Header.Get(HeaderEvent); h != "" && h != ev.Type {
		return nil, fmt.Errorf("%w: header %s does not match the body's type", ErrWebhookMalformed, HeaderEvent)
	}
	return &ev, nil
}
