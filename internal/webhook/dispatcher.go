package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/store"
)

// DefaultPollInterval is how often a dispatcher looks for due deliveries when nothing
// nudges it.
const DefaultPollInterval = 500 * time.Millisecond

// DefaultLease is how long a claimed delivery stays with its dispatcher: if the
// dispatcher dies mid-attempt, another one sends the delivery once the lease expires.
const DefaultLease = time.Minute

// DefaultConcurrency is how many deliveries one dispatcher sends at once.
const DefaultConcurrency = 8

// recordTimeout bounds the recording of an attempt, which outlives a stopping Run.
const recordTimeout = 10 * time.Second

// DispatcherConfig configures a Dispatcher; Store and Deliverer are required.
type DispatcherConfig struct {
	Store     store.Store
	Deliverer *Deliverer
	// Schedule holds the delays between attempts (ParseSchedule); nil is DefaultSchedule.
	Schedule []time.Duration
	// Clock tells the time of claims, leases, attempts and signatures; nil is the wall clock.
	Clock  tradewind.Clock
	Logger *slog.Logger
	// PollInterval, Lease and Concurrency default to DefaultPollInterval, DefaultLease
	// and DefaultConcurrency; Lease must be longer than the Deliverer's timeout, and
	// Concurrency at most store.MaxClaimLast.
	PollInterval time.Duration
	Lease        time.Duration
	Concurrency  int
	// Rand draws the retry jitter (see NextAttemptDelay); nil is math/rand.
	Rand func() float64
	// Observe, when set, is told the outcome of every recorded attempt.
	Observe func(ok bool)
}

// Dispatcher sends the webhook deliveries the store holds: it claims due ones under a
// lease, sends each signed with its subscription's secret, records every attempt, and
// schedules retries until the schedule is spent. Dispatchers on several servers may
// share one database: each delivery is claimed by one of them at a time.
type Dispatcher struct {
	cfg   DispatcherConfig
	nudge chan struct{}
	// records takes the attempts made to the goroutine that records them (Run), in
	// transactions of several when they come together (recordAll).
	records chan *attemptRecord
}

// attemptRecord is an attempt waiting to be recorded, and then its outcome.
type attemptRecord struct {
	p    store.DeliveryAttemptParams
	kept bool // the lease still held: the attempt and the delivery's next state are stored
	err  error
	done chan struct{}
}

// maxRecordBatch bounds the attempts one transaction records.
const maxRecordBatch = 64

// NewDispatcher checks cfg and fills in its defaults.
func NewDispatcher(cfg DispatcherConfig) (*Dispatcher, error) {
	if cfg.Store == nil || cfg.Deliverer == nil {
		return nil, errors.New("webhook dispatcher: a store and a deliverer are required")
	}
	if cfg.Schedule == nil {
		s, err := ParseSchedule(DefaultSchedule)
		if err != nil {
			return nil, err
		}
		cfg.Schedule = s
	}
	if cfg.Clock == nil {
		cfg.Clock = tradewind.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Concurrency > store.MaxClaimLast {
		// A claim serves at most MaxClaimLast subscriptions last (Run): as many as
		// attempts in flight.
		return nil, fmt.Errorf("webhook dispatcher: at most %d attempts at once, not %d", store.MaxClaimLast, cfg.Concurrency)
	}
	if cfg.Lease <= cfg.Deliverer.timeout {
		return nil, errors.New("webhook dispatcher: the lease must be longer than the delivery timeout " + cfg.Deliverer.timeout.String())
	}
	return &Dispatcher{cfg: cfg, nudge: make(chan struct{}, 1), records: make(chan *attemptRecord)}, nil
}

// Nudge tells the dispatcher that an event was committed, so that its first attempt
// goes out now rather than at the next poll (unless more than half its slots are busy:
// then at the next poll); it never blocks.
func (d *Dispatcher) Nudge() {
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// Run sends deliveries until ctx ends, then waits for the attempts in flight. The end
// of ctx aborts them unrecorded: their leases expire and they are sent again, by this
// server once restarted or by another one. Run is called once: its end stops the
// recorder for good.
func (d *Dispatcher) Run(ctx context.Context) {
	recorded := make(chan struct{})
	go func() { defer close(recorded); d.recordLoop() }()
	// Once the attempts in flight are recorded, the recorder stops: in this order.
	defer func() { <-recorded }()
	defer close(d.records)
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, d.cfg.Concurrency) // one per attempt in flight
	freed := make(chan struct{}, 1)
	var flying inFlight
	timer := time.NewTimer(d.cfg.PollInterval)
	defer timer.Stop()
	polled := true // the first pass, or the poll's tick: claim into any free slot
	fair := false  // since the tick: the next claim serves the subscriptions in flight last
	for {
		// Woken by an attempt's end or a nudge, it claims once half the slots are free:
		// claimed as each attempt ended, one or two at a time, every delivery cost a
		// claim's transaction of its own (on SQLite a sync of the WAL). The poll's tick
		// claims into any free slot, so that slow attempts holding most slots delay the
		// others by a poll at most.
		//
		// The first claim after each tick also serves the subscriptions with an attempt
		// in flight last: claims in order of due time alone would give every slot to a
		// subscription with a backlog (an import's availability.changed events to a slow
		// endpoint) until it is spent, and every other partner's deliveries would wait
		// behind it. Once a poll: the subscriptions left out cost that claim a walk past
		// their due rows, not every claim.
		if free := cap(slots) - len(slots); free > 0 && (polled || 2*free >= cap(slots)) {
			p := store.DeliveryClaimParams{Now: d.cfg.Clock.Now(), Lease: d.cfg.Lease, Limit: free}
			if fair {
				p.Last, fair = flying.subscriptions(), false
			}
			claimed, err := d.cfg.Store.DeliveryClaimDue(ctx, p)
			if err != nil && ctx.Err() == nil {
				d.cfg.Logger.WarnContext(ctx, "webhook: claiming due deliveries failed", "err", err)
			}
			for _, c := range claimed {
				slots <- struct{}{}
				flying.add(c.SubscriptionID, 1)
				wg.Go(func() {
					defer func() {
						flying.add(c.SubscriptionID, -1)
						<-slots
						select {
						case freed <- struct{}{}:
						default:
						}
					}()
					d.deliver(ctx, c)
				})
			}
			if len(claimed) == free {
				continue // more may be due
			}
		}
		// The tick keeps its pace whatever else wakes the loop: reset at every wake-up,
		// a stream of nudges would never let it come.
		if polled {
			timer.Reset(d.cfg.PollInterval)
			polled = false
		}
		select {
		case <-ctx.Done():
			return
		case <-d.nudge:
		case <-freed:
		case <-timer.C:
			polled, fair = true, true
		}
	}
}

// inFlight counts a dispatcher's attempts in flight by subscription.
type inFlight struct {
	mu sync.Mutex
	n  map[int64]int
}

func (f *inFlight) add(subscriptionID int64, d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[int64]int{}
	}
	if f.n[subscriptionID] += d; f.n[subscriptionID] <= 0 {
		delete(f.n, subscriptionID)
	}
}

