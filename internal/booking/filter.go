package booking

import (
	"context"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// BookingFilter selects a partner's bookings. It is the one filter of GET /bookings and
// of the portal's Bookings page: both parse it with ParseBookingFilter from the same query
// parameters and list with Service.FindBookings. The zero value selects every booking.
type BookingFilter struct {
	Statuses    []tradewind.BookingStatus // any of confirmed, pending, on_request, cancelled, completed (derived); none: any
	ProductType tradewind.ProductType     // "" any
	Mode        tradewind.Mode            // "" both, else test or live bookings only
	// CreatedFrom ≤ created_at < CreatedBefore; zero times are open ends.
	CreatedFrom, CreatedBefore time.Time
	// ServiceFrom and ServiceTo (YYYY-MM-DD, inclusive) keep bookings whose service period
	// (first day to last day, the check-out day for stays) overlaps them; "" is open.
	ServiceFrom, ServiceTo string
	PartnerReference       string // exact match
	// Search keeps bookings whose reference, partner reference or guest name contains it
	// (case-insensitive); "" keeps all.
	Search string
}

// Booking filter query parameters, in the order errors are reported.
var bookingFilterParams = []string{"status", "product_type", "mode", "created_from", "created_to",
	"service_from", "service_to", "partner_reference", "q"}

var filterStatuses = []tradewind.BookingStatus{tradewind.StatusConfirmed, tradewind.StatusPending, tradewind.StatusOnRequest,
	tradewind.StatusCancelled, tradewind.StatusCompleted}

// ParseBookingFilter reads the filter query parameters: status, product_type, mode (test
// or live), created_from / created_to (a date, whose whole day is included, or an RFC 3339
// date-time: from inclusive, to exclusive), service_from / service_to (dates, inclusive)
// partner_reference and q (part of the reference, partner reference or guest name). Every
// bad one is listed in one 400 bad_request; a parameter
// given twice is refused rather than guessed at.
func ParseBookingFilter(q url.Values) (BookingFilter, error) {
	var f BookingFilter
	var p problems
	get := func(name string) string { return p.queryParam(q, name) }
	if v := get("status"); v != "" {
		// One status, or several separated by commas (pending,on_request), as the event
		// feed's type takes them; given twice the parameter is refused, as every one is.
		list := strings.SplitN(v, ",", len(filterStatuses)+1) // bounded: a long list is one problem, not one a comma
		if len(list) > len(filterStatuses) {
			p.add("status: at most %d statuses", len(filterStatuses))
			list = nil
		}
		for _, one := range list {
			st := tradewind.BookingStatus(strings.TrimSpace(one))
			switch {
			case !slices.Contains(filterStatuses, st):
				p.add("status: %q is not one of confirmed, pending, on_request, cancelled, completed", clip(string(st)))
			case !slices.Contains(f.Statuses, st):
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	if v := get("product_type"); v != "" {
		f.ProductType = tradewind.ProductType(v)
		if !f.ProductType.Valid() {
			p.add("product_type: %q is not one of hotel, activity, rental, package", clip(v))
		}
	}
	if v := get("mode"); v != "" {
		f.Mode = tradewind.Mode(v)
		if f.Mode != tradewind.ModeTest && f.Mode != tradewind.ModeLive {
			p.add("mode: %q is not one of test, live", clip(v))
		}
	}
	if v := get("created_from"); v != "" {
		t, _, ok := parseInstant(v)
		if !ok {
			p.notInstant("created_from", v)
		}
		f.CreatedFrom = t
	}
	if v := get("created_to"); v != "" {
		t, isDate, ok := parseInstant(v)
		if !ok {
			p.notInstant("created_to", v)
		}
		if isDate {
			t = t.AddDate(0, 0, 1) // the whole day
		}
		if t.Year() > 9999 { // the whole of 9999-12-31, a common "no end": no bound, as the year 10000 has no RFC 3339 form to compare with
			t = time.Time{}
		}
		f.CreatedBefore = t
	}
	if !f.CreatedFrom.IsZero() && !f.CreatedBefore.IsZero() && !f.CreatedFrom.Before(f.CreatedBefore) {
		p.add("created_to: must be after created_from")
	}
	for _, d := range []struct {
		name string
		dst  *string
	}{{"service_from", &f.ServiceFrom}, {"service_to", &f.ServiceTo}} {
		if v := get(d.name); v != "" {
			if _, ok := catalog.ParseDate(v); !ok {
				p.add("%s: %q is not a date (YYYY-MM-DD)", d.name, clip(v))
			}
			*d.dst = v
		}
	}
	if f.ServiceFrom != "" && f.ServiceTo != "" && f.ServiceTo < f.ServiceFrom {
		p.add("service_to: must not be before service_from")
	}
	if v := get("partner_reference"); v != "" {
		if len([]rune(v)) > 64 {
			p.add("partner_reference: at most 64 characters")
		}
		f.PartnerReference = v
	}
	if v := strings.TrimSpace(get("q")); v != "" {
		if len([]rune(v)) > 100 {
			p.add("q: at most 100 characters")
		}
		f.Search = v
	}
	return f, p.err()
}

// ParsePage reads a list's page and per_page query parameters, each given once as an
// integer, and checks their range (ValidatePage).
func ParsePage(q url.Values) (Page, error) {
	var p problems
	page, perPage := p.queryInt(q, "page"), p.queryInt(q, "per_page")
	if err := p.err(); err != nil {
		return Page{}, err
	}
	return ValidatePage(page, perPage)
}

// queryInt returns the integer of a query parameter given once (nil when absent).
func (p *problems) queryInt(q url.Values, name string) *int {
	v := p.queryParam(q, name)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		p.add("%s: must be an integer", name)
		return nil
	}
	return &n
}

// queryPerPage returns the per_page query parameter given once, DefaultPerPage when
// absent, checked as every list's (checkPerPage).
func (p *problems) queryPerPage(q url.Values) int {
	n := p.queryInt(q, "per_page")
	if n == nil {
		return DefaultPerPage
	}
	checkPerPage(p, *n)
	return *n
}

// queryBound returns the id bound a query parameter given once names, a positive integer
// written with digits only as a path id is (0 when absent). A bound past int64 is the
// largest id: every id is below it.
func (p *problems) queryBound(q url.Values, name string) int64 {
	v := p.queryParam(q, name)
	if v == "" {
		return 0
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && v[0] >= '1' && v[0] <= '9' {
		return math.MaxInt64
	}
	if err != nil || id < 1 || v[0] == '+' {
		p.add("%s: must be a positive integer", name)
		return 0
	}
	return id
}

// queryParam returns the one value of a query parameter ("" when absent); a parameter
// given twice or holding NUL is a problem.
func (p *problems) queryParam(q url.Values, name string) string {
	vs := q[name]
	if len(vs) > 1 {
		p.add("%s: given %d times; give it once", name, len(vs))
	}
	if len(vs) == 0 {
		return ""
	}
	if strings.ContainsRune(vs[0], 0) {
		p.add("%s: must not contain NUL characters", name)
		return ""
	}
	return vs[0]
}

// PageQuery are ParsePage's query parameters, those of every paginated list.
var PageQuery = []string{"page", "per_page"}

// BookingListQuery are the query parameters of GET /bookings: ParsePage's and
// ParseBookingFilter's.
var BookingListQuery = append(slices.Clone(PageQuery), "status", "product_type", "mode", "created_from", "created_to",
	"service_from", "service_to", "partner_reference", "q")

// UnknownQuery lists one problem for each query parameter of q that is not one of takes,
// the parameters of the endpoint op ("GET /bookings") reads, as a body's unknown field
// is refused: a misspelt filter (?stauts=cancelled) would otherwise answer every booking
// as if it matched.
func UnknownQuery(q url.Values, takes []string, op string) error {
	var names []string
	for name := range q {
		if !slices.Contains(takes, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	list := "it takes none"
	if len(takes) > 0 {
		list = "it takes " + strings.Join(takes, ", ")
	}
	var p problems
	for _, name := range names {
		p.add("%s: not a query parameter of %s; %s", clip(name), op, list)
	}
	return p.err()
}

// clip shortens a client's value quoted back in an error, so answers stay small.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// notInstant reports a created_from or created_to that parses as neither form. A
// date-time whose offset's "+" came through unencoded (a query string decodes "+" to
// a space) is told how to send it.
func (p *problems) notInstant(field, v string) {
	if strings.Contains(v, " ") {
		if _, _, ok := parseInstant(strings.ReplaceAll(v, " ", "+")); ok {
			p.add("%s: %q is not a date-time: a query string decodes \"+\" to a space; send the offset's + as %%2B", field, clip(v))
			return
		}
	}
	p.add("%s: %q is not a date (YYYY-MM-DD) or an RFC 3339 date-time", field, clip(v))
}

// parseInstant parses a date (as midnight UTC, isDate true) or an RFC 3339 date-time.
func parseInstant(v string) (t time.Time, isDate, ok bool) {
	if d, ok := catalog.ParseDate(v); ok {
		return d.UTC(), true, true
	}
	t, err := time.Parse(time.RFC3339, v)
	// In UTC, as stored and compared: 9999-12-31T23:00:00-05:00 is in the year 10000,
	// which SQLite would compare as text before every stored time.
	if t = t.UTC(); err != nil || t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, false, false
	}
	return t, false, true
}

// storeFilter is the store query of f for one partner, today deciding which confirmed
// bookings are completed.
func (f BookingFilter) storeFilter(partnerID int64, today string) store.BookingFilter {
	sf := store.BookingFilter{PartnerID: partnerID, ProductType: f.ProductType,
		CreatedFrom: f.CreatedFrom, CreatedBefore: f.CreatedBefore, ServiceFrom: f.ServiceFrom, ServiceTo: f.ServiceTo,
		PartnerReference: f.PartnerReference, Search: f.Search}
	for _, st := range f.Statuses {
		sf.Statuses = append(sf.Statuses, statusTerm(st, today))
	}
	if f.Mode != "" {
		test := f.Mode == tradewind.ModeTest
		sf.Test = &test
	}
	return sf
}

// statusTerm selects a shown status: completed is a confirmed booking whose service
// ended before today, confirmed one that has not.
func statusTerm(status tradewind.BookingStatus, today string) store.StatusTerm {
	switch status {
	case tradewind.StatusCompleted:
		return store.StatusTerm{Status: tradewind.StatusConfirmed, EndBefore: today}
	case tradewind.StatusConfirmed:
		return store.StatusTerm{Status: tradewind.StatusConfirmed, EndFrom: today}
	}
	return store.StatusTerm{Status: status}
}

// FindBookingsBefore returns up to limit of the partner's bookings matching f whose ids
// are below beforeID (0: from the newest), newest first: keyset paging, which stays fast
// however far a list is paged (the portal's Bookings page and its CSV export). next is
// the cursor of the following page, 0 on the last one.
func (s *Service) FindBookingsBefore(ctx context.Context, partnerID int64, f BookingFilter, beforeID int64, limit int) (
	list []*tradewind.Booking, next int64, err error) {
	sf := f.storeFilter(partnerID, s.today())
	sf.BeforeID, sf.Limit = max(beforeID, 0), limit+1 // one more tells whether a next page exists
	if list, _, err = s.Store.BookingList(ctx, sf); err != nil {
		return nil, 0, err
	}
	if len(list) > limit {
		list = list[:limit]
		next = list[limit-1].ID
	}
	return list, next, nil
}

// FindBookings returns a page of the partner's bookings matching f, newest first, and
// the page's meta.
func (s *Service) FindBookings(ctx context.Context, partnerID int64, f BookingFilter, pg Page) ([]*BookingView, PageMeta, error) {
	sf := f.storeFilter(partnerID, s.today())
	sf.Offset, sf.Limit = (pg.Page-1)*pg.PerPage, pg.PerPage
	list, total, err := s.Store.BookingList(ctx, sf)
	if err != nil {
		return nil, PageMeta{}, err
	}
	out := make([]*BookingView, 0, len(list))
	for _, b := range list {
		out = append(out, s.View(b))
	}
	return out, pg.meta(total), nil
}
