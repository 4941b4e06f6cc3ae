package httpapi

import (
	"net/http"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/openapi"
)

// endpoints lists every route of the partner API, in one place. A stateChanging
// endpoint accepts a request signature once (see NoReplay); readOnly ones, the POSTs of
// search, availability and prebook included, may be sent again with the same signature.
func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"GET", "/meta/ping", "", s.ping, readOnly},
		{"GET", "/meta/credit", "", s.credit, readOnly},

		{"POST", "/hotels/search", tradewind.ScopeAvailabilityRead, s.searchHotels, readOnly},
		{"GET", "/hotels/{id}", tradewind.ScopeCatalogRead, s.getHotel, readOnly},
		{"POST", "/hotels/availability", tradewind.ScopeAvailabilityRead, s.hotelAvailability, readOnly},

		{"POST", "/activities/search", tradewind.ScopeAvailabilityRead, s.searchActivities, readOnly},
		{"GET", "/activities/{id}", tradewind.ScopeCatalogRead, s.getActivity, readOnly},
		{"POST", "/activities/availability", tradewind.ScopeAvailabilityRead, s.activityAvailability, readOnly},

		{"POST", "/rentals/search", tradewind.ScopeAvailabilityRead, s.searchRentals, readOnly},
		{"GET", "/rentals/{id}", tradewind.ScopeCatalogRead, s.getRental, readOnly},
		{"POST", "/rentals/availability", tradewind.ScopeAvailabilityRead, s.rentalAvailability, readOnly},

		{"POST", "/packages/search", tradewind.ScopeAvailabilityRead, s.searchPackages, readOnly},
		{"GET", "/packages/{id}", tradewind.ScopeCatalogRead, s.getPackage, readOnly},
		{"POST", "/packages/availability", tradewind.ScopeAvailabilityRead, s.packageAvailability, readOnly},

		{"POST", "/bookings/prebook", tradewind.ScopeAvailabilityRead, s.prebook, readOnly},
		{"GET", "/bookings", tradewind.ScopeBookingRead, s.listBookings, readOnly},
		{"POST", "/bookings", tradewind.ScopeBookingWrite, s.book, stateChanging},
		{"GET", "/bookings/{reference}", tradewind.ScopeBookingRead, s.getBooking, readOnly},
		{"POST", "/bookings/{reference}/cancel", tradewind.ScopeBookingWrite, s.cancel, stateChanging},

		{"GET", "/webhooks", tradewind.ScopeWebhookManage, s.listWebhooks, readOnly},
		{"POST", "/webhooks", tradewind.ScopeWebhookManage, s.createWebhook, stateChanging},
		{"DELETE", "/webhooks/{id}", tradewind.ScopeWebhookManage, s.deleteWebhook, stateChanging},
	}
}

// routes registers the endpoints, the OpenAPI document and its reference page
// (unauthenticated), and one fallback for every other path that answers an enveloped 405
// for a known path with another method and an enveloped 404 otherwise.
func (s *Server) routes(mux *http.ServeMux) {
	known := http.NewServeMux() // every endpoint path, any method
	registered := map[string]bool{}
	for _, e := range s.endpoints() {
		mux.Handle(e.method+" "+Prefix+e.path, s.authenticated(e))
		if !registered[e.path] {
			registered[e.path] = true
			known.Handle(Prefix+e.path, http.NotFoundHandler())
		}
	}
	openapi.Register(mux)
	for _, r := range openapi.Routes() {
		_, path, _ := strings.Cut(r, " ")
		known.Handle(Prefix+path, http.NotFoundHandler())
	}
	known.Handle("/healthz", http.NotFoundHandler())
	known.Handle("/readyz", http.NotFoundHandler())
	fallback := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := known.Handler(r); pattern != "" {
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
