package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/money"
)

// TestAppendedEnvelopeAsEncodingJSON checks that an answer whose data appends its own
// JSON is written, message or none, with the bytes and headers encoding/json gave the
// envelope (writeJSON of successBody), and that a prebook whose expiry encoding/json
// refuses fails as it did (an empty body).
func TestAppendedEnvelopeAsEncodingJSON(t *testing.T) {
	res := &booking.PrebookResult{PrebookToken: "pbk_x", ExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ProductType: "hotel",
		TotalPrice: money.Amount{Minor: 12345, Currency: "EUR"}, Currency: "EUR", InstantConfirmation: true, CancellationPolicy: "refundable"}
	msgs := []string{"Price locked until 2026-01-02T03:04:05Z.", "", `odd " \ <&> é 東京 ` + "\x01\xff\u2028"}
	for _, msg := range append(msgs, "none") {
		r := withMessage(http.StatusOK, msg, res)
		if msg == "none" {
			r = ok(res)
		}
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		writeSuccess(got, r)
		writeJSON(want, r.Status, successBody{Success: true, Message: r.Message, Data: r.Data, Meta: r.Meta})
		if got.Code != want.Code || got.Body.String() != want.Body.String() ||
			got.Header().Get("Content-Length") != want.Header().Get("Content-Length") ||
			got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("message %q:\n got %d %v %s\nwant %d %v %s", msg, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
		}
	}
	far := *res
	far.ExpiresAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	got, want := httptest.NewRecorder(), httptest.NewRecorder()
	writeSuccess(got, withMessage(http.StatusOK, "m", byEncodingJSON{&far}))
	msg := "m"
	writeJSON(want, http.StatusOK, successBody{Success: true, Message: &msg, Data: &far})
	if got.Body.String() != want.Body.String() || got.Header().Get("Content-Length") != want.Header().Get("Content-Length") {
		t.Errorf("year 10000: got %q (%s), want %q (%s)", got.Body, got.Header().Get("Content-Length"), want.Body, want.Header().Get("Content-Length"))
	}
}
