package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/money"
)

// pathID parses an integer id from the path: digits only, as ids are written (a sign,
// "+1001", is refused as "1001.0" is), from 1 to the largest int64.
func pathID(r *http.Request, name string) (int64, error) {
	v := r.PathValue(name)
	id, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err == nil && id > 0 && v[0] != '+':
		return id, nil
	case errors.Is(err, strconv.ErrRange) && v[0] >= '0' && v[0] <= '9':
		return 0, tradewind.Invalid([]string{fmt.Sprintf("%s: at most %d", name, int64(math.MaxInt64))})
	}
	return 0, tradewind.Invalid([]string{name + ": must be a positive integer"})
}

// PingData is the data of GET /meta/ping.
type PingData struct {
	Partner     string                `json:"partner"`
	Status      string                `json:"status"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Mode        string                `json:"mode"`
	Sandbox     bool                  `json:"sandbox"`
	Products    []string              `json:"products"`
	Scopes      []tradewind.Scope     `json:"scopes"`
	ServerTime  time.Time             `json:"server_time"`
	// KeyExpiresAt is when the key used stops working, null when it does not expire:
	// a partner's monitoring can warn before its integration fails with 401.
	KeyExpiresAt *time.Time `json:"key_expires_at"`
}

func (s *Server) ping(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	products := []string{}
	for _, p := range tradewind.AllProducts {
		if c.Key.HasProduct(p) {
			products = append(products, string(p))
		}
	}
	status := "active"
	if c.Partner.Blocked {
		status = "blocked"
	}
	scopes := append([]tradewind.Scope{}, c.Key.Scopes...)
	var expires *time.Time
	if !c.Key.ExpiresAt.IsZero() {
		at := c.Key.ExpiresAt.UTC()
		expires = &at
	}
	return withMessage(http.StatusOK, "pong", PingData{Partner: c.Partner.Name, Status: status, PricingMode: c.Partner.PricingMode,
		Mode: string(c.Key.Mode), Sandbox: c.Test(), Products: products, Scopes: scopes,
		ServerTime: s.cfg.Clock.Now().UTC().Truncate(time.Second), KeyExpiresAt: expires}), nil
}

// CreditData is the data of GET /meta/credit.
type CreditData struct {
	Currency    string       `json:"currency"`
	CreditLimit money.Amount `json:"credit_limit"`
	Available   money.Amount `json:"available"`
	Utilized    money.Amount `json:"utilized"`
	Blocked     bool         `json:"blocked"`
}

func (s *Server) credit(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	// The caller's partner may come from the auth cache, which bookings do not refresh.
	p, err := s.cfg.Store.PartnerGetByID(r.Context(), c.Partner.ID)
	if err != nil {
		return nil, err
	}
	cur := p.Currency
	return ok(CreditData{Currency: cur, CreditLimit: money.Amount{Minor: p.CreditLimit, Currency: cur},
		Available: money.Amount{Minor: p.CreditAvailable(), Currency: cur}, Utilized: money.Amount{Minor: p.CreditUsed, Currency: cur},
		Blocked: p.Blocked}), nil
}

func (s *Server) prebook(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	var q booking.QuoteRequest
	if err := decodeChecked(r, body, &q, func() error { return s.cfg.Service.CheckQuote(c, &q) }); err != nil {
		return nil, err
	}
	res, err := s.cfg.Service.Prebook(r.Context(), c, &q)
	if err != nil {
		return nil, err
	}
	var data any = res
	if !res.AppendsJSON() {
		data = byEncodingJSON{res} // encoding/json refuses its expiry, and so does the answer
	}
	return withMessage(http.StatusOK, "Price locked until "+res.ExpiresAt.Format(time.RFC3339)+". Nothing is held: a booking with this token takes what is still free when it is made.", data), nil
}

// byEncodingJSON is v encoded by encoding/json alone, though v may append its own JSON.
type byEncodingJSON struct{ v any }

func (e byEncodingJSON) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// HeaderIdempotencyKey names the idempotency header of POST /bookings.
const HeaderIdempotencyKey = "Idempotency-Key"

// HeaderIdempotentReplayed is "true" on the answer of a booking request that an
// earlier request with the same Idempotency-Key (and body) already created.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// book creates a booking; its endpoint requires the Idempotency-Key (see serveEndpoint).
func (s *Server) book(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	key := r.Header.Get(HeaderIdempotencyKey)
	var req booking.BookRequest
	if err := decodeChecked(r, body, &req, func() error { return s.cfg.Service.CheckBook(c, &req) }); err != nil {
		return nil, err
	}
	b, replay, err := s.cfg.Service.Book(r.Context(), c, key, &req)
	if err != nil {
		return nil, err
	}
	if replay {
		res := withMessage(http.StatusOK, "Idempotent replay: this booking was created by an earlier request with the same Idempotency-Key.", b)
		res.Header = http.Header{HeaderIdempotentReplayed: {"true"}}
		return res, nil
	}
	if s.cfg.BookingCreated != nil {
		s.cfg.BookingCreated(b)
	}
	return withMessage(http.StatusCreated, "Booking "+b.Reference+" is "+string(b.Status)+".", b), nil
}

// queryPage reads the page and per_page query parameters of a list.
func queryPage(r *http.Request) (booking.Page, error) { return booking.ParsePage(r.URL.Query()) }

// joinInvalid merges bad_request errors into one listing every problem; any other error
// is returned as it is.
func joinInvalid(errs ...error) error {
	var details []string
	for _, err := range errs {
		if err == nil {
			continue
		}
		var te *tradewind.Error
		if !errors.As(err, &te) || te.Code != tradewind.ECodeBadRequest {
			return err
		}
		details = append(details, te.Details...)
	}
	if len(details) == 0 && errs != nil {
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return tradewind.Invalid(details)
}

func (s *Server) listBookings(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	pg, pgErr := queryPage(r)
	f, fErr := booking.ParseBookingFilter(r.URL.Query())
	if err := joinInvalid(pgErr, fErr); err != nil {
		return nil, err
	}
	list, meta, err := s.cfg.Service.ListBookings(r.Context(), c, f, pg)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: list, Meta: meta}, nil
}

func (s *Server) getBooking(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	b, err := s.cfg.Service.GetBooking(r.Context(), c, r.PathValue("reference"))
	if err != nil {
		return nil, err
	}
	return ok(b), nil
}

// CancelRequest is the optional body of a cancellation.
type CancelRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) cancel(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	var req CancelRequest
	if err := decodeBody(r, body, &req, true); err != nil {
		return nil, err
	}
	res, err := s.cfg.Service.Cancel(r.Context(), c, r.PathValue("reference"), req.Reason)
	if err != nil {
		return nil, err
	}
	return ok(res), nil
}
