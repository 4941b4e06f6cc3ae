package webhook_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
	"github.com/tradewind/tradewind/internal/webhook"
)

// received is one delivery that reached a receiver and passed client.VerifyWebhook.
type received struct {
	path   string
	header http.Header
	body   []byte
	event  client.WebhookEvent
}

// receiver is a partner's HTTPS webhook endpoint: it verifies every delivery with the
// secret of its path's subscription and answers what respond says (200 by default).
type receiver struct {
	t     testing.TB
	srv   *httptest.Server
	clock tradewind.Clock

	mu      sync.Mutex
	respond func(r *http.Request, n int) int // n counts the requests, from 1; nil answers 200
	secrets map[string]string
	n       int
	bodies  [][]byte // every verified request's body, acknowledged or not
	got     []received
}

// newReceiver starts an HTTPS receiver on 127.0.0.1 (ln, or a new listener when nil).
func newReceiver(t testing.TB, clock tradewind.Clock, ln net.Listener) *receiver {
	rc := &receiver{t: t, clock: clock, secrets: map[string]string{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	if ln != nil {
		rc.srv.Listener.Close()
		rc.srv.Listener = ln
	}
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rc.mu.Lock()
	rc.n++
	n, secret := rc.n, rc.secrets[r.URL.Path]
	respond := rc.respond
	rc.mu.Unlock()
	if err := client.VerifyWebhook(secret, r.Header, body, 0, rc.clock.Now()); err != nil {
		rc.t.Errorf("delivery to %s: %v", r.URL.Path, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.bodies = append(rc.bodies, body)
	rc.mu.Unlock()
	status := http.StatusOK
	if respond != nil {
		status = respond(r, n)
	}
	if status/100 == 2 {
		var ev client.WebhookEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			rc.t.Errorf("delivery body %s: %v", body, err)
		}
		rc.mu.Lock()
		rc.got = append(rc.got, received{path: r.URL.Path, header: r.Header.Clone(), body: body, event: ev})
		rc.mu.Unlock()
	}
	w.WriteHeader(status)
}

// url returns the receiver's URL for path.
func (rc *receiver) url(path string) string { return rc.srv.URL + path }

// setSecret gives the receiver the secret that signs the deliveries to path.
func (rc *receiver) setSecret(path, secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secrets[path] = secret
}

// setRespond makes the receiver answer what f says.
func (rc *receiver) setRespond(f func(r *http.Request, n int) int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond = f
}

// requests counts every request that reached the receiver.
func (rc *receiver) requests() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.n
}

// acknowledged returns the deliveries the receiver answered with a 2xx.
func (rc *receiver) acknowledged() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitAcknowledged waits until the receiver acknowledged n deliveries and returns them.
func (rc *receiver) waitAcknowledged(n int) []received {
	rc.t.Helper()
	waitFor(rc.t, fmt.Sprintf("%d acknowledged deliveries", n), func() bool { return len(rc.acknowledged()) >= n })
	got := rc.acknowledged()
	if len(got) != n {
		rc.t.Fatalf("receiver acknowledged %d deliveries, want %d", len(got), n)
	}
	return got
}

// trustTestCerts is a client TLS configuration that trusts httptest's certificate,
// which every httptest TLS server shares.
func trustTestCerts(t testing.TB) *tls.Config {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	return srv.Client().Transport.(*http.Transport).TLSClientConfig
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dispatcherOptions change a test dispatcher's configuration.
type dispatcherOptions struct {
	allowPrivate bool // default true: test receivers listen on loopback
	forbid       bool // build the Deliverer with the SSRF guard on
	schedule     string
	lease        time.Duration
	poll         time.Duration
	concurrency  int
	timeout      time.Duration // an attempt's; default 2 s
}

// startDispatcher runs a dispatcher over st with the test clock, no jitter and a short
// poll, and returns a func that stops it and waits for it.
func startDispatcher(t testing.TB, st store.Store, clock tradewind.Clock, o dispatcherOptions) (*webhook.Dispatcher, func()) {
	t.Helper()
	if o.schedule == "" {
		o.schedule = webhook.DefaultSchedule
	}
	if o.poll == 0 {
		o.poll = 10 * time.Millisecond
	}
	if o.timeout == 0 {
		o.timeout = 2 * time.Second
	}
	sched, err := webhook.ParseSchedule(o.schedule)
	if err != nil {
		t.Fatal(err)
	}
	d, err := webhook.NewDispatcher(webhook.DispatcherConfig{Store: st, Deliverer: webhook.NewDeliverer(!o.forbid, o.timeout, trustTestCerts(t)),
		Schedule: sched, Clock: clock, PollInterval: o.poll, Lease: o.lease, Concurrency: o.concurrency, Rand: func() float64 { return 0.5 }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		d.Run(ctx)
		close(done)
	}()
	stop := sync.OnceFunc(func() {
		cancel()
		<-done
	})
	t.Cleanup(stop)
	return d, stop
}

// subscribe creates a subscription through the API and gives its secret to the receiver.
func subscribe(t testing.TB, env *apitest.Env, key string, rc *receiver, path string, types ...tradewind.EventType) int64 {
	t.Helper()
	r := env.Post(key, "/webhooks", map[string]any{"url": rc.url(path), "event_types": types}).Expect(t, http.StatusCreated, "")
	var sub booking.SubscriptionView
	r.Decode(t, &sub)
	rc.setSecret(path, sub.Secret)
	return sub.ID
}

// newEnv starts the partner API over a fresh database from o with the test catalog and
// the partner acme, and an HTTPS receiver on the same clock.
func newEnv(t *testing.T, o storetest.Opener) (*apitest.Env, *apitest.Partner, *receiver) {
	t.Helper()
	env := apitest.New(t, o, apitest.AllowPrivateWebhooks)
	env.Import(apitest.Catalog())
	return env, env.NewPartner("acme", booking.PartnerParams{}), newReceiver(t, env.Clock, nil)
}

func hotelBooking(checkIn, checkOut int, roomID int64, rooms, adults int, extra ...any) map[string]any {
	b := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": roomID, "check_in": apitest.Day(checkIn),
		"check_out": apitest.Day(checkOut), "rooms": rooms, "adults": adults, "guest": map[string]any{"name": "Ana Silva"}}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i].(string)] = extra[i+1]
	}
	return b
}

