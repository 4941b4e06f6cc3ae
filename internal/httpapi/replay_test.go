package httpapi_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/replay"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// replaySigner sends requests signed by one partner at the environment's clock.
type replaySigner struct {
	t      *testing.T
	secret string
	key    string
}

// signed sends method path with body (JSON, or none when nil) signed at the clock of env,
// plus header; it returns the response and the headers it sent, for a replay.
func (s replaySigner) signed(env *apitest.Env, method, path string, body any, header map[string]string) (*apitest.Response, map[string]string) {
	s.t.Helper()
	raw := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		raw = string(b)
	}
	h := secSign(s.secret, env.Clock.Now().Unix(), method, path, raw)
	maps.Copy(h, header)
	return s.send(env, method, path, raw, h), h
}

// send sends a request with exactly the given headers (a replay when they were sent before).
func (s replaySigner) send(env *apitest.Env, method, path, raw string, header map[string]string) *apitest.Response {
	s.t.Helper()
	return env.Do(apitest.Request{Method: method, Path: path, Key: s.key, Body: secBody(raw), Header: header})
}

// expectReplayRefused checks the answer to a replay: 401 signature_invalid saying so.
func expectReplayRefused(t *testing.T, what string, r *apitest.Response) {
	t.Helper()
	if r.Status != http.StatusUnauthorized || r.Code != "signature_invalid" || r.Message == nil || !strings.Contains(*r.Message, "replayed") {
		t.Errorf("%s replayed: %d %s, want 401 signature_invalid saying it was replayed", what, r.Status, r.Raw)
	}
}

// checkReplays sends every state-changing request through first and replays it (same
// signature headers, and for a booking another Idempotency-Key) through second, which
// must refuse each; reads, POST search and prebook included, may repeat a signature.
func checkReplays(t *testing.T, first, second *apitest.Env, s replaySigner) {
	bookBody := withGuest(hotelQuote(1, 2, 1, 1))
	res, h := s.signed(first, "POST", "/bookings", bookBody, map[string]string{"Idempotency-Key": "replay-1"})
	res.Expect(t, 201, "")
	ref := res.Map(t)["reference"].(string)
	raw, _ := json.Marshal(bookBody)
	h["Idempotency-Key"] = "replay-2" // a new key does not make a new request
	expectReplayRefused(t, "a booking", s.send(second, "POST", "/bookings", string(raw), h))
	h["X-Partner-Signature"] = strings.ToUpper(h["X-Partner-Signature"]) // nor does re-cased hex
	expectReplayRefused(t, "a booking (upper-case hex)", s.send(second, "POST", "/bookings", string(raw), h))
	if sold := soldOf(t, first, apitest.RoomDouble, apitest.Day(1)); sold != 1 {
		t.Errorf("%d rooms sold after replays of one booking, want 1", sold)
	}

	res, h = s.signed(first, "POST", "/bookings/"+ref+"/cancel", map[string]any{"reason": "plans changed"}, nil)
	res.Expect(t, 200, "")
	expectReplayRefused(t, "a cancellation", s.send(second, "POST", "/bookings/"+ref+"/cancel", `{"reason":"plans changed"}`, h))

	hook := webhookBody("https://hooks.signer.example/tw", "booking.cancelled")
	res, h = s.signed(first, "POST", "/webhooks", hook, nil)
	res.Expect(t, 201, "")
	id := int64(res.Map(t)["id"].(float64))
	raw, _ = json.Marshal(hook)
	expectReplayRefused(t, "a webhook subscription", s.send(second, "POST", "/webhooks", string(raw), h))
	res, _ = s.signed(first, "GET", "/webhooks", nil, nil)
	if n := len(res.Expect(t, 200, "").Data); n == 0 || strings.Count(string(res.Data), `"id"`) != 1 {
		t.Errorf("subscriptions after a replayed creation: %s", res.Data)
	}
	path := fmt.Sprintf("/webhooks/%d", id)
	res, h = s.signed(first, "DELETE", path, nil, nil)
	res.Expect(t, 200, "")
	expectReplayRefused(t, "a webhook deletion", s.send(second, "DELETE", path, "", h))

	// Reads may repeat their signature, on either server.
	search := map[string]any{"destination": "Lisbon", "check_in": apitest.Day(10), "check_out": apitest.Day(12), "adults": 2}
	for _, read := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/meta/ping", nil}, {"GET", "/bookings/" + ref, nil},
		{"POST", "/hotels/search", search}, {"POST", "/bookings/prebook", hotelQuote(3, 4, 1, 1)},
	} {
		res, h := s.signed(first, read.method, read.path, read.body, nil)
		res.Expect(t, 200, "")
		raw := ""
		if read.body != nil {
			b, _ := json.Marshal(read.body)
			raw = string(b)
		}
		s.send(second, read.method, read.path, raw, h).Expect(t, 200, "")
	}
}

