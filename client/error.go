package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Error codes of the partner API, the values of Error.Code.
const (
	CodeBadRequest                = "bad_request"                 // 400: invalid input; Errors names every problem
	CodeIdempotencyKeyRequired    = "idempotency_key_required"    // 400: POST /bookings without Idempotency-Key
	CodeUnauthorized              = "unauthorized"                // 401: missing, invalid, revoked or expired key
	CodeSignatureRequired         = "signature_required"          // 401: the contract requires signing (WithSigningSecret)
	CodeSignatureExpired          = "signature_expired"           // 401: the signing timestamp is over 5 minutes off
	CodeSignatureInvalid          = "signature_invalid"           // 401: the signature does not match
	CodeInsufficientCredit        = "insufficient_credit"         // 402: the booking exceeds the available credit
	CodeCreditBlocked             = "credit_blocked"              // 402: the account is on hold
	CodeIPNotAllowed              = "ip_not_allowed"              // 403: the source address is not allowlisted
	CodeMTLSRequired              = "mtls_required"               // 403: a client certificate is required
	CodeInsufficientScope         = "insufficient_scope"          // 403: the key lacks the endpoint's scope
	CodeProductNotEnabled         = "product_not_enabled"         // 403: the key does not enable the product type
	CodeNotFound                  = "not_found"                   // 404: no such resource for this partner
	CodeMethodNotAllowed          = "method_not_allowed"          // 405: the path does not take this method
	CodeDuplicatePartnerReference = "duplicate_partner_reference" // 409: partner_reference already used
	CodeInvalidQuote              = "invalid_quote"               // 422: unknown or unavailable item, or a used prebook token
	CodePrebookExpired            = "prebook_expired"             // 422: the prebook token's 15 minutes are over
	CodeNotCancellable            = "not_cancellable"             // 422: the booking is cancelled or completed
	CodeTravellersCountMismatch   = "travellers_count_mismatch"   // 422: package travellers do not match the party
	CodeIdempotencyKeyReused      = "idempotency_key_reused"      // 422: the Idempotency-Key already booked another body
	CodeValidationFailed          = "validation_failed"           // 422: invalid webhook subscription
	CodeCursorExpired             = "cursor_expired"              // 410: the event feed cursor is unknown or past the 30-day retention
	CodeRateLimited               = "rate_limited"                // 429: over the request budget; see RetryAfter
	CodeInternalError             = "internal_error"              // 500: quote RequestID to support
	CodeServiceUnavailable        = "service_unavailable"         // 503: retry later
)

// Reasons of a 422 invalid_quote or not_cancellable, the values of Error.Reason. The set
// may grow: treat a reason not listed here as its code alone.
const (
	ReasonSoldOut            = "sold_out"             // invalid_quote: no longer available for these dates and party; search again
	ReasonPartyTooLarge      = "party_too_large"      // invalid_quote: the party does not fit the room(s) or space
	ReasonUnknownItem        = "unknown_item"         // invalid_quote: no such hotel, activity, rental or package
	ReasonUnknownOption      = "unknown_option"       // invalid_quote: a room, space, departure or add-on the item does not have
	ReasonInThePast          = "in_the_past"          // invalid_quote: the service starts before today
	ReasonCurrencyMismatch   = "currency_mismatch"    // invalid_quote: priced in another currency than the credit line
	ReasonProductNotBookable = "product_not_bookable" // invalid_quote: the product type cannot be booked
	ReasonPrebookUnknown     = "prebook_unknown"      // invalid_quote: the prebook token is not this key's
	ReasonPrebookUsed        = "prebook_used"         // invalid_quote: the prebook token already made a booking
	ReasonAlreadyCancelled   = "already_cancelled"    // not_cancellable: the booking is cancelled
	ReasonCompleted          = "completed"            // not_cancellable: the service took place
	ReasonStateChanged       = "state_changed"        // not_cancellable: the booking changed state meanwhile; read it again
	ReasonLiveBooking        = "live_booking"         // not_cancellable: the portal's test console never cancels a live booking
)

// IsReason reports whether err is (or wraps) an *Error with the given reason.
func IsReason(err error, reason string) bool {
	var e *Error
	return errors.As(err, &e) && e.Reason == reason
}

// Error is an error answer of the API: its error envelope, with what the response's
// headers add. Match it with errors.As, or its code with IsCode.
type Error struct {
	HTTPStatus int           // the HTTP status, e.g. 422
	Code       string        // the machine code, one of the Code constants; "" when the body was not an error envelope
	Reason     string        // on a 422 invalid_quote or not_cancellable, why: one of the Reason constants (the set may grow); "" otherwise
	Message    string        // human-readable text
	Errors     []string      // one string per problem, naming the field
	RequestID  string        // X-Request-Id of the response; quote it to support
	RetryAfter time.Duration // Retry-After of a 429 or 503, else 0
}

// Error returns "tradewind: <status> <code> (<reason>): <message> [<errors>]".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tradewind: %d", e.HTTPStatus)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Reason != "" {
		b.WriteString(" (" + e.Reason + ")")
	}
	b.WriteString(": " + e.Message)
	if len(e.Errors) > 0 {
		b.WriteString(" [" + strings.Join(e.Errors, "; ") + "]")
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// IsCode reports whether err is (or wraps) an *Error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// IsTemporary reports whether err is an *Error that may succeed when retried later: a
// 429 rate_limited or a 502, 503 or 504.
func IsTemporary(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.HTTPStatus {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}