// deliveriesOf returns the stored deliveries of an event, newest first.
func deliveriesOf(t testing.TB, st store.Store, eventID string) []*store.Delivery {
	t.Helper()
	l, err := st.DeliveryList(context.Background(), store.DeliveryFilter{EventID: eventID})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func attemptsOf(t testing.TB, st store.Store, deliveryID int64) []*store.DeliveryAttempt {
	t.Helper()
	l, err := st.AttemptList(context.Background(), []int64{deliveryID})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// onlyDelivery waits until the store holds exactly one delivery and returns it.
func onlyDelivery(t testing.TB, st store.Store, cond func(d *store.Delivery) bool) *store.Delivery {
	t.Helper()
	var d *store.Delivery
	waitFor(t, "the delivery's state", func() bool {
		l, err := st.DeliveryList(context.Background(), store.DeliveryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(l) > 1 {
			t.Fatalf("%d deliveries, want 1", len(l))
		}
		if len(l) == 1 && cond(l[0]) {
			d = l[0]
			return true
		}
		return false
	})
	return d
}

func dataOf(t testing.TB, r received) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.event.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBookingEvents(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		subscribe(t, env, acme.LiveKey, rc, "/bookings", tradewind.EventBookingConfirmed, tradewind.EventBookingCancelled)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{})

		// An instant booking is confirmed at once.
		b := env.Book(acme.LiveKey, "k1", hotelBooking(1, 3, apitest.RoomDouble, 1, 2, "partner_reference", "PO-1")).
			Expect(t, http.StatusCreated, "").Map(t)
		got := rc.waitAcknowledged(1)[0]
		ev := got.event
		if !strings.HasPrefix(ev.ID, "evt_") || ev.Type != string(tradewind.EventBookingConfirmed) || ev.Partner != "acme" || !ev.CreatedAt.Equal(apitest.Start) {
			t.Fatalf("envelope = %+v", ev)
		}
		wantHeaders := map[string]string{client.HeaderEvent: "booking.confirmed", client.HeaderEventID: ev.ID,
			client.HeaderTimestamp: strconv.FormatInt(env.Clock.Now().Unix(), 10), "Content-Type": "application/json"}
		for k, v := range wantHeaders {
			if g := got.header.Get(k); g != v {
				t.Errorf("header %s = %q, want %q", k, g, v)
			}
		}
		if !strings.Contains(string(got.body), `"created_at":"2027-01-04T09:30:00Z"`) {
			t.Errorf("created_at is not in seconds: %s", got.body)
		}
		want := map[string]any{"reference": b["reference"], "partner_reference": "PO-1", "status": "confirmed",
			"total_price": b["total_price"], "currency": "EUR", "test": false, "product_type": "hotel"}
		if diff := cmp.Diff(want, dataOf(t, got)); diff != "" {
			t.Errorf("booking.confirmed data mismatch (-want +got):\n%s", diff)
		}

		// Cancelling sends booking.cancelled with the reason. The clock jumps past the
		// lease only once the first attempt is recorded: before, the delivery would
		// rightly be sent again (at least once).
		waitFor(t, "the attempt to be recorded", func() bool {
			return deliveriesOf(t, env.Store, ev.ID)[0].Status == store.DeliverySucceeded
		})
		env.Clock.Advance(time.Hour)
		env.Post(acme.LiveKey, "/bookings/"+b["reference"].(string)+"/cancel", map[string]any{"reason": "guest changed plans"}).
			Expect(t, http.StatusOK, "")
		got = rc.waitAcknowledged(2)[1]
		if got.event.Type != string(tradewind.EventBookingCancelled) || got.event.ID == ev.ID {
			t.Fatalf("second event = %+v", got.event)
		}
		want["status"], want["reason"], want["cancelled_at"] = "cancelled", "guest changed plans", "2027-01-04T10:30:00Z"
		if diff := cmp.Diff(want, dataOf(t, got)); diff != "" {
			t.Errorf("booking.cancelled data mismatch (-want +got):\n%s", diff)
		}

		// A test booking fires the same event with test: true.
		tb := env.Book(acme.TestKey, "k2", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "").Map(t)
		got = rc.waitAcknowledged(3)[2]
		if d := dataOf(t, got); d["reference"] != tb["reference"] || d["test"] != true || d["partner_reference"] != nil {
			t.Errorf("test booking's event data = %v", d)
		}

		// Every delivery is recorded: succeeded after one attempt answered 200.
		for _, r := range rc.acknowledged() {
			ds := deliveriesOf(t, env.Store, r.event.ID)
			waitFor(t, "the attempt to be recorded", func() bool { ds = deliveriesOf(t, env.Store, r.event.ID); return ds[0].Status != store.DeliveryPending })
			if len(ds) != 1 || ds[0].Status != store.DeliverySucceeded || ds[0].Attempts != 1 || ds[0].LastError != "" {
				t.Fatalf("deliveries of %s = %+v", r.event.ID, ds[0])
			}
			if as := attemptsOf(t, env.Store, ds[0].ID); len(as) != 1 || as[0].StatusCode != 200 || as[0].Error != "" {
				t.Errorf("attempts = %+v", as)
			}
		}
	})
}