// newSigner creates a partner that signs its requests on env.
func newSigner(t *testing.T, env *apitest.Env) replaySigner {
	t.Helper()
	yes := true
	p := env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes})
	return replaySigner{t: t, secret: secSigningSecret(t, env, "signer"), key: p.LiveKey}
}

// TestSignatureReplayRefused: on each database, a state-changing request is accepted
// once per signature; reads may repeat one.
func TestSignatureReplayRefused(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, secGuards(security.ProxyTrust{}, nil))
		env.Import(apitest.Catalog())
		s := newSigner(t, env)
		checkReplays(t, env, env, s)
	})
}

// secondServer starts another partner API over env's database and clock, with ledger
// (the database's when nil), and returns env's view of it.
func secondServer(t *testing.T, env *apitest.Env, ledger replay.Ledger) *apitest.Env {
	t.Helper()
	if ledger == nil {
		ledger = replay.NewStore(env.Store, env.Clock.Now)
	}
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Config{Store: env.Store, Service: env.Service,
		Logger: slog.New(slog.DiscardHandler), Clock: env.Clock,
		Guards: httpapi.PartnerGuardsWithLedger(env.Service, security.ProxyTrust{}, ratelimit.NewMemory(env.Clock.Now), ledger)}))
	t.Cleanup(srv.Close)
	return secOnServer(env, srv)
}

// TestSignatureReplayTwoServers: a request accepted by one server is refused as a replay
// by another sharing its PostgreSQL database, or its Redis.
func TestSignatureReplayTwoServers(t *testing.T) {
	pg := storetest.Openers()[1]
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		a := apitest.New(t, pg, secGuards(security.ProxyTrust{}, nil))
		a.Import(apitest.Catalog())
		s := newSigner(t, a)
		checkReplays(t, a, secondServer(t, a, nil), s)
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		secNamespace(t) // fails the test when Redis is not up
		ledger := func(env *apitest.Env) replay.Ledger {
			return replay.WithFallback(replay.NewRedis(secRedis(t, nil), env.Clock.Now), replay.NewStore(env.Store, env.Clock.Now),
				slog.New(slog.DiscardHandler), env.Clock.Now)
		}
		a := apitest.New(t, pg, func(cfg *httpapi.Config) {
			cfg.Guards = httpapi.PartnerGuardsWithLedger(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now),
				replay.NewRedis(secRedis(t, nil), cfg.Clock.Now))
		})
		a.Import(apitest.Catalog())
		s := newSigner(t, a)
		checkReplays(t, a, secondServer(t, a, ledger(a)), s)
	})
}

// TestSignatureReplayRedisDown: while Redis is unreachable, the database records the
// signatures, and a replay is still refused.
func TestSignatureReplayRedisDown(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var sw redisSwitch // down
		env := apitest.New(t, o, func(cfg *httpapi.Config) {
			ledger := replay.WithFallback(replay.NewRedis(secRedis(t, sw.dial), cfg.Clock.Now), replay.NewStore(cfg.Store, cfg.Clock.Now),
				cfg.Logger, cfg.Clock.Now)
			cfg.Guards = httpapi.PartnerGuardsWithLedger(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now), ledger)
		})
		env.Import(apitest.Catalog())
		s := newSigner(t, env)
		checkReplays(t, env, env, s)
		if !strings.Contains(env.LogText(), "replay records unavailable in Redis") {
			t.Error("the Redis outage was not logged")
		}
	})
}
