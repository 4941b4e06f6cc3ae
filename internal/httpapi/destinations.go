package httpapi

import (
	"net/http"

	"github.com/tradewind/tradewind/internal/booking"
)

// listDestinations answers GET /destinations: the cities the caller can search, with
// the count of items of each product type its key enables (booking.Service.Destinations).
func (s *Server) listDestinations(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	pg, pgErr := queryPage(r)
	f, fErr := booking.ParseDestinationFilter(c, r.URL.Query())
	if err := joinInvalid(pgErr, fErr); err != nil {
		return nil, err // a product the key does not enable (403) stands alone
	}
	list, meta, err := s.cfg.Service.Destinations(r.Context(), c, f, pg)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: list, Meta: meta}, nil
}
