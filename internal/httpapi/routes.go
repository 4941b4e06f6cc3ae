package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/openapi"
)

// endpoints lists every route of the partner API, in one place: its scope, the product
// the key must enable, and whether it requires an Idempotency-Key (checked once, in
// serveEndpoint). The product endpoints share the generic handlers of products.go.
// An endpoint refuses a query parameter it does not read (unknownQuery), as a body's
// unknown field is refused. A stateChanging endpoint accepts a request signature once
// (see NoReplay); the others, the POSTs of search, availability and prebook included,
// may repeat a signature.
func (s *Server) endpoints() []endpoint {
	svc := s.cfg.Service // nil when only the table is read (Routes): handlers are built, not run
	const (
		avail   = tradewind.ScopeAvailabilityRead
		catalog = tradewind.ScopeCatalogRead
	)
	hotel, activity := tradewind.ProductHotel, tradewind.ProductActivity
	rental, pkg := tradewind.ProductRental, tradewind.ProductPackage
	return []endpoint{
		{method: "GET", path: "/meta/ping", h: s.ping},
		{method: "GET", path: "/meta/credit", h: s.credit},

		{method: "POST", path: "/hotels/search", scope: avail, product: hotel, h: serveSearch(svc.SearchHotels)},
		{method: "GET", path: "/hotels/{id}", scope: catalog, product: hotel, h: serveRecord(svc.Hotel)},
		{method: "POST", path: "/hotels/availability", scope: avail, product: hotel, h: serveAvailability(svc.HotelAvailability)},
		{method: "POST", path: "/hotels/calendar", scope: avail, product: hotel, h: serveAvailability(svc.HotelCalendar)},

		{method: "POST", path: "/activities/search", scope: avail, product: activity, h: serveSearch(svc.SearchActivities)},
		{method: "GET", path: "/activities/{id}", scope: catalog, product: activity, h: serveRecord(svc.Activity)},
		{method: "POST", path: "/activities/availability", scope: avail, product: activity, h: serveAvailability(svc.ActivityAvailability)},
		{method: "POST", path: "/activities/calendar", scope: avail, product: activity, h: serveAvailability(svc.ActivityCalendar)},

		{method: "POST", path: "/rentals/search", scope: avail, product: rental, h: serveSearch(svc.SearchRentals)},
		{method: "GET", path: "/rentals/{id}", scope: catalog, product: rental, h: serveRecord(svc.Rental)},
		{method: "POST", path: "/rentals/availability", scope: avail, product: rental, h: serveAvailability(svc.RentalAvailability)},
		{method: "POST", path: "/rentals/calendar", scope: avail, product: rental, h: serveAvailability(svc.RentalCalendar)},

		{method: "POST", path: "/packages/search", scope: avail, product: pkg, h: serveSearch(svc.SearchPackages)},
		{method: "GET", path: "/packages/{id}", scope: catalog, product: pkg, h: serveRecord(svc.Package)},
		{method: "POST", path: "/packages/availability", scope: avail, product: pkg, h: serveAvailability(svc.PackageAvailability)},

		// The cities to search, counted for the products the key enables: no one product.
		{method: "GET", path: "/destinations", scope: catalog, query: booking.DestinationQuery, h: s.listDestinations},

		// A quote's product is in its body: the service checks it.
		{method: "POST", path: "/bookings/prebook", scope: avail, h: s.prebook},
		{method: "GET", path: "/bookings", scope: tradewind.ScopeBookingRead, query: booking.BookingListQuery, h: s.listBookings},
		{method: "POST", path: "/bookings", scope: tradewind.ScopeBookingWrite, idempotent: true, effect: stateChanging, h: s.book},
		{method: "GET", path: "/bookings/{reference}", scope: tradewind.ScopeBookingRead, h: s.getBooking},
		{method: "POST", path: "/bookings/{reference}/cancel", scope: tradewind.ScopeBookingWrite, effect: stateChanging, h: s.cancel},

		{method: "GET", path: "/events", scope: tradewind.ScopeBookingRead, query: booking.EventQueryParams, h: s.listEvents},
		{method: "GET", path: "/events/{id}", scope: tradewind.ScopeBookingRead, h: s.getEvent},

		{method: "GET", path: "/webhooks", scope: tradewind.ScopeWebhookManage, query: booking.PageQuery, h: s.listWebhooks},
		{method: "POST", path: "/webhooks", scope: tradewind.ScopeWebhookManage, effect: stateChanging, h: s.createWebhook},
		{method: "DELETE", path: "/webhooks/{id}", scope: tradewind.ScopeWebhookManage, effect: stateChanging, h: s.deleteWebhook},
		{method: "GET", path: "/webhooks/{id}/deliveries", scope: tradewind.ScopeWebhookManage, query: booking.WebhookDeliveryQueryParams, h: s.listWebhookDeliveries},
		{method: "POST", path: "/webhooks/{id}/test", scope: tradewind.ScopeWebhookManage, effect: stateChanging, h: s.testWebhook},
	}
}

