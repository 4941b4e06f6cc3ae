package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tradewind/tradewind/internal/authcache"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/webhook"
)

// serveCmd runs the partner API server. Every flag may also come from the environment
// as TRADEWIND_<FLAG_IN_CAPS> (see serveEnvFlags).
type serveCmd struct {
	Addr                 string  `name:"addr" default:"127.0.0.1:8080" help:"Listen address of the partner API."`
	Demo                 bool    `name:"demo" help:"Load the demo catalog and demo partner, and print its test and live keys."`
	TLSCert              string  `name:"tls-cert" type:"existingfile" help:"Serve HTTPS with this certificate (PEM)."`
	TLSKey               string  `name:"tls-key" type:"existingfile" help:"Private key of --tls-cert (PEM)."`
	ClientCA             string  `name:"client-ca" type:"existingfile" help:"Verify client certificates against these CAs (PEM)."`
	TrustedProxies       string  `name:"trusted-proxies" help:"CIDRs whose X-Forwarded-For and client-certificate headers are believed."`
	Redis                string  `name:"redis" help:"Share rate limits and replay records of signed requests between servers through Redis (redis://host:6379/0)."`
	WebhookAllowPrivate  bool    `name:"webhook-allow-private" help:"Allow webhook delivery to loopback/private addresses (development, tests)."`
	WebhookRetrySchedule string  `name:"webhook-retry-schedule" default:"1m,5m,30m,2h,6h" help:"Delays between webhook delivery attempts."`
	LogLevel             string  `name:"log-level" default:"info" enum:"debug,info,warn,error" help:"debug, info, warn or error."`
	AdminAddr            string  `name:"admin-addr" help:"Listen address of /metrics (never exposed on the partner listener)."`
	PortalAddr           string  `name:"portal-addr" default:"127.0.0.1:8081" help:"Listen address of the partner portal (empty turns it off)."`
	RequestLogRetention  string  `name:"request-log-retention" default:"test=7d,live=30d" help:"How long request log entries are kept, per key mode (days or a Go duration)."`
	RequestLogShare      float64 `name:"request-log-writer-share" default:"0.03" help:"Most share of the server's CPU (all its cores) the request log's writer spends writing entries; past it the entries wait, and are dropped (counted) when the queue is full. 1: never held back."`
	PortalMaxPending     int     `name:"portal-max-pending" default:"100" help:"Most portal sign-ups waiting for review; further sign-ups are refused until some are approved or rejected."`
	InsecurePlainHTTP    bool    `name:"insecure-plain-http" help:"Allow plain HTTP on a non-loopback address without --trusted-proxies (the contract says HTTPS only)."`
}

// serveEnvFlags are the serve flags that TRADEWIND_<NAME> may set.
var serveEnvFlags = []struct {
	flag string
	bool bool
}{
	{"addr", false}, {"demo", true}, {"tls-cert", false}, {"tls-key", false}, {"client-ca", false},
	{"trusted-proxies", false}, {"redis", false}, {"webhook-allow-private", true},
	{"webhook-retry-schedule", false}, {"log-level", false}, {"admin-addr", false},
	{"portal-addr", false}, {"portal-max-pending", false},
	{"insecure-plain-http", true},
}

// withServeEnv adds the serve flags given by the environment and not on the command line,
// when the command is serve.
func withServeEnv(args []string, getenv func(string) string) []string {
	at := commandAt(args)
	if at < 0 || args[at] != "serve" {
		return args
	}
	var extra []string
	for _, f := range serveEnvFlags {
		v := getenv("TRADEWIND_" + strings.ToUpper(strings.ReplaceAll(f.flag, "-", "_")))
		if v == "" || hasFlag(args, "--"+f.flag) {
			continue
		}
		if f.bool {
			if v == "1" || strings.EqualFold(v, "true") {
				extra = append(extra, "--"+f.flag)
			}
			continue
		}
		extra = append(extra, "--"+f.flag+"="+v)
	}
	out := append([]string{}, args[:at+1]...)
	return append(append(out, extra...), args[at+1:]...)
}

// commandAt returns the index of the command: the first positional argument, after the
// global flags (--db VALUE, --db=VALUE, --json); -1 when there is none. A later argument
// equal to a command name (partner create --name serve) is a value, not the command.
func commandAt(args []string) int {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case a == "--db":
			i++ // its value
		case strings.HasPrefix(a, "-"):
			// --db=VALUE, --json, --json=BOOL, --help: no separate value.
		default:
			return i
		}
	}
	return -1
}

func parseLevel(s string) slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(s))
	return l
}

