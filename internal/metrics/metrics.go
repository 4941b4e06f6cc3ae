// Package metrics records the service's Prometheus metrics in a registry the caller
// passes in (never the global default), and serves them for the admin listener.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// Recorder records requests, bookings, credit and webhook deliveries; its methods are
// safe for concurrent use.
type Recorder struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	bookings *prometheus.CounterVec
	credit   *prometheus.CounterVec
	webhooks *prometheus.CounterVec
	paused   prometheus.Counter
	replay   prometheus.Counter
}

// WebhookObserver is what the webhook dispatcher reports each delivery attempt to;
// *Recorder implements it.
type WebhookObserver interface {
	// WebhookDelivery records one delivery attempt: ok when the receiver acknowledged it.
	WebhookDelivery(ok bool)
}

// OtherRoute labels requests that matched no partner endpoint (health checks, 404s).
const OtherRoute = "other"

// New returns a Recorder whose metrics are registered in reg; it panics if reg already
// holds them, as registering twice is a programming error.
func New(reg prometheus.Registerer) *Recorder {
	r := &Recorder{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tradewind_http_requests_total",
			Help: "Partner API requests by endpoint, HTTP status and partner id (0: not authenticated).",
		}, []string{"route", "status", "partner"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tradewind_http_request_duration_seconds",
			Help:    "Partner API request latency by endpoint.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		bookings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tradewind_bookings_created_total",
			Help: "Bookings created by product type, initial status and key mode (test or live).",
		}, []string{"product", "status", "mode"}),
		credit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tradewind_credit_drawn_minor_units_total",
			Help: "Credit drawn by live bookings, in minor units of the currency.",
		}, []string{"currency"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tradewind_webhook_deliveries_total",
			Help: "Webhook delivery attempts by result (delivered or failed).",
		}, []string{"result"}),
		paused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tradewind_webhook_subscriptions_auto_paused_total",
			Help: "Webhook subscriptions paused automatically because every delivery failed for 3 days.",
		}),
		replay: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tradewind_replay_ledger_failures_total",
			Help: "Signed state-changing requests refused with 503 because the replay ledger (Redis with --redis, else the database) could not answer.",
		}),
	}
	reg.MustRegister(r.requests, r.latency, r.bookings, r.credit, r.webhooks, r.paused, r.replay)
	return r
}

// Request records one request: its endpoint ("" for none, recorded as OtherRoute), HTTP
// status, partner id (0 when not authenticated) and duration.
func (r *Recorder) Request(route string, status int, partnerID int64, d time.Duration) {
	if route == "" {
		route = OtherRoute
	}
	r.requests.WithLabelValues(route, strconv.Itoa(status), strconv.FormatInt(partnerID, 10)).Inc()
	r.latency.WithLabelValues(route).Observe(d.Seconds())
}

// BookingCreated records one booking just created; a live booking has drawn its total
// price from the credit line, so it is also recorded as credit drawn.
func (r *Recorder) BookingCreated(b *booking.BookingView) {
	mode := tradewind.ModeLive
	if b.Test {
		mode = tradewind.ModeTest
	}
	r.bookings.WithLabelValues(b.ProductType, string(b.Status), string(mode)).Inc()
	if !b.Test {
		r.credit.WithLabelValues(b.Currency).Add(float64(b.TotalPrice.Minor))
	}
}

// WebhookDelivery records one webhook delivery attempt: ok when it was acknowledged.
func (r *Recorder) WebhookDelivery(ok bool) {
	result := "failed"
	if ok {
		result = "delivered"
	}
	r.webhooks.WithLabelValues(result).Inc()
}

// SubscriptionsAutoPaused records n subscriptions paused because their deliveries failed.
func (r *Recorder) SubscriptionsAutoPaused(n int) { r.paused.Add(float64(n)) }

// ReplayLedgerFailed records one signed state-changing request refused because the
// replay ledger could not answer.
func (r *Recorder) ReplayLedgerFailed() { r.replay.Inc() }

// Handler serves the metrics gathered by g in the Prometheus text format.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}

// ReadModel is what the read model reports (*readmodel.Model implements it).
type ReadModel interface {
	Ready() bool
	// Lag is how far the model may be behind the database.
	Lag() time.Duration
	// Applied counts the changes of the feed applied since start.
	Applied() int64
}

