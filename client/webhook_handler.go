package client

import (
	"container/list"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// WebhookHandler is a ready webhook receiver: mount it on the URL you subscribed and give
// it your functions, in one line:
//
//	http.Handle("/tradewind/events", &client.WebhookHandler{Secrets: []string{secret},
//		OnBookingConfirmed: func(ctx context.Context, e *client.BookingEvent) error { … }})
//
// For every delivery it verifies the signature (X-Partner-Signature, or
// X-Partner-Signature-Next during a secret roll, against any of Secrets) and the
// timestamp, skips an event id it has already processed, decodes the data and calls the
// function of the event's type. It answers:
//
//   - 204 when the function returned nil, or when no function handles the type (the event
//     is acknowledged and ignored);
//   - 200 for a duplicate, which is acknowledged again without calling anything;
//   - 500 when the function returned an error: Tradewind retries the delivery later, and
//     the id is forgotten so that the retry is processed;
//   - 401 for a bad signature or timestamp, 413 for a body over MaxWebhookBody, 400 for a
//     body that is not an event.
//
// Functions are called one event at a time per event id, but events of different ids run
// concurrently, as deliveries arrive.
type WebhookHandler struct {
	// Secrets are the subscription's signing secrets (whsec_…). One is enough; during a
	// roll add the new one (either order) and remove the old one once the roll is over.
	Secrets []string
	// Tolerance is the largest accepted distance between X-Partner-Timestamp and now;
	// DefaultWebhookTolerance when zero.
	Tolerance time.Duration
	// Dedupe remembers processed event ids; a bounded in-memory store of the last
	// DefaultDedupeSize ids when nil. Use a shared store (your database) when several
	// processes receive deliveries.
	Dedupe DedupeStore

	OnBookingConfirmed    func(ctx context.Context, e *BookingEvent) error
	OnBookingCancelled    func(ctx context.Context, e *BookingEvent) error
	OnAvailabilityChanged func(ctx context.Context, e *AvailabilityEvent) error
	// OnOther receives events of types without a function above (types added later).
	OnOther func(ctx context.Context, e *WebhookEvent) error

	// Logger receives why a delivery was refused or failed; slog.Default when nil.
	Logger *slog.Logger
	// Now is the clock for the timestamp check; time.Now when nil (tests set it).
	Now func() time.Time

	once  sync.Once
	dedup DedupeStore
}

// DedupeStore remembers which event ids were processed. Implementations must be safe for
// concurrent use.
type DedupeStore interface {
	// Claim records that id is being processed; false when it was already claimed (a
	// duplicate, or a copy being processed right now).
	Claim(ctx context.Context, id string) (bool, error)
	// Release forgets a claim whose processing failed, so that a redelivery is processed.
	Release(ctx context.Context, id string) error
}

// DefaultDedupeSize is how many event ids the default in-memory DedupeStore remembers.
const DefaultDedupeSize = 100_000

// MemoryDedupe is a DedupeStore that remembers the last Size ids in memory, forgetting
// the oldest beyond that. Tradewind retries a delivery for about 9 hours, so Size should
// exceed the events a receiver gets in that time.
type MemoryDedupe struct {
	mu    sync.Mutex
	size  int
	order *list.List // of string, oldest first
	ids   map[string]*list.Element
}

// NewMemoryDedupe returns a MemoryDedupe of size ids (DefaultDedupeSize when size ≤ 0).
func NewMemoryDedupe(size int) *MemoryDedupe {
	if size <= 0 {
		size = DefaultDedupeSize
	}
	return &MemoryDedupe{size: size, order: list.New(), ids: map[string]*list.Element{}}
}

// Claim implements DedupeStore.
func (m *MemoryDedupe) Claim(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.ids[id]; ok {
		return false, nil
	}
	m.ids[id] = m.order.PushBack(id)
	for m.order.Len() > m.size {
		oldest := m.order.Front()
		m.order.Remove(oldest)
		delete(m.ids, oldest.Value.(string))
	}
	return true, nil
}

// Release implements DedupeStore.
func (m *MemoryDedupe) Release(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.ids[id]; ok {
		m.order.Remove(e)
		delete(m.ids, id)
	}
	return nil
}

// Len returns how many ids are remembered.
func (m *MemoryDedupe) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

func (h *WebhookHandler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// ServeHTTP implements http.Handler.
func (h *WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.once.Do(func() {
		h.dedup = h.Dedupe
		if h.dedup == nil {
			h.dedup = NewMemoryDedupe(0)
		}
	})
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := time.Now()
	if h.Now != nil {
		now = h.Now()
	}
	ev, err := parseWebhook(r, h.Secrets, h.Tolerance, now)
	if err != nil {
		status := http.StatusUnauthorized
		switch {
		case errors.Is(err, ErrWebhookTooLarge):
			status = http.StatusRequestEntityTooLarge
		case errors.Is(err, ErrWebhookMalformed):
			status = http.StatusBadRequest
		case !errors.Is(err, ErrWebhookSignature) && !errors.Is(err, ErrWebhookTimestamp) && !errors.Is(err, ErrWebhookNoSignature):
			status = http.StatusBadRequest // the body could not be read
		}
		h.logger().WarnContext(r.Context(), "tradewind webhook refused", "error", err.Error(), "status", status)
		http.Error(w, http.StatusText(status), status)
		return
	}
	ctx := r.Context()
	first, err := h.dedup.Claim(ctx, ev.ID)
	if err != nil {
		h.logger().ErrorContext(ctx, "tradewind webhook: dedupe store", "event_id", ev.ID, "error", err.Error())
		http.Error(w, "dedupe store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := h.dispatch(ctx, ev); err != nil {
		// Forget the id so that Tradewind's retry of this delivery is processed.
		if rerr := h.dedup.Release(context.WithoutCancel(ctx), ev.ID); rerr != nil {
			h.logger().ErrorContext(ctx, "tradewind webhook: dedupe release", "event_id", ev.ID, "error", rerr.Error())
		}
		h.logger().ErrorContext(ctx, "tradewind webhook: handler failed; Tradewind will retry", "event_id", ev.ID,
			"event_type", ev.Type, "error", err.Error())
		status := http.StatusInternalServerError
		if errors.Is(err, ErrWebhookMalformed) {
			status = http.StatusBadRequest
		}
		http.Error(w, http.StatusText(status), status)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// dispatch decodes ev and calls the function of its type.
func (h *WebhookHandler) dispatch(ctx context.Context, ev *WebhookEvent) error {
	switch {
	case ev.Type == EventBookingConfirmed && h.OnBookingConfirmed != nil,
		ev.Type == EventBookingCancelled && h.OnBookingCancelled != nil:
		be, err := ev.BookingEvent()
		if err != nil {
			return err
		}
		if ev.Type == EventBookingConfirmed {
			return h.OnBookingConfirmed(ctx, be)
		}
		return h.OnBookingCancelled(ctx, be)
	case ev.Type == EventAvailabilityChanged && h.OnAvailabilityChanged != nil:
		ae, err := ev.AvailabilityEvent()
		if err != nil {
			return err
		}
		return h.OnAvailabilityChanged(ctx, ae)
	case h.OnOther != nil:
		return h.OnOther(ctx, ev)
	}
	return nil
}