func TestAvailabilityChangedEvents(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		globex := env.NewPartner("globex", booking.PartnerParams{})
		subscribe(t, env, acme.LiveKey, rc, "/availability", tradewind.EventAvailabilityChanged)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{})
		expect := func(n int, start, end int) {
			t.Helper()
			got := rc.waitAcknowledged(n)[n-1]
			want := map[string]any{"product_type": "hotel", "item_id": float64(apitest.HotelLisbon), "start": apitest.Day(start), "end": apitest.Day(end)}
			if got.event.Type != string(tradewind.EventAvailabilityChanged) || got.event.Partner != "acme" {
				t.Fatalf("event = %+v", got.event)
			}
			if diff := cmp.Diff(want, dataOf(t, got)); diff != "" {
				t.Errorf("availability.changed data mismatch (-want +got):\n%s", diff)
			}
		}

		// The operator changes the price of three nights.
		doc := apitest.Catalog()
		small := &doc.Hotels[0].Rooms[1]
		small.Inventory = append(small.Inventory, small.Inventory[0])
		small.Inventory[1].Start, small.Inventory[1].End, small.Inventory[1].Price = apitest.Day(10), apitest.Day(12), 9000
		env.Import(doc)
		expect(1, 10, 12)

		// Another partner's booking that leaves rooms free says nothing; the one that
		// takes the last rooms of a night does, and its cancellation reopens the night.
		env.Book(globex.LiveKey, "g1", hotelBooking(5, 6, apitest.RoomSmall, 1, 1)).Expect(t, http.StatusCreated, "")
		env.Book(globex.TestKey, "g2", hotelBooking(5, 6, apitest.RoomSmall, 1, 1)).Expect(t, http.StatusCreated, "") // a test booking takes nothing
		last := env.Book(globex.LiveKey, "g3", hotelBooking(4, 6, apitest.RoomSmall, 1, 1)).Expect(t, http.StatusCreated, "").Map(t)
		expect(2, 5, 5)
		env.Post(globex.LiveKey, "/bookings/"+last["reference"].(string)+"/cancel", nil).Expect(t, http.StatusOK, "")
		expect(3, 5, 5)
		time.Sleep(50 * time.Millisecond)
		if n := len(rc.acknowledged()); n != 3 {
			t.Errorf("%d availability.changed deliveries, want 3", n)
		}
	})
}

