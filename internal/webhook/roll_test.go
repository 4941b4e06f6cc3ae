package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/store"
)

// TestSigningSecretsDuringARoll: both secrets sign until the roll's time, then the new
// one alone.
func TestSigningSecretsDuringARoll(t *testing.T) {
	now := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	c := &store.ClaimedDelivery{Secret: "old"}
	if s, n := signingSecrets(c, now); s != "old" || n != "" {
		t.Errorf("no roll: %q %q", s, n)
	}
	c.NextSecret, c.NextSecretFrom = "new", now.Add(time.Hour)
	if s, n := signingSecrets(c, now); s != "old" || n != "new" {
		t.Errorf("during the roll: %q %q", s, n)
	}
	if s, n := signingSecrets(c, now.Add(time.Hour)); s != "new" || n != "" {
		t.Errorf("after the roll: %q %q", s, n)
	}
}

// TestDeliverRollingSignsTwice: the receiver may verify with either secret.
func TestDeliverRollingSignsTwice(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer srv.Close()
	now := time.Now()
	body := []byte(`{"id":"evt_1"}`)
	a := NewDeliverer(true, 0, nil).DeliverRolling(context.Background(), srv.URL, "old-secret", "new-secret", "evt_1",
		"booking.confirmed", body, now)
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	for _, secret := range []string{"old-secret", "new-secret"} {
		if err := client.VerifyWebhook(secret, got, body, 0, now); err != nil {
			t.Errorf("verify with %s: %v", secret, err)
		}
	}
	if err := client.VerifyWebhook("other", got, body, 0, now); err == nil {
		t.Error("a third secret verified")
	}
	if got.Get(client.HeaderSignature) == got.Get(client.HeaderSignatureNext) {
		t.Error("both headers carry the same signature")
	}
}