// routes registers the endpoints, the OpenAPI document and its reference page
// (unauthenticated), and one fallback for every other path that answers an enveloped 405
// for a known path with another method and an enveloped 404 otherwise.
func (s *Server) routes(mux *http.ServeMux) {
	known := http.NewServeMux()    // every endpoint path, any method
	allow := map[string][]string{} // by the path's pattern in known: its methods, for Allow
	knownAs := func(method, path string) {
		if allow[path] == nil {
			known.Handle(path, http.NotFoundHandler())
		}
		allow[path] = append(allow[path], method)
		if method == http.MethodGet { // ServeMux answers HEAD with a GET's route
			allow[path] = append(allow[path], http.MethodHead)
		}
	}
	for _, e := range s.endpoints() {
		mux.Handle(e.method+" "+Prefix+e.path, s.authenticated(e))
		knownAs(e.method, Prefix+e.path)
	}
	openapi.Register(mux)
	for _, r := range openapi.Routes() {
		method, path, _ := strings.Cut(r, " ")
		knownAs(method, Prefix+path)
	}
	knownAs(http.MethodGet, "/healthz")
	knownAs(http.MethodGet, "/readyz")
	fallback := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.resolveForLog(r)
		if _, pattern := known.Handler(r); pattern != "" {
			w.Header().Set("Allow", strings.Join(allow[pattern], ", ")) // RFC 9110, 15.5.6
			writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeMethodNotAllowed, "Method %s is not allowed on %s.", r.Method, r.URL.Path))
			return
		}
		writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeNotFound, "No endpoint %s %s.", r.Method, r.URL.Path))
	})
	// Every path without a route, the prefix itself included (ServeMux would redirect
	// it to Prefix+"/"), gets the fallback: nothing is answered outside the envelope.
	mux.Handle("/", fallback)
	mux.Handle(Prefix, fallback)
	mux.Handle(Prefix+"/", fallback)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	shadowedMethods(mux, allow, fallback)
}

// shadowedMethods gives the fallback (405) to a literal path called with a method that
// only a wildcard route has: GET /hotels/search would otherwise be GET /hotels/{id} with
// the id "search" (400 "id: must be a positive integer"), and GET /bookings/prebook a
// booking not found. A pattern of the path and that method is more specific than the
// wildcard's, so ServeMux prefers it.
func shadowedMethods(mux *http.ServeMux, allow map[string][]string, fallback http.Handler) {
	for path, methods := range allow {
		if strings.Contains(path, "{") {
			continue
		}
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if slices.Contains(methods, m) {
				continue
			}
			probe, err := http.NewRequest(m, path, nil)
			if err != nil {
				continue
			}
			if _, pattern := mux.Handler(probe); strings.Contains(pattern, "{") {
				mux.Handle(m+" "+path, fallback)
			}
		}
	}
}

// Routes lists every endpoint of the partner API as "METHOD /path", relative to Prefix,
// in the order of endpoints (the contract tests compare it with the OpenAPI document).
func Routes() []string {
	var s Server
	var out []string
	for _, e := range s.endpoints() {
		out = append(out, e.method+" "+e.path)
	}
	return out
}

// RouteQueries gives the query parameters each endpoint of Routes reads, by "METHOD
// /path" (the contract tests compare them with the OpenAPI document).
func RouteQueries() map[string][]string {
	var s Server
	out := map[string][]string{}
	for _, e := range s.endpoints() {
		out[e.method+" "+e.path] = e.query
	}
	return out
}
