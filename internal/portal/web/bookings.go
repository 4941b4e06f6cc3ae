package web

import (
	"encoding/csv"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/portal"
)

// bookingFilter reads the Bookings page's filters from its URL (the page's permanent
// address keeps them) with the parser of GET /bookings, so that the same query selects
// the same bookings in both. Only the mode differs: the page always shows one side of
// the test/live switch, live unless test.
func bookingFilter(q url.Values) (booking.BookingFilter, error) {
	q2 := url.Values{}
	for k, vs := range q {
		q2[k] = vs
	}
	q2.Set("mode", string(portal.Mode(q.Get("mode"))))
	return booking.ParseBookingFilter(q2)
}

func (s *Server) bookingList(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	q := r.URL.Query()
	mode := string(portal.Mode(q.Get("mode")))
	v := &view{Title: "Bookings", Member: m, Nav: "bookings", Mode: mode}
	f, err := bookingFilter(q)
	var list []*tradewind.Booking
	var next int64
	if err == nil {
		list, next, err = s.portal.Bookings(r.Context(), m, f, queryID(r, "before"))
	}
	if err != nil {
		v.Data = bookingPage{}
		return s.formError(w, r, "bookings", v, err)
	}
	page := bookingPage{Bookings: list, Status: map[string]string{}, Next: next}
	now := s.portal.Now()
	for _, b := range list {
		page.Status[b.Reference] = string(b.EffectiveStatus(now))
	}
	export := url.Values{}
	for k, vs := range q {
		if k != "before" {
			export[k] = vs
		}
	}
	export.Set("mode", mode)
	page.Export = template.URL(export.Encode())
	if next != 0 {
		export.Set("before", strconv.FormatInt(next, 10))
		page.NextQuery = template.URL(export.Encode())
	}
	v.Data = page
	return s.render(w, r, http.StatusOK, "bookings", v)
}

type bookingPage struct {
	Bookings []*tradewind.Booking
	Status   map[string]string // shown status by reference
	Next     int64
	// Query strings built by url.Values.Encode: template.URL, or html/template would
	// escape their '=' and '&' a second time and break the links.
	NextQuery template.URL
	Export    template.URL
}

func (s *Server) bookingExport(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	f, err := bookingFilter(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := s.portal.ExportBookings(r.Context(), m, f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="bookings.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"reference", "partner_reference", "product_type", "status", "mode", "total_price", "currency",
		"start_date", "end_date", "created_at", "cancel_reason"})
	now := s.portal.Now()
	for _, b := range list {
		mode := "live"
		if b.Test {
			mode = "test"
		}
		_ = cw.Write([]string{b.Reference, csvCell(b.PartnerReference), string(b.ProductType), string(b.EffectiveStatus(now)), mode,
			money.Format(b.TotalPrice, b.Currency), b.Currency, b.StartDate, b.EndDate, b.CreatedAt.UTC().Format(time.RFC3339),
			csvCell(b.CancelReason)})
	}
	cw.Flush()
	return cw.Error()
}

// csvCell keeps a spreadsheet from reading a partner-supplied value as a formula.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

type bookingDetailPage struct {
	Detail      *portal.BookingDetail
	Status      string
	Cancellable bool
}

func (s *Server) bookingShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	d, err := s.portal.Booking(r.Context(), m, r.PathValue("reference"))
	if err != nil {
		return err
	}
	st := d.Booking.EffectiveStatus(s.portal.Now())
	v := &view{Title: "Booking " + d.Booking.Reference, Member: m, Nav: "bookings",
		Data: bookingDetailPage{Detail: d, Status: string(st), Cancellable: st != tradewind.StatusCancelled && st != tradewind.StatusCompleted}}
	if r.URL.Query().Get("cancelled") == "1" {
		v.Notice = "The booking was cancelled."
	}
	return s.render(w, r, http.StatusOK, "booking", v)
}

func (s *Server) bookingCancelShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	d, err := s.portal.Booking(r.Context(), m, r.PathValue("reference"))
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "cancel", &view{Title: "Cancel " + d.Booking.Reference, Member: m, Nav: "bookings", Data: d})
}

func (s *Server) bookingCancel(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	ref := r.PathValue("reference")
	if err := s.portal.CancelBooking(r.Context(), m, ref, s.clientAddr(r)); err != nil {
		d, derr := s.portal.Booking(r.Context(), m, ref)
		if derr != nil {
			return derr
		}
		return s.formError(w, r, "cancel", &view{Title: "Cancel " + ref, Member: m, Nav: "bookings", Data: d}, err)
	}
	http.Redirect(w, r, "/bookings/"+url.PathEscape(ref)+"?cancelled=1", http.StatusSeeOther)
	return nil
}
