package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/replay"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
)

// Redis client settings for the rate limiter, which every request waits for, and the
// replay ledger, which signed state-changing requests wait for: a slow or absent Redis
// must cost milliseconds, after which the limiter fails open and the ledger fails closed
// (503). A call waits at most redisTimeout for a pooled connection, to connect (one
// attempt), to write and to read.
const (
	redisTimeout       = 200 * time.Millisecond
	redisDialerRetries = 1
	redisMaxRetries    = -1 // no retries
)

// wireSecurity adds the contract protections (IP allowlist, mTLS, signing, rate
// limits), TLS and the admin listener to the server.
func (c *serveCmd) wireSecurity(e *env, svc *booking.Service, srv *server, cfg *httpapi.Config) error {
	trust, err := security.ParseTrustedProxies(strings.Split(c.TrustedProxies, ","))
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w (want comma-separated addresses or CIDRs)", err)
	}
	if err := c.wireTLS(srv); err != nil {
		return err
	}
	rdb, err := c.redisClient(e, srv)
	if err != nil {
		return err
	}
	limiter := c.rateLimiter(e, rdb)
	cfg.Guards = append(cfg.Guards, httpapi.PartnerGuardsWithLedger(svc, trust, limiter, c.replayLedger(e, srv, svc.Store, rdb))...)
	cfg.Middleware = append(cfg.Middleware, httpapi.LimitAuthFailures(trust, httpapi.AuthFailureLimit, e.clock.Now))

	cfg.ClientAddr = trust.ClientIP // the request log's client address
	cfg.Observe = srv.metrics.Request
	cfg.BookingCreated = srv.metrics.BookingCreated
	return c.wireAdmin(e, svc.Store, srv, srv.registry)
}

// checkPlainHTTP refuses to serve plain HTTP where partners could reach it: the contract
// says HTTPS only. Plain HTTP is allowed on a loopback address (development, a local
// proxy), behind --trusted-proxies (a TLS-terminating edge), or with --insecure-plain-http.
func (c *serveCmd) checkPlainHTTP() error {
	if c.TLSCert != "" || c.TrustedProxies != "" || c.InsecurePlainHTTP || loopbackAddr(c.Addr) {
		return nil
	}
	return fmt.Errorf("refusing to serve plain HTTP on %s, which is not a loopback address: the partner API is HTTPS only. "+
		"Serve HTTPS with --tls-cert and --tls-key, name the TLS-terminating proxies in front with --trusted-proxies, "+
		"or, knowing that keys and bookings then cross the network in clear, pass --insecure-plain-http", c.Addr)
}

// loopbackAddr reports whether the listen address addr (host:port) accepts connections
// from this machine only: localhost or a loopback IP. An empty host listens everywhere.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// wireTLS configures HTTPS from --tls-cert and --tls-key and, with --client-ca, asks for
// client certificates and verifies those given (partners without mTLS still connect).
func (c *serveCmd) wireTLS(srv *server) error {
	if c.TLSCert == "" && c.TLSKey == "" {
		if c.ClientCA != "" {
			return errors.New("--client-ca needs --tls-cert and --tls-key: client certificates are verified only over HTTPS")
		}
		return nil
	}
	if c.TLSCert == "" || c.TLSKey == "" {
		return errors.New("--tls-cert and --tls-key must be given together")
	}
	cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
	if err != nil {
		return fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if c.ClientCA != "" {
		pem, err := os.ReadFile(c.ClientCA)
		if err != nil {
			return fmt.Errorf("--client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--client-ca %s: no PEM certificate found", c.ClientCA)
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	srv.tls, srv.tlsConfig = true, tc
	return nil
}

// redisClient returns the client of --redis (nil without it), configured with short
// timeouts: every request waits for it.
func (c *serveCmd) redisClient(e *env, srv *server) (*redis.Client, error) {
	if c.Redis == "" {
		return nil, nil
	}
	opts, err := redis.ParseURL(c.Redis)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w (want redis://[:password@]host:6379/0)", err)
	}
	// Short timeouts unless the URL sets its own (dial_timeout=…, read_timeout=…,
	// pool_timeout=…).
	if opts.DialTimeout == 0 {
		opts.DialTimeout = redisTimeout
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = redisTimeout
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = redisTimeout
	}
	if opts.PoolTimeout == 0 { // else ReadTimeout + 1 s while every connection is busy
		opts.PoolTimeout = redisTimeout
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = redisMaxRetries
	}
	if opts.DialerRetries == 0 {
		opts.DialerRetries = redisDialerRetries
	}
	client := redis.NewClient(opts)
	srv.release = append(srv.release, func() { _ = client.Close() })
	return client, nil
}

// rateLimiter returns the partner rate limiter: with Redis, a budget shared through
// Redis that fails open to this server's memory while Redis is unavailable; else the
// in-process limiter alone.
func (c *serveCmd) rateLimiter(e *env, rdb *redis.Client) ratelimit.Limiter {
	local := ratelimit.NewMemory(e.clock.Now)
	if rdb == nil {
		return local
	}
	e.logger.Info("rate limits shared through Redis, failing open to per-server limits while it is unavailable", "redis", rdb.Options().Addr)
	return ratelimit.NewFailOpen(ratelimit.NewRedis(rdb, nil), e.logger, local)
}

// replayLedger returns where the signatures of state-changing requests are recorded: in
// Redis with --redis, else in the database; either way every server sharing it refuses a
// replay. There is no fallback from Redis to the database, which does not know what Redis
// recorded: while the ledger cannot answer those requests are refused with 503, logged and
// counted on /metrics.
func (c *serveCmd) replayLedger(e *env, srv *server, st store.Store, rdb *redis.Client) replay.Ledger {
	var ledger replay.Ledger = replay.NewStore(st, e.clock.Now)
	if rdb != nil {
		ledger = replay.NewRedis(rdb, e.clock.Now)
	}
	return replay.Monitor(ledger, e.logger, e.clock.Now, srv.metrics.ReplayLedgerFailed)
}

// wireAdmin starts, with --admin-addr, a separate listener serving /metrics and /readyz.
func (c *serveCmd) wireAdmin(e *env, st store.Store, srv *server, reg *prometheus.Registry) error {
	if c.AdminAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", c.AdminAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another --admin-addr)", c.AdminAddr, err)
	}
	srv.release = append(srv.release, func() { _ = ln.Close() }) // also when serving never started
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler(reg))
	// Not ready until the read model is built (srv.ready, set by wireReadModel).
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		httpapi.Readyz(st, srv.ready, e.logger)(w, r)
	})
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(e.logger.Handler(), slog.LevelWarn),
	}
	srv.metricsURL = fmt.Sprintf("http://%s/metrics", ln.Addr())
	if !e.cli.JSON { // with --json, serve's one JSON document carries it
		fmt.Fprintf(e.stdout, "Metrics served at %s\n", srv.metricsURL)
	}
	srv.workers = append(srv.workers, func(context.Context) {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			e.logger.Error("admin listener stopped", "err", err)
		}
	})
	srv.shutdown = append(srv.shutdown, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	})
	return nil
}
