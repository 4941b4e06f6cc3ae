// Package tradewind holds the domain of the Tradewind partner API: product types, key
// modes, booking states and the application error that every layer speaks.
//
// Technology lives in subpackages (internal/store/sqlite, internal/httpapi, …); the
// business rules live in internal/booking, once, over the store interface.
package tradewind

import (
	"errors"
	"fmt"
	"time"
)

// Error codes, exactly as the partner API documents them. Each maps to one HTTP status
// in internal/httpapi.
const (
	ECodeBadRequest             = "bad_request"
	ECodeIdempotencyKeyRequired = "idempotency_key_required"
	ECodeUnauthorized           = "unauthorized"
	ECodeSignatureRequired      = "signature_required"
	ECodeSignatureExpired       = "signature_expired"
	ECodeSignatureInvalid       = "signature_invalid"
	ECodeInsufficientCredit     = "insufficient_credit"
	ECodeCreditBlocked          = "credit_blocked"
	ECodeIPNotAllowed           = "ip_not_allowed"
	ECodeMTLSRequired           = "mtls_required"
	ECodeInsufficientScope      = "insufficient_scope"
	ECodeProductNotEnabled      = "product_not_enabled"
	ECodeNotFound               = "not_found"
	ECodeMethodNotAllowed       = "method_not_allowed"
	ECodeDuplicatePartnerRef    = "duplicate_partner_reference"
	ECodeInvalidQuote           = "invalid_quote"
	ECodePrebookExpired         = "prebook_expired"
	ECodeNotCancellable         = "not_cancellable"
	ECodeTravellersMismatch     = "travellers_count_mismatch"
	ECodeIdempotencyKeyReused   = "idempotency_key_reused"
	ECodeValidationFailed       = "validation_failed"
	ECodeRateLimited            = "rate_limited"
	ECodeUnavailable            = "service_unavailable"
	ECodeCursorExpired          = "cursor_expired"
	ECodeInternal               = "internal_error"
)

// Error codes of the operator's commands alone. No partner endpoint answers them, so they
// have no HTTP status and are not in the OpenAPI document; the CLI prints their message.
const (
	// ECodeNotConfirmable: the booking is not pending or on_request, so the supplier
	// cannot confirm it (booking confirm).
	ECodeNotConfirmable = "not_confirmable"
)

// Error is an application error whose message and details are safe to show a client.
// Anything that is not an *Error reaches the client as a generic internal error.
type Error struct {
	Code    string
	Message string
	Details []string // one string per problem, naming the field
	// Reason refines a 422's Code for programs (one of the Reason constants), so that a
	// client tells "sold out" from "no such room" without reading Message; "" otherwise.
	Reason string
	// RetryAfter, when above 0, is the Retry-After the answer carries, in seconds.
	RetryAfter int
}

func (e *Error) Error() string {
	if len(e.Details) > 0 {
		return fmt.Sprintf("%s: %s %v", e.Code, e.Message, e.Details)
	}
	return e.Code + ": " + e.Message
}