func TestRetriesUntilAcknowledged(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		rc.setRespond(func(r *http.Request, n int) int {
			if n <= 2 {
				return http.StatusInternalServerError
			}
			return http.StatusNoContent
		})
		subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{schedule: "1m,5m,30m"})
		env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")

		d := onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Attempts == 1 })
		if d.Status != store.DeliveryPending || d.LastError != "status 500" || !d.NextAttemptAt.Equal(apitest.Start.Add(time.Minute)) {
			t.Fatalf("after the first failure: %+v", d)
		}
		time.Sleep(30 * time.Millisecond)
		if n := rc.requests(); n != 1 {
			t.Fatalf("%d requests before the retry was due", n)
		}
		env.Clock.Advance(time.Minute)
		d = onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Attempts == 2 })
		if d.Status != store.DeliveryPending || !d.NextAttemptAt.Equal(apitest.Start.Add(6*time.Minute)) {
			t.Fatalf("after the second failure: %+v", d)
		}
		env.Clock.Advance(5 * time.Minute)
		d = onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Status == store.DeliverySucceeded })
		if d.Attempts != 3 || d.LastError != "" {
			t.Errorf("succeeded delivery = %+v", d)
		}
		as := attemptsOf(t, env.Store, d.ID)
		var codes []int
		for _, a := range as {
			codes = append(codes, a.StatusCode)
		}
		if diff := cmp.Diff([]int{500, 500, 204}, codes); diff != "" || as[0].Error != "status 500" || !as[1].AttemptedAt.Equal(apitest.Start.Add(time.Minute)) {
			t.Errorf("attempts mismatch (-want +got):\n%s%+v", diff, as[1])
		}
		// Every attempt carried the same signed bytes, so the same event id.
		rc.waitAcknowledged(1)
		rc.mu.Lock()
		bodies := rc.bodies
		rc.mu.Unlock()
		if len(bodies) != 3 || string(bodies[0]) != string(bodies[1]) || string(bodies[1]) != string(bodies[2]) {
			t.Errorf("the receiver got %d bodies, not all the same: %q", len(bodies), bodies)
		}
	})
}

func TestFailedWhenScheduleSpent(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		rc.setRespond(func(*http.Request, int) int { return http.StatusServiceUnavailable })
		subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{schedule: "1m,5m"})
		env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")

		for attempt := 1; attempt <= 2; attempt++ {
			onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Attempts == attempt })
			env.Clock.Advance(10 * time.Minute)
		}
		d := onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Status != store.DeliveryPending })
		if d.Status != store.DeliveryFailed || d.Attempts != 3 || d.LastError != "status 503" {
			t.Fatalf("delivery = %+v, want failed after len(schedule)+1 = 3 attempts", d)
		}
		env.Clock.Advance(24 * time.Hour)
		time.Sleep(50 * time.Millisecond)
		if n, as := rc.requests(), attemptsOf(t, env.Store, d.ID); n != 3 || len(as) != 3 {
			t.Errorf("%d requests and %d attempts after the delivery failed, want 3", n, len(as))
		}
	})
}

func TestUnreachableThenReachable(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, _ := newEnv(t, o)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens: connections are refused
		r := env.Post(acme.LiveKey, "/webhooks", map[string]any{"url": "https://" + addr + "/h", "event_types": []string{"booking.confirmed"}}).
			Expect(t, http.StatusCreated, "")
		var sub booking.SubscriptionView
		r.Decode(t, &sub)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{})
		env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")

		d := onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Attempts == 1 })
		if as := attemptsOf(t, env.Store, d.ID); d.Status != store.DeliveryPending || as[0].StatusCode != 0 || !strings.Contains(as[0].Error, "refused") {
			t.Fatalf("unreachable: %+v, attempt %+v", d, as[0])
		}

		// The receiver comes up on the same address.
		var ln2 net.Listener
		waitFor(t, "the address to be free", func() bool { ln2, err = net.Listen("tcp", addr); return err == nil })
		rc := newReceiver(t, env.Clock, ln2)
		rc.setSecret("/h", sub.Secret)
		env.Clock.Advance(time.Minute + time.Second)
		d = onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Status == store.DeliverySucceeded })
		if d.Attempts != 2 || len(rc.waitAcknowledged(1)) != 1 {
			t.Errorf("delivered after %d attempts", d.Attempts)
		}
	})
}

