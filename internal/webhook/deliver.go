package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tradewind/tradewind/client"
)

// DefaultTimeout bounds one delivery attempt, from dialling to reading the answer.
const DefaultTimeout = 10 * time.Second

// UserAgent is sent with every delivery.
const UserAgent = "Tradewind-Webhooks/1.0"

// SnippetLimit is the most bytes of a receiver's answer kept in Attempt.ResponseSnippet.
const SnippetLimit = 512

// drainLimit is how much more of an answer is read, and discarded, to let the connection be reused.
const drainLimit = 64 << 10

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	StatusCode      int           // the receiver's HTTP status, 0 when none was received
	Err             error         // nil on a 2xx answer; a short text that never holds the secret
	Duration        time.Duration // wall time the attempt took
	ResponseSnippet string        // up to the first SnippetLimit bytes of the answer, as valid UTF-8 without NULs
}

// Deliverer sends signed webhook deliveries over a hardened HTTP client; it is safe for concurrent use.
type Deliverer struct {
	client       *http.Client
	allowPrivate bool
	timeout      time.Duration
}

// NewDeliverer returns a Deliverer whose attempts time out after timeout (DefaultTimeout
// when 0 or less), never follow redirects, and, unless allowPrivate, go only over https to
// public addresses; tlsConfig (nil for the system defaults) is cloned, not kept.
func NewDeliverer(allowPrivate bool, timeout time.Duration, tlsConfig *tls.Config) *Deliverer {
	var control func(network, address string, c syscall.RawConn) error
	if !allowPrivate {
		control = guardDial
	}
	return newDeliverer(allowPrivate, timeout, tlsConfig, control)
}

// newDeliverer is NewDeliverer with the dialer's Control func given, so tests can wrap the guard.
func newDeliverer(allowPrivate bool, timeout time.Duration, tlsConfig *tls.Config, control func(network, address string, c syscall.RawConn) error) *Deliverer {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: control}
	var tc *tls.Config
	if tlsConfig != nil {
		tc = tlsConfig.Clone()
	} else {
		tc = &tls.Config{}
	}
	if tc.MinVersion < tls.VersionTLS12 {
		tc.MinVersion = tls.VersionTLS12
	}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would dial on our behalf and defeat the address guard
		DialContext:            dialer.DialContext,
		TLSClientConfig:        tc,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Deliverer{
		client: &http.Client{
			Transport: transport,
			Timeout:   timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse // a 3xx answer is a failed attempt
			},
		},
		allowPrivate: allowPrivate,
		timeout:      timeout,
	}
}

// attemptError is an error whose text is short and safe to store and show to the partner
// while errors.Is still reaches the cause.
type attemptError struct {
	msg   string
	cause error
}

func (e *attemptError) Error() string { return e.msg }
func (e *attemptError) Unwrap() error { return e.cause }

// Deliver POSTs body to rawURL once, signed with secret and timestamped with now, and
// reports the outcome; only a 2xx answer is a success.
func (d *Deliverer) Deliver(ctx context.Context, rawURL, secret, eventID, eventType string, body []byte, now time.Time) Attempt {
	return d.DeliverRolling(ctx, rawURL, secret, "", eventID, eventType, body, now)
}

// DeliverRolling is Deliver during a secret roll: next, unless empty, also signs the
// body, in X-Partner-Signature-Next.
func (d *Deliverer) DeliverRolling(ctx context.Context, rawURL, secret, next, eventID, eventType string, body []byte, now time.Time) Attempt {
	start := time.Now()
	a := d.deliver(ctx, rawURL, secret, next, eventID, eventType, body, now)
	a.Duration = time.Since(start)
	return a
}

func (d *Deliverer) deliver(ctx context.Context, rawURL, secret, next, eventID, eventType string, body []byte, now time.Time) Attempt {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return Attempt{Err: &attemptError{msg: "invalid url"}}
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !d.allowPrivate {
			return Attempt{Err: &attemptError{msg: "destination forbidden: url must use https", cause: ErrDestinationForbidden}}
		}
	default:
		return Attempt{Err: &attemptError{msg: "unsupported url scheme " + strconv.Quote(u.Scheme)}}
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Attempt{Err: &attemptError{msg: "invalid request", cause: err}}
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(client.HeaderEvent, eventType)
	req.Header.Set(client.HeaderEventID, eventID)
	req.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(client.HeaderSignature, client.SignWebhook(secret, ts, body))
	if next != "" {
		req.Header.Set(client.HeaderSignatureNext, client.SignWebhook(next, ts, body))
	}

	resp, err := d.client.Do(req)
	if err != nil {
		return Attempt{Err: d.transportError(ctx, err)}
	}
	defer resp.Body.Close()

	// The status decides; a body that fails or stalls after a 2xx does not undo the acknowledgement.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, SnippetLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	a := Attempt{StatusCode: resp.StatusCode, ResponseSnippet: snippet(head, SnippetLimit)}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		a.Err = &attemptError{msg: fmt.Sprintf("redirect %d not followed", resp.StatusCode)}
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		a.Err = &attemptError{msg: fmt.Sprintf("status %d", resp.StatusCode)}
	}
	return a
}

// transportError turns a failed round trip into a short error text.
func (d *Deliverer) transportError(ctx context.Context, err error) error {
	var fe *forbiddenError
	var ne net.Error
	switch {
	case errors.As(err, &fe):
		return &attemptError{msg: fe.Error(), cause: err}
	case ctx.Err() != nil:
		return &attemptError{msg: "cancelled: " + ctx.Err().Error(), cause: err}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return &attemptError{msg: "timeout after " + d.timeout.String(), cause: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop `Post "<url>":`, the partner knows its url
	}
	return &attemptError{msg: snippet([]byte(partnerSafe(err)), 200), cause: err}
}

// partnerSafe is err's text without what it tells of Tradewind's side, since the partner
// reads it (GET /webhooks/{id}/deliveries, the portal): a DNS error names the resolver
// that was asked ("lookup h on 10.0.0.53:53"), a network error the local address it came
// from ("read tcp 10.0.0.5:41234->…"). The partner's host and address stay.
func partnerSafe(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "DNS lookup of " + dns.Name + " failed: " + dns.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Source != nil {
		text := op.Op + " " + op.Net
		if op.Addr != nil {
			text += " " + op.Addr.String()
		}
		return text + ": " + op.Err.Error()
	}
	return err.Error()
}

// snippet makes at most the first limit bytes of b safe to store as text.
func snippet(b []byte, limit int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	for len(s) > limit {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
