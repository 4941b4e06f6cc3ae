package main

import (
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// wireWebhooks starts the webhook dispatcher with the server.
func (c *serveCmd) wireWebhooks(e *env, st *sqlstore.DB, svc *booking.Service, srv *server, cfg *httpapi.Config) error {
	return nil
}