func TestDispatcherKilledMidDelivery(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		entered := make(chan struct{}, 1)
		rc.setRespond(func(r *http.Request, n int) int {
			if n == 1 { // the first attempt hangs until the dispatcher dies
				entered <- struct{}{}
				<-r.Context().Done()
				return http.StatusGatewayTimeout // to no one
			}
			return http.StatusOK
		})
		subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
		const lease = 5 * time.Second
		_, kill := startDispatcher(t, env.Store, env.Clock, dispatcherOptions{lease: lease})
		env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
		select {
		case <-entered:
		case <-time.After(15 * time.Second):
			t.Fatal("the first attempt never arrived")
		}
		kill()
		d := onlyDelivery(t, env.Store, func(*store.Delivery) bool { return true })
		if d.Status != store.DeliveryPending || d.Attempts != 0 || len(attemptsOf(t, env.Store, d.ID)) != 0 {
			t.Fatalf("after the kill: %+v", d)
		}

		// A restarted dispatcher leaves the delivery alone until the lease expires.
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{lease: lease})
		time.Sleep(50 * time.Millisecond)
		if n := rc.requests(); n != 1 {
			t.Fatalf("%d requests while the lease held", n)
		}
		env.Clock.Advance(lease)
		d = onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Status == store.DeliverySucceeded })
		if got := rc.waitAcknowledged(1); d.Attempts != 1 || rc.requests() != 2 || got[0].event.Type != string(tradewind.EventBookingConfirmed) {
			t.Errorf("delivery %+v after %d requests", d, rc.requests())
		}
	})
}

// TestTwoDispatchersOneDatabase runs two servers' dispatchers, each with its own
// connections, over one database: every event reaches every subscription exactly once.
func TestTwoDispatchersOneDatabase(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		dsn := o.DSN(t)
		var stores []store.Store
		for range 2 {
			st, err := database.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			stores = append(stores, st)
		}
		clock := apitest.NewClock(apitest.Start)
		p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", RateLimit: 120, CreatedAt: clock.Now()}
		if err := stores[0].PartnerCreate(ctx, p); err != nil {
			t.Fatal(err)
		}
		rc := newReceiver(t, clock, nil)
		for _, path := range []string{"/a", "/b"} {
			sub, err := stores[0].SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: rc.url(path),
				EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed}, Secret: "whsec_test" + path, CreatedAt: clock.Now()})
			if err != nil {
				t.Fatal(err)
			}
			rc.setSecret(path, sub.Secret)
		}
		for _, st := range stores {
			startDispatcher(t, st, clock, dispatcherOptions{concurrency: 4, poll: 5 * time.Millisecond})
		}
		const events = 150
		for i := range events {
			e := &tradewind.Event{ID: fmt.Sprintf("evt_%03d", i), PartnerID: p.ID, Type: tradewind.EventBookingConfirmed,
				Data: []byte(fmt.Sprintf(`{"n":%d}`, i)), CreatedAt: clock.Now()}
			if err := stores[i%2].EventCreate(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		rc.waitAcknowledged(2 * events)
		waitFor(t, "every attempt to be recorded", func() bool {
			l, err := stores[1].DeliveryList(ctx, store.DeliveryFilter{Status: store.DeliverySucceeded})
			return err == nil && len(l) == 2*events
		})
		time.Sleep(50 * time.Millisecond)
		seen := map[string]int{}
		for _, r := range rc.acknowledged() {
			seen[r.path+" "+r.event.ID]++
		}
		for k, n := range seen {
			if n != 1 {
				t.Errorf("%s delivered %d times", k, n)
			}
		}
		if len(seen) != 2*events || rc.requests() != 2*events {
			t.Errorf("%d distinct deliveries in %d requests, want %d", len(seen), rc.requests(), 2*events)
		}
	})
}