// subscriptions returns the subscriptions with an attempt in flight (at most
// Concurrency of them).
func (f *inFlight) subscriptions() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Collect(maps.Keys(f.n))
}

// envelope returns the JSON envelope a delivery of e sends to partner: the bytes that
// are signed.
func envelope(e *tradewind.Event, partner string) ([]byte, error) {
	return json.Marshal(client.WebhookEvent{ID: e.ID, Type: string(e.Type), CreatedAt: e.CreatedAt.UTC().Truncate(time.Second),
		Partner: partner, Data: e.Data, TestEvent: e.TestEvent})
}

// signingSecrets are the secrets that sign a delivery at now: during a secret roll the
// current one (X-Partner-Signature) and the next (X-Partner-Signature-Next); once the
// roll's time has come, the next alone.
func signingSecrets(c *store.ClaimedDelivery, now time.Time) (secret, next string) {
	switch {
	case c.NextSecret == "":
		return c.Secret, ""
	case now.Before(c.NextSecretFrom):
		return c.Secret, c.NextSecret
	}
	return c.NextSecret, ""
}

// deliver makes one attempt of a claimed delivery and records it with the delivery's
// next state.
func (d *Dispatcher) deliver(ctx context.Context, c *store.ClaimedDelivery) {
	start := d.cfg.Clock.Now()
	var a Attempt
	if body, err := envelope(&c.Event, c.PartnerName); err != nil {
		a = Attempt{Err: errors.New("the event's data is not valid JSON")}
	} else {
		secret, next := signingSecrets(c, start)
		a = d.cfg.Deliverer.DeliverRolling(ctx, c.URL, secret, next, c.Event.ID, string(c.Event.Type), body, start)
	}
	if a.Err != nil && ctx.Err() != nil {
		return // stopped mid-attempt: the lease expires and the delivery is sent again
	}
	attempt := c.Attempts + 1
	p := store.DeliveryAttemptParams{DeliveryID: c.ID, ClaimToken: c.ClaimToken, At: start, StatusCode: a.StatusCode,
		ResponseSnippet: a.ResponseSnippet, Duration: a.Duration, Status: store.DeliverySucceeded}
	if a.Err != nil {
		p.Error, p.Status = a.Err.Error(), store.DeliveryFailed
		if delay, ok := NextAttemptDelay(d.cfg.Schedule, attempt, d.cfg.Rand); ok {
			p.Status, p.NextAttemptAt = store.DeliveryPending, d.cfg.Clock.Now().Add(delay)
		}
	}
	rec := &attemptRecord{p: p, done: make(chan struct{})}
	d.records <- rec
	<-rec.done
	kept, err := rec.kept, rec.err
	rctx := context.WithoutCancel(ctx)
	log := d.cfg.Logger.With("delivery_id", c.ID, "event_id", c.Event.ID, "event_type", c.Event.Type,
		"subscription_id", c.SubscriptionID, "partner_id", c.Event.PartnerID, "attempt", attempt, "status_code", a.StatusCode)
	switch {
	case err != nil:
		log.ErrorContext(rctx, "webhook: recording an attempt failed; the delivery is retried when its lease expires", "err", err)
		return
	case !kept:
		log.WarnContext(rctx, "webhook: the lease expired during the attempt; another dispatcher owns the delivery")
	case p.Status == store.DeliverySucceeded:
		log.InfoContext(rctx, "webhook delivered")
	case p.Status == store.DeliveryPending:
		log.WarnContext(rctx, "webhook attempt failed; retry scheduled", "err", p.Error, "next_attempt_at", p.NextAttemptAt)
	default:
		log.WarnContext(rctx, "webhook delivery failed; the retry schedule is spent", "err", p.Error)
	}
	if d.cfg.Observe != nil {
		d.cfg.Observe(a.Err == nil)
	}
}

