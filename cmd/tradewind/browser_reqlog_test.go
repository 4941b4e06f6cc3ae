package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRequestLogInBrowser: a failing API call of the demo partner is found in the
// portal's request log by the X-Request-Id of its answer, and its page shows both
// bodies and a curl command without the key. Screenshotted and checked with axe-core.
func TestRequestLogInBrowser(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			requestLogFlow(t, o.DSN(t), artefactDir(t, o.Name))
		})
	}
}

func requestLogFlow(t *testing.T, dsn, shots string) {
	doc, s := startServeJSON(t, dsn, "--demo")
	demo := doc["demo"].(map[string]any)
	key := demo["test_key"].(string)

	// A booking without a guest fails, with a request id of the server's making.
	req, _ := http.NewRequest(http.MethodPost, s.base+"/bookings",
		strings.NewReader(`{"product_type":"hotel","hotel_id":1,"room_id":1,"check_in":"2031-05-01","check_out":"2031-05-03","rooms":1,"adults":2}`))
	req.Header.Set("auth-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "browser-log-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rid := resp.Header.Get("X-Request-Id")
	var failed struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(answer, &failed)
	if resp.StatusCode < 400 || rid == "" || failed.Code == "" {
		t.Fatalf("the failing call answered %d (request id %q): %s", resp.StatusCode, rid, answer)
	}

	owner := newTab(t, demo["portal_url"].(string), shots)
	owner.open("/signin")
	owner.fill(map[string]string{"#email": demo["portal_email"].(string), "#password": demo["portal_password"].(string)}, "main form button")
	owner.expect("Overview")

	// The writer writes within its flush interval (a second): look until it has.
	owner.open("/logs")
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(owner.text("main"), rid); {
		if time.Now().After(deadline) {
			t.Fatalf("request %s never appeared in the request log", rid)
		}
		owner.fill(map[string]string{"#f-rid": rid}, `form[role=search] button`)
	}
	owner.expect("Every request with the id", "POST /api/partner/v1/bookings", failed.Code)
	owner.check("request-logs")
	owner.do(chromedp.Click(chromedp.CSS(`#results tbody a`)), chromedp.WaitReady(chromedp.CSS("#response-body")))
	owner.expect("POST /api/partner/v1/bookings", rid, "browser-log-1", "Request body", `"product_type": "hotel"`,
		"Response body", `"code": "`+failed.Code+`"`, "Copy as curl", "$TRADEWIND_API_KEY")
	if strings.Contains(owner.text("main"), key) {
		t.Error("the request's page shows the API key")
	}
	owner.check("request-log")
}