// RegisterReadModel registers the read model's gauges in reg, read at each scrape:
// tradewind_readmodel_lag_seconds (the bound to watch: alert well under 1 s),
// tradewind_readmodel_ready and tradewind_readmodel_changes_applied_total.
func RegisterReadModel(reg prometheus.Registerer, m ReadModel) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tradewind_readmodel_lag_seconds",
			Help: "How far the read model may be behind the database: seconds since the start of its last successful poll of the change feed (everything committed before it is applied); 0 until built.",
		}, func() float64 { return m.Lag().Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tradewind_readmodel_ready",
			Help: "1 once the read model is built (searches read it), 0 while it loads (searches read the database).",
		}, func() float64 {
			if m.Ready() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tradewind_readmodel_changes_applied_total",
			Help: "Changes of the change feed the read model applied since the server started.",
		}, func() float64 { return float64(m.Applied()) }),
	)
}

// QuotesAhead are the service's counts of writes priced before the store checked them
// (booking.Service.BookAheadStats and PrebookAheadStats).
type QuotesAhead struct {
	// BookKept counts live bookings whose quote, priced before their transaction (from
	// the read model, or the store's read connections), the transaction kept;
	// BookPricedAgain those it priced again under its lock (the quote ahead failed, or
	// the store held something else).
	BookKept, BookPricedAgain int64
	// PrebookFromModel counts prebooks priced from the read model and stored as the
	// store held them; PrebookFromStore those priced from the store (a model
	// behind the store, or refused).
	PrebookFromModel, PrebookFromStore int64
}

// RegisterQuotesAhead registers, read from stats when scraped,
// tradewind_bookings_priced_ahead_total{outcome} and tradewind_prebooks_priced_total{from}:
// how often a write was priced off the store's lock and only checked by it. A share of
// "priced_again" or "store" that grows says the model is behind the store, or that
// partners book what changes under them.
func RegisterQuotesAhead(reg prometheus.Registerer, stats func() QuotesAhead) {
	counter := func(name, help, label, value string, f func(QuotesAhead) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: prometheus.Labels{label: value}},
			func() float64 { return float64(f(stats())) })
	}
	const (
		book    = "tradewind_bookings_priced_ahead_total"
		bookH   = "Live bookings by what their transaction did with the quote priced before it: kept, or priced_again under its lock."
		prebook = "tradewind_prebooks_priced_total"
		prebkH  = "Prebooks by what priced them: the read model (checked by the store as it stored the token), or the store."
	)
	reg.MustRegister(
		counter(book, bookH, "outcome", "kept", func(q QuotesAhead) int64 { return q.BookKept }),
		counter(book, bookH, "outcome", "priced_again", func(q QuotesAhead) int64 { return q.BookPricedAgain }),
		counter(prebook, prebkH, "from", "model", func(q QuotesAhead) int64 { return q.PrebookFromModel }),
		counter(prebook, prebkH, "from", "store", func(q QuotesAhead) int64 { return q.PrebookFromStore }),
	)
}

// RequestLogStats are the request log's counts that /metrics shows (reqlog.Stats).
type RequestLogStats struct {
	Dropped, WriteFailed, Written int64
	Queued                        int
	Rested                        time.Duration // the writer's rests to keep to its share
}

// RegisterRequestLog registers the request log's metrics in reg, read from stats when
// scraped: entries dropped (the queue was full, or their batch could not be written),
// written and waiting.
func RegisterRequestLog(reg prometheus.Registerer, stats func() RequestLogStats) {
	dropped := func(reason string, f func(RequestLogStats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "tradewind_request_log_entries_dropped_total",
			Help:        "Request log entries dropped: queue_full when the writer fell behind, write_failed when their batch was refused by the database. Usage counters are never dropped.",
			ConstLabels: prometheus.Labels{"reason": reason},
		}, func() float64 { return float64(f(stats())) })
	}
	reg.MustRegister(
		dropped("queue_full", func(s RequestLogStats) int64 { return s.Dropped }),
		dropped("write_failed", func(s RequestLogStats) int64 { return s.WriteFailed }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tradewind_request_log_entries_written_total",
			Help: "Request log entries written to the database.",
		}, func() float64 { return float64(stats().Written) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tradewind_request_log_queue_entries",
			Help: "Request log entries waiting for the writer.",
		}, func() float64 { return float64(stats().Queued) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tradewind_request_log_writer_rested_seconds_total",
			Help: "Time the request log writer rested to keep to its share of the CPU (--request-log-writer-share); entries queue meanwhile.",
		}, func() float64 { return stats().Rested.Seconds() }),
	)
}
