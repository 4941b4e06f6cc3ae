package httpapi_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
		a := apitest.New(t, pg, func(cfg *httpapi.Config) {
			cfg.Guards = httpapi.PartnerGuardsWithLedger(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now),
				replay.NewRedis(secRedis(t, nil), cfg.Clock.Now))
		})
		a.Import(apitest.Catalog())
		s := newSigner(t, a)
		checkReplays(t, a, secondServer(t, a, replay.NewRedis(secRedis(t, nil), a.Clock.Now)), s)
	})
}

// TestSignatureReplayRedisDown: while Redis, the replay ledger, is unreachable, every
// signed state-changing request is refused with 503 service_unavailable and Retry-After
// and changes nothing (no booking, no inventory, no Idempotency-Key, no subscription);
// reads are unaffected; the outage is logged once, without the signature, and counted.
// Once Redis answers, the requests signed afresh are accepted, and replays refused.
func TestSignatureReplayRedisDown(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var sw redisSwitch // down
		var failures atomic.Int64
		env := apitest.New(t, o, func(cfg *httpapi.Config) {
			ledger := replay.Monitor(replay.NewRedis(secRedis(t, sw.dial), cfg.Clock.Now), cfg.Logger, cfg.Clock.Now,
				func() { failures.Add(1) })
			cfg.Guards = httpapi.PartnerGuardsWithLedger(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now), ledger)
		})
		env.Import(apitest.Catalog())
		s := newSigner(t, env)
		bookBody := withGuest(hotelQuote(1, 2, 1, 1))
		hook := webhookBody("https://hooks.signer.example/tw", "booking.cancelled")

		var sent []string // the signatures of the refused requests
		for _, change := range []struct {
			method, path string
			body         any
			header       map[string]string
		}{
			{"POST", "/bookings", bookBody, map[string]string{"Idempotency-Key": "down-1"}},
			{"POST", "/bookings/HTL-UNKNOWN/cancel", map[string]any{"reason": "plans changed"}, nil},
			{"POST", "/webhooks", hook, nil},
			{"DELETE", "/webhooks/1", nil, nil},
		} {
			res, h := s.signed(env, change.method, change.path, change.body, change.header)
			res.Expect(t, http.StatusServiceUnavailable, "service_unavailable")
			if ra := res.Header.Get("Retry-After"); ra != strconv.Itoa(httpapi.ReplayRetryAfter) {
				t.Errorf("%s %s: Retry-After %q, want %d", change.method, change.path, ra, httpapi.ReplayRetryAfter)
			}
			sent = append(sent, h["X-Partner-Signature"])
		}
		if sold := soldOf(t, env, apitest.RoomDouble, apitest.Day(1)); sold != 0 {
			t.Errorf("%d rooms sold by a refused booking, want 0", sold)
		}
		// Reads need no ledger: they answer as usual, and show nothing was created.
		res, _ := s.signed(env, "GET", "/bookings", nil, nil)
		if res.Expect(t, 200, ""); strings.Contains(string(res.Data), `"reference"`) {
			t.Errorf("bookings after a refused booking: %s", res.Data)
		}
		res, _ = s.signed(env, "GET", "/webhooks", nil, nil)
		if res.Expect(t, 200, ""); strings.Contains(string(res.Data), `"id"`) {
			t.Errorf("subscriptions after a refused creation: %s", res.Data)
		}
		s.signed(env, "GET", "/meta/ping", nil, nil)
		search := map[string]any{"destination": "Lisbon", "check_in": apitest.Day(10), "check_out": apitest.Day(12), "adults": 2}
		res, _ = s.signed(env, "POST", "/hotels/search", search, nil)
		res.Expect(t, 200, "")
		res, _ = s.signed(env, "POST", "/bookings/prebook", hotelQuote(3, 4, 1, 1), nil)
		res.Expect(t, 200, "")

		logs := env.LogText()
		if n := strings.Count(logs, "replay ledger unavailable"); n != 1 {
			t.Errorf("the outage was logged %d times, want once (at most one warning per 30 s):\n%s", n, logs)
		}
		for _, sig := range sent {
			if strings.Contains(strings.ToLower(logs), sig) {
				t.Errorf("a signature was logged:\n%s", logs)
			}
		}
		if n := failures.Load(); n != 4 {
			t.Errorf("%d failures counted, want 4", n)
		}

		// Redis back: the booking signed afresh, with the same Idempotency-Key, is created
		// (201, not a replay of anything), and its replay is refused.
		sw.up.Store(true)
		env.Clock.Advance(time.Second)
		res, h := s.signed(env, "POST", "/bookings", bookBody, map[string]string{"Idempotency-Key": "down-1"})
		res.Expect(t, http.StatusCreated, "")
		raw, _ := json.Marshal(bookBody)
		expectReplayRefused(t, "a booking after the outage", s.send(env, "POST", "/bookings", string(raw), h))
		if !strings.Contains(env.LogText(), "replay ledger available again") {
			t.Error("the recovery was not logged")
		}
	})
}