func TestSSRFGuard(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o) // the receiver is https://127.0.0.1:port
		subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{forbid: true})
		env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")

		d := onlyDelivery(t, env.Store, func(d *store.Delivery) bool { return d.Attempts == 1 })
		as := attemptsOf(t, env.Store, d.ID)
		if len(as) != 1 || as[0].StatusCode != 0 || !strings.HasPrefix(as[0].Error, "destination forbidden: 127.0.0.1 is not a public address") {
			t.Fatalf("attempts = %+v", as)
		}
		if d.Status != store.DeliveryPending || !strings.HasPrefix(d.LastError, "destination forbidden") {
			t.Errorf("delivery = %+v", d)
		}
		if n := rc.requests(); n != 0 {
			t.Errorf("the receiver got %d requests", n)
		}
	})
}

func TestNudgeSendsAtOnce(t *testing.T) {
	t.Parallel()
	env, acme, rc := newEnv(t, storetest.Openers()[0])
	subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
	d, _ := startDispatcher(t, env.Store, env.Clock, dispatcherOptions{poll: time.Hour})
	env.Service.Store = webhook.NotifyOnEvent(env.Store, d.Nudge)
	env.Book(acme.LiveKey, "k1", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
	rc.waitAcknowledged(1) // long before the hour-long poll
}

func TestNewDispatcherChecksItsConfig(t *testing.T) {
	t.Parallel()
	_, err := webhook.NewDispatcher(webhook.DispatcherConfig{Store: storetest.OpenSQLite(t),
		Deliverer: webhook.NewDeliverer(false, 10*time.Second, nil), Lease: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "lease") {
		t.Errorf("NewDispatcher with a lease shorter than the timeout: %v", err)
	}
	if _, err := webhook.NewDispatcher(webhook.DispatcherConfig{}); err == nil {
		t.Error("NewDispatcher without a store succeeded")
	}
	_, err = webhook.NewDispatcher(webhook.DispatcherConfig{Store: storetest.OpenSQLite(t), Deliverer: webhook.NewDeliverer(false, time.Second, nil),
		Concurrency: store.MaxClaimLast + 1})
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("NewDispatcher with %d attempts at once: %v", store.MaxClaimLast+1, err)
	}
}

// claimCounter counts the claims of a store that leased at least one delivery.
type claimCounter struct {
	store.Store
	mu     sync.Mutex
	leased []int // each claim's deliveries
}

func (s *claimCounter) claims() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.leased)
}

// holdUntil answers each request 200 once answer gives it a turn (or closes), or not at
// all when its client gave up.
func holdUntil(answer <-chan struct{}) func(*http.Request, int) int {
	return func(r *http.Request, _ int) int {
		select {
		case <-answer:
		case <-r.Context().Done():
		}
		return http.StatusOK
	}
}

func (s *claimCounter) DeliveryClaimDue(ctx context.Context, p store.DeliveryClaimParams) ([]*store.ClaimedDelivery, error) {
	l, err := s.Store.DeliveryClaimDue(ctx, p)
	if len(l) > 0 {
		s.mu.Lock()
		s.leased = append(s.leased, len(l))
		s.mu.Unlock()
	}
	return l, err
}