// RetryIn sets e's Retry-After to secs seconds and returns e.
func (e *Error) RetryIn(secs int) *Error {
	e.RetryAfter = secs
	return e
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Reasons of a 422 answer (Error.Reason, the envelope's "reason"): what a partner's
// program acts on, finer than the code. The set may grow: a client treats a reason it
// does not know as its code alone.
const (
	// invalid_quote
	ReasonSoldOut            = "sold_out"             // not available for these dates and party any more: search again
	ReasonPartyTooLarge      = "party_too_large"      // the party does not fit the room, space or rooms asked
	ReasonUnknownItem        = "unknown_item"         // no such hotel, activity, rental or package for this partner
	ReasonUnknownOption      = "unknown_option"       // a room, space, option, departure or add-on the item does not have, or a date field of the other kind of package
	ReasonInThePast          = "in_the_past"          // the service starts before today (a departure that left; a past date the request names is a 400)
	ReasonCurrencyMismatch   = "currency_mismatch"    // the item is priced in another currency than the credit line
	ReasonProductNotBookable = "product_not_bookable" // the product type cannot be booked
	ReasonPrebookUnknown     = "prebook_unknown"      // the prebook token is not this key's
	ReasonPrebookUsed        = "prebook_used"         // the prebook token already booked
	// not_cancellable
	ReasonAlreadyCancelled = "already_cancelled" // the booking is cancelled
	ReasonCompleted        = "completed"         // the service took place
	ReasonStateChanged     = "state_changed"     // the booking changed state meanwhile: read it again
	ReasonLiveBooking      = "live_booking"      // the portal's test console never cancels a live booking
)

// ReasonCodes gives each reason the one code it refines (documented in the OpenAPI
// document's ErrorReason; the Go client has the same constants).
var ReasonCodes = map[string]string{
	ReasonSoldOut: ECodeInvalidQuote, ReasonPartyTooLarge: ECodeInvalidQuote, ReasonUnknownItem: ECodeInvalidQuote,
	ReasonUnknownOption: ECodeInvalidQuote, ReasonInThePast: ECodeInvalidQuote, ReasonCurrencyMismatch: ECodeInvalidQuote,
	ReasonProductNotBookable: ECodeInvalidQuote, ReasonPrebookUnknown: ECodeInvalidQuote, ReasonPrebookUsed: ECodeInvalidQuote,
	ReasonAlreadyCancelled: ECodeNotCancellable, ReasonCompleted: ECodeNotCancellable,
	ReasonStateChanged: ECodeNotCancellable, ReasonLiveBooking: ECodeNotCancellable,
}

// Refusal returns an *Error with its reason (a Reason constant) and a formatted message.
func Refusal(code, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a bad_request error listing every problem, or nil when there are none.
func Invalid(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return &Error{Code: ECodeBadRequest, Message: "The request is invalid.", Details: problems}
}

// ErrorCode returns the code of err if it is (or wraps) an *Error, else ECodeInternal.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ECodeInternal
}

// ProductType is one of the four kinds of inventory.
type ProductType string

// The product types.
const (
	ProductHotel    ProductType = "hotel"
	ProductActivity ProductType = "activity"
	ProductRental   ProductType = "rental"
	ProductPackage  ProductType = "package"
)

// AllProducts lists the product types in documentation order.
var AllProducts = []ProductType{ProductHotel, ProductActivity, ProductRental, ProductPackage}

// Valid reports whether p is one of the four product types.
func (p ProductType) Valid() bool {
	switch p {
	case ProductHotel, ProductActivity, ProductRental, ProductPackage:
		return true
	}
	return false
}

// Mode is the mode of an API key: test keys never draw credit nor consume inventory.
type Mode string

// The key modes.
const (
	ModeTest Mode = "test"
	ModeLive Mode = "live"
)

// Scope is a permission a key carries.
type Scope string

// Scopes a key may carry.
const (
	ScopeCatalogRead      Scope = "catalog:read"
	ScopeAvailabilityRead Scope = "availability:read"
	ScopeBookingRead      Scope = "booking:read"
	ScopeBookingWrite     Scope = "booking:write"
	ScopeWebhookManage    Scope = "webhook:manage"
)

// AllScopes lists every scope, the default for a new key.
var AllScopes = []Scope{ScopeCatalogRead, ScopeAvailabilityRead, ScopeBookingRead, ScopeBookingWrite, ScopeWebhookManage}

// PricingMode is how a partner contract prices: net rates, or net plus a markup.
type PricingMode string

// Pricing modes of a partner contract.
const (
	PricingNet    PricingMode = "net"
	PricingMarkup PricingMode = "markup"
)

// BookingStatus is the state of a booking.
type BookingStatus string

// Booking states. StatusCompleted is derived: a confirmed booking whose service ended.
const (
	StatusConfirmed BookingStatus = "confirmed"
	StatusPending   BookingStatus = "pending"
	StatusOnRequest BookingStatus = "on_request"
	StatusCancelled BookingStatus = "cancelled"
	StatusCompleted BookingStatus = "completed"
)

// UnitKind is what one row of inventory counts.
type UnitKind string

// Inventory kinds.
const (
	UnitRoom       UnitKind = "room"        // hotel room type, per night: rooms
	UnitActivity   UnitKind = "activity"    // activity, per day: seats
	UnitSpace      UnitKind = "space"       // rental space, per night: capacity 1
	UnitDeparture  UnitKind = "departure"   // fixed package departure, on its date: seats
	UnitPackageDay UnitKind = "package_day" // open package, per travel day: seats
)

// Clock tells the time; tests inject a fixed or advancing one.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// DateLayout is the layout of calendar dates on the wire and in the store.
const DateLayout = "2006-01-02"
