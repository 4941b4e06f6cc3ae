package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/storetest"
	"github.com/tradewind/tradewind/internal/webhook"
)

// freeAddr returns a loopback address nobody listens on (it was free a moment ago).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// released reports whether addr can be bound again.
func released(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// TestServeErrorPathsReleaseWhatStarted: a build that fails releases the partner
// listener it bound; when serving fails after the admin listener and the dispatcher
// started, both are stopped and the admin port is free again.
func TestServeErrorPathsReleaseWhatStarted(t *testing.T) {
	newEnv := func(t *testing.T) (*env, *serveCmd) {
		e := &env{ctx: context.Background(), cli: &cli{}, stdout: io.Discard, stderr: io.Discard,
			logger: slog.New(slog.NewTextHandler(io.Discard, nil)), clock: tradewind.SystemClock{}}
		c := &serveCmd{Addr: "127.0.0.1:0", AdminAddr: freeAddr(t), WebhookRetrySchedule: webhook.DefaultSchedule, TrustedProxies: ""}
		return e, c
	}
	// Not t.TempDir: a connection the store's pool was still opening as it closed may
	// create and remove the file's -wal and -shm once more, which made t.TempDir's
	// removal fail ("directory not empty", once in CI); storetest's removal tries again.
	st, err := sqlite.Open(context.Background(), strings.TrimPrefix(storetest.SQLiteDSN(t), "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	t.Run("build fails after the partner listener is bound", func(t *testing.T) {
		e, c := newEnv(t)
		c.Redis = "redis://[bad" // refused by wireSecurity, after the partner listener is bound
		srv := newServer(c)
		d, err := c.newDispatcher(e, st, srv)
		if err != nil {
			t.Fatal(err)
		}
		svc := booking.New(webhook.NotifyOnEvent(st, d.Nudge), e.clock, e.logger)
		if err := c.build(e, st, svc, srv, d); err == nil || !strings.Contains(err.Error(), "--redis") {
			t.Fatalf("build = %v; want the --redis error", err)
		}
		if srv.ln == nil || !released(srv.ln.Addr().String()) {
			t.Errorf("the partner listener is still bound after build failed")
		}
	})

	t.Run("the partner listener fails while serving", func(t *testing.T) {
		e, c := newEnv(t)
		srv := newServer(c)
		d, err := c.newDispatcher(e, st, srv)
		if err != nil {
			t.Fatal(err)
		}
		svc := booking.New(webhook.NotifyOnEvent(st, d.Nudge), e.clock, e.logger)
		if err := c.build(e, st, svc, srv, d); err != nil {
			t.Fatal(err)
		}
		if released(c.AdminAddr) {
			t.Fatal("the admin listener is not bound after build")
		}
		srv.ln.Close() // the partner listener breaks: Serve returns at once
		done := make(chan error, 1)
		go func() { done <- srv.run(e) }() // e.ctx never ends: only the failure stops it
		select {
		case err := <-done:
			if err == nil {
				t.Error("run = nil; want the listener's error")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("run did not return after its listener failed: the admin listener or the dispatcher kept it waiting")
		}
		if !released(c.AdminAddr) {
			t.Errorf("admin port %s still bound after serving failed", c.AdminAddr)
		}
	})
}
