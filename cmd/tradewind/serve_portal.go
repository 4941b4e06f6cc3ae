package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/portal/web"
	"github.com/tradewind/tradewind/internal/security"
)

// portalConfig is the portal's rules as the flags set them.
func (c *serveCmd) portalConfig() portal.Config {
	return portal.Config{MaxPending: c.PortalMaxPending}
}

// wirePortal starts, unless --portal-addr is empty, the partner portal on its own
// listener, over the same database and service (so the webhook dispatcher hears of its
// cancels), with the partner API's TLS certificate.
func (c *serveCmd) wirePortal(e *env, svc *booking.Service, srv *server, api *httpapi.Server) error {
	if c.PortalAddr == "" {
		return nil
	}
	if c.PortalMaxPending < 1 {
		return errors.New("--portal-max-pending must be 1 or more")
	}
	trust, err := security.ParseTrustedProxies(strings.Split(c.TrustedProxies, ","))
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	ln, err := net.Listen("tcp", c.PortalAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another --portal-addr, or --portal-addr= to turn the portal off)", c.PortalAddr, err)
	}
	srv.release = append(srv.release, func() { _ = ln.Close() })
	ps := portal.New(svc, c.portalConfig())
	hs := srv.httpServer(e, web.New(web.Config{Portal: ps, Logger: e.logger, Trust: trust, Console: api, APIURL: srv.apiURL()}))
	scheme := "http"
	if srv.tls {
		scheme = "https"
	}
	srv.portalURL = fmt.Sprintf("%s://%s", scheme, ln.Addr())
	srv.workers = append(srv.workers, func(ctx context.Context) {
		var err error
		if srv.tls {
			err = hs.ServeTLS(ln, "", "")
		} else {
			err = hs.Serve(ln)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			e.logger.Error("portal listener stopped", "err", err)
		}
	})
	// Expired sessions and links, old throttle counts and year-old audit entries go once
	// an hour, on one server at a time.
	if err := srv.jobs.Register(jobs.Job{Name: "portal_sweep", Interval: time.Hour, Run: ps.Sweep}); err != nil {
		return err
	}
	srv.shutdown = append([]func(){func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}}, srv.shutdown...)
	return nil
}

// demoOwner is the demo partner's portal owner that --demo (re)creates.
const demoOwner = "owner@demo.example"

// loadDemoOwner gives the demo partner's portal owner a fresh password; run prints it
// with the portal's address once the portal listens.
func loadDemoOwner(e *env, svc *booking.Service, demo *demoReport) error {
	c := &e.cli.Serve
	if c.PortalAddr == "" {
		return nil
	}
	password, err := portal.New(svc, c.portalConfig()).CreateOwner(e.ctx, demoPartner, demoOwner, "Demo owner")
	if err != nil {
		return err
	}
	demo.PortalEmail, demo.PortalPassword = demoOwner, password
	return nil
}