// recordLoop records the attempts deliver hands it until Run closes d.records: each
// batch those that came while the one before was recorded, in one transaction
// (recordAll), so that on SQLite a batch pays one sync of the WAL, not one an attempt.
func (d *Dispatcher) recordLoop() {
	for first := range d.records {
		batch := []*attemptRecord{first}
	more:
		for len(batch) < maxRecordBatch {
			select {
			case r, ok := <-d.records:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		d.recordAll(batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

// recordAll records batch in one transaction; when it fails, each attempt in a
// transaction of its own, so that one failing record does not lose the others. All
// within one recordTimeout, as one attempt's record was: a database that does not
// answer holds the recorder that long, not once per attempt (those not recorded are
// sent again once their leases expire).
func (d *Dispatcher) recordAll(batch []*attemptRecord) {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	record := func(rs []*attemptRecord) error {
		return d.cfg.Store.InTx(ctx, func(q store.Querier) error {
			for _, r := range rs {
				kept, err := q.DeliveryRecordAttempt(ctx, r.p)
				if err != nil {
					return err
				}
				r.kept = kept
			}
			return nil
		})
	}
	if len(batch) > 1 && record(batch) == nil {
		return
	}
	for _, r := range batch {
		r.kept = false
		r.err = record([]*attemptRecord{r})
	}
}

// NotifyOnEvent returns st whose writes call notify once an event they created is
// committed, so that a dispatcher in the same process sends it at once (Dispatcher.Nudge).
func NotifyOnEvent(st store.Store, notify func()) store.Store {
	return &notifyingStore{Store: st, notify: notify}
}

type notifyingStore struct {
	store.Store
	notify func()
}

func (s *notifyingStore) EventCreate(ctx context.Context, e *tradewind.Event) error {
	err := s.Store.EventCreate(ctx, e)
	if err == nil {
		s.notify()
	}
	return err
}

func (s *notifyingStore) BookingCreate(ctx context.Context, b *tradewind.Booking, events ...*tradewind.Event) error {
	err := s.Store.BookingCreate(ctx, b, events...)
	if err == nil && len(events) > 0 {
		s.notify()
	}
	return err
}

func (s *notifyingStore) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	after, ok, err := s.Store.InventoryClaimBooking(ctx, c, b, events...)
	if ok && err == nil && len(events) > 0 {
		s.notify()
	}
	return after, ok, err
}

func (s *notifyingStore) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	created := false
	err := s.Store.InTx(ctx, func(q store.Querier) error {
		created = false // a retried transaction starts over
		return fn(&eventSpy{Querier: q, ForwardSavepoints: store.ForwardSavepoints{Tx: q}, created: &created})
	})
	if err == nil && created {
		s.notify()
	}
	return err
}

// eventSpy notes that a transaction created an event.
type eventSpy struct {
	store.Querier
	// The transaction's savepoints pass through (the booking service's group commit
	// needs them). An event rolled back to its savepoint still wakes the dispatcher once
	// the transaction commits: it finds nothing more to send.
	store.ForwardSavepoints
	created *bool
}

func (q *eventSpy) EventCreate(ctx context.Context, e *tradewind.Event) error {
	err := q.Querier.EventCreate(ctx, e)
	if err == nil {
		*q.created = true
	}
	return err
}

func (q *eventSpy) BookingCreate(ctx context.Context, b *tradewind.Booking, events ...*tradewind.Event) error {
	err := q.Querier.BookingCreate(ctx, b, events...)
	if err == nil && len(events) > 0 {
		*q.created = true
	}
	return err
}

func (q *eventSpy) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	after, ok, err := q.Querier.InventoryClaimBooking(ctx, c, b, events...)
	if ok && err == nil && len(events) > 0 {
		*q.created = true
	}
	return after, ok, err
}

var _ store.Savepoints = (*eventSpy)(nil)