func (c *serveCmd) Run(e *env) error {
	e.logger = slog.New(httpapi.LogHandler(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: parseLevel(c.LogLevel)})))
	if err := c.checkPlainHTTP(); err != nil {
		return err
	}
	st, err := database.Open(e.ctx, e.cli.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	// The metrics, the dispatcher and the store that nudges it exist before the service,
	// which is built once over that store. Nothing runs until srv.run.
	srv := newServer(c)
	d, err := c.newDispatcher(e, st, srv)
	if err != nil {
		return err
	}
	// Searches and availability read the read model; its own claims and releases are
	// applied to it as they commit (readmodel.Tracked).
	srv.model = readmodel.New(st, e.clock, e.logger)
	svc := booking.New(webhook.NotifyOnEvent(readmodel.Tracked(st, srv.model), d.Nudge), e.clock, e.logger)
	svc.Reads = srv.model
	metrics.RegisterQuotesAhead(srv.registry, func() metrics.QuotesAhead {
		kept, again := svc.BookAheadStats()
		model, store := svc.PrebookAheadStats()
		return metrics.QuotesAhead{BookKept: kept, BookPricedAgain: again, PrebookFromModel: model, PrebookFromStore: store}
	})
	svc.WebhookAllowPrivate = c.WebhookAllowPrivate // subscriptions are judged as deliveries are
	if c.Demo {
		if srv.demo, err = loadDemo(e, svc); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	if err := c.build(e, st, svc, srv, d); err != nil {
		return err
	}
	return srv.run(e)
}

// serveReport is what `serve --json` prints, as its one JSON document, once the
// listeners are bound.
type serveReport struct {
	URL        string      `json:"url"`                   // the partner API, including /api/partner/v1
	MetricsURL string      `json:"metrics_url,omitempty"` // with --admin-addr
	PortalURL  string      `json:"portal_url,omitempty"`  // unless --portal-addr is empty
	Demo       *demoReport `json:"demo,omitempty"`        // with --demo
}

// demoReport is the demo partner and its fresh keys.
type demoReport struct {
	Partner string `json:"partner"`
	TestKey string `json:"test_key"`
	LiveKey string `json:"live_key"`
	// The demo partner's portal owner and a fresh password, unless the portal is off.
	PortalURL      string `json:"portal_url,omitempty"`
	PortalEmail    string `json:"portal_email,omitempty"`
	PortalPassword string `json:"portal_password,omitempty"`
}

// server is a configured partner API listener and its background workers.
type server struct {
	cmd        *serveCmd
	ln         net.Listener // the partner API's listener, bound first
	handler    http.Handler
	tls        bool
	tlsConfig  *tls.Config       // certificates and client-certificate policy when tls is set
	metrics    *metrics.Recorder // set by wireSecurity; wireWebhooks may report deliveries to it
	metricsURL string            // the admin listener's /metrics, with --admin-addr
	portalURL  string            // the portal, unless --portal-addr is empty
	demo       *demoReport       // with --demo
	registry   *prometheus.Registry
	model      *readmodel.Model // the read model, built by a worker (wireReadModel)
	ready      func() error     // /readyz's check beyond the database, set by wireReadModel
	jobs       *jobs.Runner     // periodic jobs, set by wireJobs
	workers    []func(ctx context.Context)
	// shutdown stops what the workers run, once the partner listener is shut down;
	// release then frees what build acquired (listeners, clients), also when build or
	// the partner listener failed and no worker ever ran.
	shutdown []func()
	release  []func()
}

// newServer returns a server with its metrics registry; nothing is bound yet.
func newServer(c *serveCmd) *server {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &server{cmd: c, registry: reg, metrics: metrics.New(reg)}
}

// build wires the partner API from the flags. On an error, whatever it bound is
// released before it returns.
func (c *serveCmd) build(e *env, st *sqlstore.DB, svc *booking.Service, srv *server, d *webhook.Dispatcher) (err error) {
	defer func() {
		if err != nil {
			srv.releaseAll()
		}
	}()
	// Bind the partner listener first: a taken --addr fails before anything else
	// (the admin listener, the dispatcher) has started.
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another --addr)", c.Addr, err)
	}
	srv.ln = ln
	srv.release = append(srv.release, func() { _ = ln.Close() })
	cfg := httpapi.Config{Store: st, Service: svc, Logger: e.logger, Clock: e.clock}
	wireAuthCache(e, st, srv, &cfg)
	if err := c.wireSecurity(e, svc, srv, &cfg); err != nil {
		return err
	}
	c.wireWebhooks(srv, d)
	c.wireRequestLog(e, st, srv, &cfg)
	if srv.model != nil { // Run made one for svc; a service built without one reads the store
		c.wireReadModel(e, srv.model, srv, &cfg)
	}
	if err := c.wireJobs(e, st, svc, srv); err != nil {
		return err
	}
	api := httpapi.NewServer(cfg)
	srv.handler = api
	// The portal's test console calls the API in-process, through the same handler.
	if err := c.wirePortal(e, svc, srv, api); err != nil {
		return err
	}
	return nil
}

// wireAuthCache serves keys and partners from memory, dropped within a second of a
// change by any process, and writes the keys' last uses in batches, the last one on
// shutdown, before the database closes.
func wireAuthCache(e *env, st *sqlstore.DB, srv *server, cfg *httpapi.Config) {
	auth := authcache.New(st, e.logger)
	cfg.Auth = auth
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		auth.Run(ctx)
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped })
}

