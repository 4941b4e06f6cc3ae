package httpapi

import (
	"context"
	"net/http"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// Handlers of the activity, rental and package endpoints. Each checks the product
// before reading the body, so a key without the product gets 403 product_not_enabled
// whatever it sends.

// serveSearch serves a product search: the body decoded into Req, data and page meta.
func serveSearch[Req, Res any](r *http.Request, c *booking.Caller, body []byte, p tradewind.ProductType,
	search func(context.Context, *booking.Caller, *Req) (Res, booking.PageMeta, error)) (*response, error) {
	if err := c.RequireProduct(p); err != nil {
		return nil, err
	}
	var req Req
	if err := decodeBody(r, body, &req, false); err != nil {
		return nil, err
	}
	res, meta, err := search(r.Context(), c, &req)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: res, Meta: meta}, nil
}

// serveAvailability serves a product availability: the body decoded into Req.
func serveAvailability[Req, Res any](r *http.Request, c *booking.Caller, body []byte, p tradewind.ProductType,
	check func(context.Context, *booking.Caller, *Req) (Res, error)) (*response, error) {
	if err := c.RequireProduct(p); err != nil {
		return nil, err
	}
	var req Req
	if err := decodeBody(r, body, &req, false); err != nil {
		return nil, err
	}
	res, err := check(r.Context(), c, &req)
	if err != nil {
		return nil, err
	}
	return ok(res), nil
}

// serveRecord serves the catalog record of the item whose id is in the path.
func serveRecord[Res any](r *http.Request, c *booking.Caller, p tradewind.ProductType,
	get func(context.Context, *booking.Caller, int64) (Res, error)) (*response, error) {
	if err := c.RequireProduct(p); err != nil {
		return nil, err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	res, err := get(r.Context(), c, id)
	if err != nil {
		return nil, err
	}
	return ok(res), nil
}

func (s *Server) searchActivities(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveSearch(r, c, body, tradewind.ProductActivity, s.cfg.Service.SearchActivities)
}

func (s *Server) getActivity(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	return serveRecord(r, c, tradewind.ProductActivity, s.cfg.Service.Activity)
}

func (s *Server) activityAvailability(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveAvailability(r, c, body, tradewind.ProductActivity, s.cfg.Service.ActivityAvailability)
}

func (s *Server) searchRentals(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveSearch(r, c, body, tradewind.ProductRental, s.cfg.Service.SearchRentals)
}

func (s *Server) getRental(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	return serveRecord(r, c, tradewind.ProductRental, s.cfg.Service.Rental)
}

func (s *Server) rentalAvailability(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveAvailability(r, c, body, tradewind.ProductRental, s.cfg.Service.RentalAvailability)
}

func (s *Server) searchPackages(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveSearch(r, c, body, tradewind.ProductPackage, s.cfg.Service.SearchPackages)
}

func (s *Server) getPackage(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	return serveRecord(r, c, tradewind.ProductPackage, s.cfg.Service.Package)
}

func (s *Server) packageAvailability(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	return serveAvailability(r, c, body, tradewind.ProductPackage, s.cfg.Service.PackageAvailability)
}
