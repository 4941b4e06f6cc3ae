package booking

import (
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// PortalCaller is the partner acting through the portal's signed-in session: the
// session stands in for a key, with every scope and product, in mode. The portal's
// cancels and webhook changes then follow exactly the API's rules.
func PortalCaller(p *tradewind.Partner, mode tradewind.Mode) *Caller {
	return &Caller{Partner: p, Key: &tradewind.APIKey{PartnerID: p.ID, Mode: mode, Scopes: tradewind.AllScopes,
		Products: tradewind.AllProducts}}
}

// BookingQuery is a filtered list of a partner's bookings: the filters of the portal's
// Bookings page (and of its CSV export), meant for the API's GET /bookings as well.
type BookingQuery struct {
	Mode        string // "test", "live" or "" (both)
	Status      string // a shown status: confirmed, pending, on_request, cancelled, completed
	Product     string
	Search      string // part of the reference, partner reference or guest name
	CreatedFrom string // YYYY-MM-DD, inclusive (UTC)
	CreatedTo   string // YYYY-MM-DD, inclusive (UTC)
	ServiceFrom string // first day of service, YYYY-MM-DD, inclusive
	ServiceTo   string
	BeforeID    int64 // keyset cursor: the id of the last booking of the previous page
	Limit       int
}

var shownStatuses = []tradewind.BookingStatus{tradewind.StatusConfirmed, tradewind.StatusPending, tradewind.StatusOnRequest,
	tradewind.StatusCancelled, tradewind.StatusCompleted}

// Filter validates q (every problem listed) and returns the store filter for partnerID.
func (s *Service) Filter(partnerID int64, q BookingQuery) (store.BookingFilter, error) {
	var p problems
	f := store.BookingFilter{PartnerID: partnerID, Search: strings.TrimSpace(q.Search), BeforeID: q.BeforeID, Limit: q.Limit}
	switch q.Mode {
	case "":
	case string(tradewind.ModeTest), string(tradewind.ModeLive):
		test := q.Mode == string(tradewind.ModeTest)
		f.Test = &test
	default:
		p.add("mode: test or live")
	}
	if q.Status != "" && !slices.Contains(shownStatuses, tradewind.BookingStatus(q.Status)) {
		p.add("status: one of confirmed, pending, on_request, cancelled, completed")
	}
	statusFilter(&f, q.Status, s.today())
	if q.Product != "" {
		if !tradewind.ProductType(q.Product).Valid() {
			p.add("product: one of hotel, activity, rental, package")
		}
		f.ProductType = tradewind.ProductType(q.Product)
	}
	if len(f.Search) > 100 {
		p.add("search: at most 100 characters")
	}
	day := func(field, v string) (time.Time, bool) {
		if v == "" {
			return time.Time{}, false
		}
		t, ok := catalog.ParseDate(v)
		if !ok {
			p.add("%s: a date YYYY-MM-DD", field)
		}
		return t, ok
	}
	if t, ok := day("created_from", q.CreatedFrom); ok {
		f.CreatedFrom = t
	}
	if t, ok := day("created_to", q.CreatedTo); ok {
		f.CreatedBefore = t.AddDate(0, 0, 1)
	}
	if _, ok := day("service_from", q.ServiceFrom); ok {
		f.ServiceFrom = q.ServiceFrom
	}
	if _, ok := day("service_to", q.ServiceTo); ok {
		f.ServiceTo = q.ServiceTo
	}
	if q.BeforeID < 0 {
		p.add("before: a booking id")
	}
	if len(p) > 0 {
		return store.BookingFilter{}, p.err()
	}
	return f, nil
}

// statusFilter selects a shown status: completed is a confirmed booking whose service
// ended before today, confirmed one that has not.
func statusFilter(f *store.BookingFilter, status, today string) {
	f.Status = tradewind.BookingStatus(status)
	switch f.Status {
	case tradewind.StatusCompleted:
		f.Status, f.EndBefore = tradewind.StatusConfirmed, today
	case tradewind.StatusConfirmed:
		f.EndFrom = today
	}
}