// apiURL is the partner API's base URL on its listener.
func (s *server) apiURL() string {
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s%s", scheme, s.ln.Addr(), httpapi.Prefix)
}

// releaseAll frees what build acquired, last acquired first.
func (s *server) releaseAll() {
	for i := len(s.release) - 1; i >= 0; i-- {
		s.release[i]()
	}
	s.release = nil
}

// httpServer is an HTTP server of h with the server's TLS and timeouts (the partner
// API's listener and the portal's).
func (s *server) httpServer(e *env, h http.Handler) *http.Server {
	return &http.Server{
		Handler: h,
		// A copy each: serving TLS writes the config's protocols (HTTP/2), and the
		// partner API and the portal serve at once.
		TLSConfig:         s.tlsConfig.Clone(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(e.logger.Handler(), slog.LevelWarn),
	}
}

// run listens until the context ends, then shuts down gracefully, finishing the
// requests in flight.
func (s *server) run(e *env) error {
	ln := s.ln
	hs := s.httpServer(e, s.handler)
	httpapi.ConfigureServer(hs) // header limit and OPTIONS * answered in the envelope
	url := s.apiURL()
	if s.demo != nil && s.demo.PortalEmail != "" {
		s.demo.PortalURL = s.portalURL
	}
	if err := e.print(serveReport{URL: url, MetricsURL: s.metricsURL, PortalURL: s.portalURL, Demo: s.demo}, func(w io.Writer) {
		fmt.Fprintf(w, "Partner API listening on %s\n", url)
		if s.portalURL != "" {
			fmt.Fprintf(w, "Partner portal at %s\n", s.portalURL)
		}
		if s.demo != nil && s.demo.PortalEmail != "" {
			fmt.Fprintf(w, "Portal demo owner: %s, password %s\n", s.demo.PortalEmail, s.demo.PortalPassword)
		}
	}); err != nil {
		return err
	}
	e.logger.Info("listening", "addr", ln.Addr().String(), "tls", s.tls)

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	done := make(chan struct{})
	for _, w := range s.workers {
		go w(ctx)
	}
	errc := make(chan error, 1)
	go func() {
		if s.tls {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
		close(done)
	}()
	var err error
	select {
	case err = <-errc: // the partner listener failed: stop the rest too
		<-done
	case <-e.ctx.Done():
		sctx, scancel := context.WithTimeout(context.Background(), 25*time.Second)
		defer scancel()
		err = hs.Shutdown(sctx)
		<-done
	}
	cancel() // the workers' context, when the listener failed on its own
	for _, f := range s.shutdown {
		f()
	}
	s.releaseAll()
	e.logger.Info("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// demoPartner is the name of the partner --demo creates.
const demoPartner = "demo"

// loadDemo imports the demo catalog (dated from today, so re-importing keeps it
// current), creates the demo partner if absent, and issues a fresh pair of keys, which it
// prints at once for people; with --json they are returned for serve's JSON document.
func loadDemo(e *env, svc *booking.Service) (*demoReport, error) {
	today := e.clock.Now().UTC().Truncate(24 * time.Hour)
	if _, err := svc.ImportCatalog(e.ctx, catalog.Demo(today)); err != nil {
		return nil, err
	}
	p, err := svc.Store.PartnerGetByName(e.ctx, demoPartner)
	if err != nil {
		mode, markup, limit := "markup", "10", "50000"
		p, err = svc.CreatePartner(e.ctx, demoPartner, booking.PartnerParams{PricingMode: &mode, MarkupPercent: &markup, CreditLimit: &limit})
		if err != nil {
			return nil, err
		}
	}
	keys := map[string]string{}
	for _, mode := range []string{"test", "live"} {
		_, secret, err := svc.IssueKey(e.ctx, demoPartner, booking.KeyParams{Mode: mode})
		if err != nil {
			return nil, err
		}
		keys[mode] = secret
	}
	demo := &demoReport{Partner: p.Name, TestKey: keys["test"], LiveKey: keys["live"]}
	if e.cli.JSON {
		return demo, loadDemoOwner(e, svc, demo)
	}
	w := e.stdout
	fmt.Fprintf(w, "Demo partner %q (pricing %s, credit line %s %s), demo catalog loaded.\n", p.Name, p.PricingMode,
		money.Format(p.CreditLimit, p.Currency), p.Currency)
	fmt.Fprintf(w, "  test key: %s\n  live key: %s\n", keys["test"], keys["live"])
	scheme := "http"
	if e.cli.Serve.TLSCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(w, "Try: curl -s -H 'auth-api-key: %s' %s://%s%s/meta/ping\n", keys["test"], scheme, e.cli.Serve.Addr, httpapi.Prefix)
	return demo, loadDemoOwner(e, svc, demo)
}
