package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/money"
)

// scrape returns the text exposition of reg as served by metrics.Handler.
func scrape(tb testing.TB, reg *prometheus.Registry) string {
	tb.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		tb.Fatalf("GET /metrics = %d", rec.Code)
	}
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	rec := metrics.New(reg)

	rec.Request("GET /meta/ping", 200, 7, 30*time.Millisecond)
	rec.Request("GET /meta/ping", 200, 7, 2*time.Second)
	rec.Request("", 404, 0, time.Millisecond)
	rec.BookingCreated(&booking.BookingView{ProductType: "hotel", Status: "confirmed", Test: false, Currency: "EUR",
		TotalPrice: money.Amount{Minor: 12345, Currency: "EUR"}})
	rec.BookingCreated(&booking.BookingView{ProductType: "hotel", Status: "confirmed", Test: false, Currency: "EUR",
		TotalPrice: money.Amount{Minor: 5, Currency: "EUR"}})
	rec.BookingCreated(&booking.BookingView{ProductType: "hotel", Status: "on_request", Test: true, Currency: "JPY",
		TotalPrice: money.Amount{Minor: 9000, Currency: "JPY"}})
	rec.WebhookDelivery(true)
	rec.WebhookDelivery(false)
	rec.WebhookDelivery(false)
	rec.SubscriptionsAutoPaused(2)
	rec.ReplayLedgerFailed()
	rec.ReplayLedgerFailed()

	text := scrape(t, reg)
	for _, want := range []string{
		`tradewind_http_requests_total{partner="7",route="GET /meta/ping",status="200"} 2`,
		`tradewind_http_requests_total{partner="0",route="other",status="404"} 1`,
		`tradewind_http_request_duration_seconds_bucket{route="GET /meta/ping",le="0.05"} 1`,
		`tradewind_http_request_duration_seconds_bucket{route="GET /meta/ping",le="2.5"} 2`,
		`tradewind_http_request_duration_seconds_count{route="GET /meta/ping"} 2`,
		`tradewind_bookings_created_total{mode="live",product="hotel",status="confirmed"} 2`,
		`tradewind_bookings_created_total{mode="test",product="hotel",status="on_request"} 1`,
		`tradewind_credit_drawn_minor_units_total{currency="EUR"} 12350`,
		`tradewind_webhook_deliveries_total{result="delivered"} 1`,
		`tradewind_webhook_deliveries_total{result="failed"} 2`,
		`tradewind_webhook_subscriptions_auto_paused_total 2`,
		`tradewind_replay_ledger_failures_total 2`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s\n%s", want, text)
		}
	}
	if strings.Contains(text, `currency="JPY"`) {
		t.Errorf("a test booking drew credit:\n%s", text)
	}
}

func TestQuotesAhead(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	q := metrics.QuotesAhead{BookKept: 5, BookPricedAgain: 2, PrebookFromModel: 7, PrebookFromStore: 1}
	metrics.RegisterQuotesAhead(reg, func() metrics.QuotesAhead { return q })
	q.BookKept++ // read at each scrape
	text := scrape(t, reg)
	for _, want := range []string{
		`tradewind_bookings_priced_ahead_total{outcome="kept"} 6`,
		`tradewind_bookings_priced_ahead_total{outcome="priced_again"} 2`,
		`tradewind_prebooks_priced_total{from="model"} 7`,
		`tradewind_prebooks_priced_total{from="store"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s\n%s", want, text)
		}
	}
}

// TestRecorderOwnRegistry checks that each Recorder uses only the registry it is given,
// so two servers in one process (tests) never collide on the global registry.
func TestRecorderOwnRegistry(t *testing.T) {
	t.Parallel()
	a, b := prometheus.NewRegistry(), prometheus.NewRegistry()
	metrics.New(a).WebhookDelivery(true)
	metrics.New(b)
	if strings.Contains(scrape(t, b), "tradewind_webhook_deliveries_total{") {
		t.Errorf("registry b shows a delivery recorded in registry a")
	}
	var _ metrics.WebhookObserver = metrics.New(prometheus.NewRegistry())
}