// TestClaimsInBatches: with attempts in flight, the dispatcher claims again once half
// its slots are free, not as each attempt ends: eight deliveries due, four slots, the
// receiver answering one request at a time, make three claims (4, 2, 2), not five
// (4, then 1 four times), each a transaction (on SQLite a sync). Its poll's tick is an
// hour here: the tick claims into any free slot.
func TestClaimsInBatches(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
		for i := range 8 {
			env.Book(acme.LiveKey, fmt.Sprint("k", i), hotelBooking(1+i, 2+i, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
		}
		answer := make(chan struct{})
		defer close(answer) // a failed wait below must not leave requests held
		rc.setRespond(holdUntil(answer))
		st := &claimCounter{Store: env.Store}
		startDispatcher(t, st, env.Clock, dispatcherOptions{poll: time.Hour, concurrency: 4})
		succeeded := func() (n int) {
			l, err := env.Store.DeliveryList(context.Background(), store.DeliveryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range l {
				if d.Status == store.DeliverySucceeded {
					n++
				}
			}
			return n
		}
		for n := 1; n <= 8; n++ {
			waitFor(t, fmt.Sprintf("request %d", n), func() bool { return rc.requests() >= n })
			// Every request in flight is held: answer one, wait for its record, and give
			// the dispatcher time to claim into its slot (as it did before) or not.
			answer <- struct{}{}
			waitFor(t, fmt.Sprintf("%d deliveries recorded", n), func() bool { return succeeded() >= n })
			time.Sleep(30 * time.Millisecond)
			if n == 2 || n == 4 { // half the slots free: the next claim
				waitFor(t, fmt.Sprintf("claim %d", n/2+1), func() bool { return st.claims() > n/2 })
			}
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if !slices.Equal(st.leased, []int{4, 2, 2}) {
			t.Errorf("claims of %v deliveries; want [4 2 2]", st.leased)
		}
	})
}

// TestTickClaimsIntoAnyFreeSlot: while slow attempts hold most slots, the poll's tick
// still claims into the one free: a new delivery goes out within a poll, not once half
// the slots are free; nudges coming faster than the poll do not hold the tick off.
func TestTickClaimsIntoAnyFreeSlot(t *testing.T) {
	env, acme, rc := newEnv(t, storetest.Openers()[0])
	subscribe(t, env, acme.LiveKey, rc, "/h", tradewind.EventBookingConfirmed)
	for i := range 4 {
		env.Book(acme.LiveKey, fmt.Sprint("k", i), hotelBooking(1+i, 2+i, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
	}
	answer := make(chan struct{})
	defer close(answer) // the held requests end with the test
	rc.setRespond(holdUntil(answer))
	// The held attempts outlast the wait below: only the tick can free the way.
	d, _ := startDispatcher(t, env.Store, env.Clock, dispatcherOptions{poll: 20 * time.Millisecond, concurrency: 4, timeout: 30 * time.Second})
	nudging := make(chan struct{})
	defer close(nudging)
	go func() { // a steady stream of other events' nudges
		for {
			select {
			case <-nudging:
				return
			case <-time.After(5 * time.Millisecond):
				d.Nudge()
			}
		}
	}()
	waitFor(t, "4 requests in flight", func() bool { return rc.requests() == 4 })
	answer <- struct{}{} // one slot free, three held
	rc.waitAcknowledged(1)
	env.Book(acme.LiveKey, "k4", hotelBooking(5, 6, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
	waitFor(t, "the new delivery's request beside the three held", func() bool { return rc.requests() == 5 })
}

// TestBacklogDoesNotHoldOthersBack: one partner's backlog to an endpoint that does not
// answer holds every slot; once one slot frees, another partner's delivery, due after
// the whole backlog, goes out in it, not the backlog's next one (the tick's claim serves
// the subscriptions in flight last). Alone, a backlog still takes every slot.
func TestBacklogDoesNotHoldOthersBack(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		globex := env.NewPartner("globex", booking.PartnerParams{})
		subscribe(t, env, acme.LiveKey, rc, "/acme", tradewind.EventBookingConfirmed)
		subscribe(t, env, globex.LiveKey, rc, "/globex", tradewind.EventBookingConfirmed)
		for i := range 8 {
			env.Book(acme.LiveKey, fmt.Sprint("k", i), hotelBooking(1+i, 2+i, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
		}
		env.Book(globex.LiveKey, "g", hotelBooking(1, 2, apitest.RoomDouble, 1, 1)).Expect(t, http.StatusCreated, "")
		answer := make(chan struct{})
		defer close(answer) // the held requests end with the test
		var mu sync.Mutex
		var paths []string // in the order the requests came
		hold := holdUntil(answer)
		rc.setRespond(func(r *http.Request, n int) int {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			if r.URL.Path == "/globex" {
				return http.StatusOK
			}
			return hold(r, n)
		})
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{poll: 20 * time.Millisecond, concurrency: 4, timeout: 30 * time.Second})
		waitFor(t, "4 requests in flight", func() bool { return rc.requests() == 4 })
		mu.Lock()
		first := slices.Clone(paths)
		mu.Unlock()
		if !slices.Equal(first, []string{"/acme", "/acme", "/acme", "/acme"}) {
			t.Fatalf("first requests %v; want acme's four, due first", first)
		}
		answer <- struct{}{} // one slot free
		waitFor(t, "a fifth request", func() bool { return rc.requests() >= 5 })
		mu.Lock()
		fifth := paths[4]
		mu.Unlock()
		if fifth != "/globex" {
			t.Fatalf("the freed slot went to %s; want /globex, waiting behind acme's backlog", fifth)
		}
		// Alone again, acme's backlog takes the slot globex left.
		waitFor(t, "acme's next in globex's slot", func() bool { return rc.requests() >= 6 })
		mu.Lock()
		defer mu.Unlock()
		if paths[5] != "/acme" {
			t.Errorf("requests %v; want acme's after globex's", paths)
		}
	})
}

// TestAPITestEvent: POST /webhooks/{id}/test queues a sample event for that one
// subscription, delivered signed as every event with "test_event": true; a test key's
// deliveries list shows it, a live key's does not; another partner's subscription is
// 404 and an unknown event type 400.
func TestAPITestEvent(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, acme, rc := newEnv(t, o)
		id := subscribe(t, env, acme.LiveKey, rc, "/one", tradewind.EventBookingConfirmed)
		subscribe(t, env, acme.LiveKey, rc, "/other", tradewind.EventBookingCancelled)
		startDispatcher(t, env.Store, env.Clock, dispatcherOptions{})
		path := fmt.Sprintf("/webhooks/%d/test", id)
		r := env.Post(acme.LiveKey, path, map[string]any{"event_type": "booking.cancelled"}).Expect(t, http.StatusAccepted, "")
		sent := r.Map(t)
		if sent["event_type"] != "booking.cancelled" || sent["subscription_id"] != float64(id) || r.Message == nil {
			t.Fatalf("sent = %v, message %v", sent, r.Message)
		}
		got := rc.waitAcknowledged(1)[0]
		if got.path != "/one" || got.event.ID != sent["event_id"] || got.event.Type != "booking.cancelled" || !got.event.TestEvent {
			t.Errorf("delivered %s %+v; want the sample to /one", got.path, got.event)
		}
		// Without a body, or null: booking.confirmed. Any type, whether the subscription
		// chose it or not.
		env.Post(acme.TestKey, path, nil).Expect(t, http.StatusAccepted, "")
		if got := rc.waitAcknowledged(2)[1]; got.path != "/one" || got.event.Type != "booking.confirmed" {
			t.Errorf("second delivery %s %s; want booking.confirmed to /one", got.path, got.event.Type)
		}
		env.Post(acme.TestKey, path, map[string]any{"event_type": nil}).Expect(t, http.StatusAccepted, "")
		env.Post(acme.TestKey, path, map[string]any{"event_type": "availability.changed"}).Expect(t, http.StatusAccepted, "")
		samples := rc.waitAcknowledged(4)
		time.Sleep(50 * time.Millisecond)
		if n := len(rc.acknowledged()); n != 4 {
			t.Errorf("%d deliveries; the other subscription received a sample", n)
		}
		// Each sample is shaped as the real events are: the contract's webhook schemas.
		v, err := openapi.NewValidator()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range samples {
			if err := v.CheckEvent(d.header, d.body); err != nil {
				t.Errorf("the sample %s does not match the contract: %v\n%s", d.event.Type, err, d.body)
			}
		}
		list := env.Get(acme.TestKey, fmt.Sprintf("/webhooks/%d/deliveries", id)).Expect(t, http.StatusOK, "").Maps(t)
		if len(list) != 4 || list[3]["event_id"] != sent["event_id"] || list[3]["status"] != "succeeded" || list[3]["test_event"] != true {
			t.Errorf("test key's deliveries = %v", list)
		}
		if live := env.Get(acme.LiveKey, fmt.Sprintf("/webhooks/%d/deliveries", id)).Expect(t, http.StatusOK, "").Maps(t); len(live) != 0 {
			t.Errorf("live key's deliveries = %v, want none", live)
		}
		// Read by id, a sample says it is one.
		if ev := env.Get(acme.LiveKey, fmt.Sprintf("/events/%v", sent["event_id"])).Expect(t, http.StatusOK, "").Map(t); ev["test_event"] != true {
			t.Errorf("GET /events/{id} of a sample = %v, want test_event true", ev)
		}
		// The samples are the subscription's only: not in the event feed.
		if feed := env.Get(acme.LiveKey, "/events?type=booking.confirmed&type=booking.cancelled").Expect(t, http.StatusOK, "").Maps(t); len(feed) != 0 {
			t.Errorf("the feed lists the samples: %v", feed)
		}
		globex := env.NewPartner("globex", booking.PartnerParams{})
		env.Post(globex.LiveKey, path, nil).Expect(t, http.StatusNotFound, "not_found")
		for _, bad := range []string{"booking.updated", ""} {
			r = env.Post(acme.LiveKey, path, map[string]any{"event_type": bad}).Expect(t, http.StatusBadRequest, "bad_request")
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], fmt.Sprintf(`event_type: %q is not one of`, bad)) {
				t.Errorf("event_type %q: errors %v", bad, r.Errors)
			}
		}
		env.Post(acme.LiveKey, path, map[string]any{"event": "x"}).Expect(t, http.StatusBadRequest, "bad_request")
	})
}
