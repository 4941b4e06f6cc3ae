package httpapi

import (
	"net/http"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/openapi"
)

// endpoints lists every route of the partner API, in one place.
func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"GET", "/meta/ping", "", s.ping},
		{"GET", "/meta/credit", "", s.credit},

		{"POST", "/hotels/search", tradewind.ScopeAvailabilityRead, s.searchHotels},
		{"GET", "/hotels/{id}", tradewind.ScopeCatalogRead, s.getHotel},
		{"POST", "/hotels/availability", tradewind.ScopeAvailabilityRead, s.hotelAvailability},

		{"POST", "/activities/search", tradewind.ScopeAvailabilityRead, s.searchActivities},
		{"GET", "/activities/{id}", tradewind.ScopeCatalogRead, s.getActivity},
		{"POST", "/activities/availability", tradewind.ScopeAvailabilityRead, s.activityAvailability},

		{"POST", "/rentals/search", tradewind.ScopeAvailabilityRead, s.searchRentals},
		{"GET", "/rentals/{id}", tradewind.ScopeCatalogRead, s.getRental},
		{"POST", "/rentals/availability", tradewind.ScopeAvailabilityRead, s.rentalAvailability},

		{"POST", "/packages/search", tradewind.ScopeAvailabilityRead, s.searchPackages},
		{"GET", "/packages/{id}", tradewind.ScopeCatalogRead, s.getPackage},
		{"POST", "/packages/availability", tradewind.ScopeAvailabilityRead, s.packageAvailability},

		{"POST", "/bookings/prebook", tradewind.ScopeAvailabilityRead, s.prebook},
		{"GET", "/bookings", tradewind.ScopeBookingRead, s.listBookings},
		{"POST", "/bookings", tradewind.ScopeBookingWrite, s.book},
		{"GET", "/bookings/{reference}", tradewind.ScopeBookingRead, s.getBooking},
		{"POST", "/bookings/{reference}/cancel", tradewind.ScopeBookingWrite, s.cancel},

		{"GET", "/events", tradewind.ScopeBookingRead, s.listEvents},
		{"GET", "/events/{id}", tradewind.ScopeBookingRead, s.getEvent},

		{"GET", "/webhooks", tradewind.ScopeWebhookManage, s.listWebhooks},
		{"POST", "/webhooks", tradewind.ScopeWebhookManage, s.createWebhook},
		{"DELETE", "/webhooks/{id}", tradewind.ScopeWebhookManage, s.deleteWebhook},
	}
}

// routes registers the endpoints, the OpenAPI document and its reference page
// (unauthenticated), and one fallback under the prefix that answers an enveloped 405 for
// a known path with another method and an enveloped 404 otherwise.
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
	mux.Handle(Prefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := known.Handler(r); pattern != "" {
			writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeMethodNotAllowed, "Method %s is not allowed on %s.", r.Method, r.URL.Path))
			return
		}
		writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeNotFound, "No endpoint %s %s.", r.Method, r.URL.Path))
	}))
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
