package httpapi

import (
	"net/http"

	"github.com/tradewind/tradewind/internal/booking"
)

func (s *Server) listEvents(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	q, err := booking.ParseEventQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	list, meta, err := s.cfg.Service.ListEvents(r.Context(), c, q)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: list, Meta: meta}, nil
}

func (s *Server) getEvent(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	e, err := s.cfg.Service.GetEvent(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return ok(e), nil
}
