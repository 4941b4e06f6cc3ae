package httpapi

import (
	"context"
	"net/http"

	"github.com/tradewind/tradewind/internal/booking"
)

// Generic handlers of the product endpoints (search, record, availability), one each for
// every product. The route table names the product, and serveEndpoint checks that the key
// enables it before the body is read; the service checks it again.

// serveSearch serves a product search: the body decoded into Req, data and page meta.
func serveSearch[Req, Res any](search func(context.Context, *booking.Caller, *Req) (Res, booking.PageMeta, error)) handlerFunc {
	return func(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
		var req Req
		// A search reads only: run on what decoded, it tells the rules' problems too.
		if err := decodeChecked(r, body, &req, func() error { _, _, err := search(r.Context(), c, &req); return err }); err != nil {
			return nil, err
		}
		res, meta, err := search(r.Context(), c, &req)
		if err != nil {
			return nil, err
		}
		return hinted(&response{Status: http.StatusOK, Data: res, Meta: meta}, res), nil
	}
}

// hinted puts the hint of res (booking.Hinted), if any, in r's message.
func hinted(r *response, res any) *response {
	if h, ok := res.(booking.Hinted); ok {
		if text := h.Hint(); text != "" {
			r.Message = &text
		}
	}
	return r
}

// serveAvailability serves a product availability: the body decoded into Req.
func serveAvailability[Req, Res any](check func(context.Context, *booking.Caller, *Req) (Res, error)) handlerFunc {
	return func(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
		var req Req
		// An availability reads only: run on what decoded, it tells the rules' problems too.
		if err := decodeChecked(r, body, &req, func() error { _, err := check(r.Context(), c, &req); return err }); err != nil {
			return nil, err
		}
		res, err := check(r.Context(), c, &req)
		if err != nil {
			return nil, err
		}
		return hinted(ok(res), res), nil
	}
}

// serveRecord serves the catalog record of the item whose id is in the path.
func serveRecord[Res any](get func(context.Context, *booking.Caller, int64) (Res, error)) handlerFunc {
	return func(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
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
}
