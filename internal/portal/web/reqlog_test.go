package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRequestLogPages: the list with its filters, mode switch and paging, lookup by
// request id across modes, a request's page with bodies and "copy as curl" for
// developers only, and nothing of another partner's, whatever the URL.
func TestRequestLogPages(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		acme, owner := e.newPartner(t, "acme")
		globex, globexOwner := e.newPartner(t, "globex")
		viewer, _ := e.member(t, "acme", "viewer@acme.example", portal.RoleViewer)
		developer, _ := e.member(t, "acme", "dev@acme.example", portal.RoleDeveloper)
		ctx := context.Background()
		at := apitest.Start.Add(-time.Hour)
		entry := func(partner int64, mode tradewind.Mode, path string, status int, rid string) *store.RequestLogEntry {
			at = at.Add(time.Second)
			return &store.RequestLogEntry{PartnerID: partner, Mode: mode, At: at, Method: "POST", Path: "/api/partner/v1" + path,
				Route: "POST " + path, Status: status, KeyPrefix: "tw_" + string(mode) + "_abcd", RequestID: rid, ClientAddr: "192.0.2.7",
				RequestBody: []byte(`{"product_type":"hotel","guest":{"name":"O'Brien"}}`), RequestSize: 50,
				ResponseBody: []byte(`{"success":false,"code":"validation_error"}`), ResponseSize: 44}
		}
		var es []*store.RequestLogEntry
		for i := range 55 {
			es = append(es, entry(acme.ID, tradewind.ModeTest, fmt.Sprintf("/hotels/search/%d", i), 200, fmt.Sprint("rid-ok-", i)))
		}
		failed := entry(acme.ID, tradewind.ModeTest, "/bookings", 422, "trace-1")
		failed.ErrorCode = "validation_error"
		liveTwin := entry(acme.ID, tradewind.ModeLive, "/bookings/live-twin", 201, "trace-1")
		others := entry(globex.ID, tradewind.ModeTest, "/bookings/globex-secret-path", 422, "trace-1")
		if err := e.api.Store.RequestLogInsert(ctx, append(es, failed, liveTwin, others)); err != nil {
			t.Fatal(err)
		}
		ids := func(body string) []string {
			var out []string
			seen := map[string]bool{}
			for _, m := range regexp.MustCompile(`href="/logs/(\d+)"`).FindAllStringSubmatch(body, -1) {
				if !seen[m[1]] {
					seen[m[1]] = true
					out = append(out, m[1])
				}
			}
			return out
		}

		// Newest first, 50 a page, then the rest; only the mode asked for.
		page := owner.get("/logs?mode=test")
		if page.status != http.StatusOK || len(ids(page.body)) != 50 || !strings.Contains(page.body, "/api/partner/v1/bookings") ||
			strings.Contains(page.body, "live-twin") || strings.Contains(page.body, "globex") {
			t.Fatalf("first page: %d, %d entries\n%s", page.status, len(ids(page.body)), page.body)
		}
		if strings.Index(page.body, "/api/partner/v1/bookings") > strings.Index(page.body, "/hotels/search/54") {
			t.Error("the newest entry is not first")
		}
		next := regexp.MustCompile(`href="/logs\?([^"]+)">Older requests`).FindStringSubmatch(page.body)
		if next == nil {
			t.Fatal("no link to the next page")
		}
		page2 := owner.get("/logs?" + strings.ReplaceAll(next[1], "&amp;", "&"))
		if n := len(ids(page2.body)); n != 6 || strings.Contains(page2.body, "Older requests") {
			t.Errorf("second page: %d entries, want 6", n)
		}
		// Filters.
		if got := owner.get("/logs?mode=test&class=4xx"); len(ids(got.body)) != 1 || !strings.Contains(got.body, "validation_error") {
			t.Errorf("4xx filter: %d entries", len(ids(got.body)))
		}
		if got := owner.get("/logs?mode=test&path=/hotels/search/1&method=post"); len(ids(got.body)) != 11 { // 1, 10..19
			t.Errorf("path prefix filter: %d entries, want 11", len(ids(got.body)))
		}
		if got := owner.get("/logs?mode=live&key=tw_live_abcd"); len(ids(got.body)) != 1 { // a key's prefix, even of a key since deleted
			t.Errorf("key filter: %d entries, want 1", len(ids(got.body)))
		}
		// 9999-12-31, a common "no end", bounds nothing (its next day would compare as
		// text before every stored time).
		if got := owner.get("/logs?mode=test&class=4xx&to=9999-12-31"); len(ids(got.body)) != 1 {
			t.Errorf("to=9999-12-31: %d entries, want 1", len(ids(got.body)))
		}
		if got := owner.get("/logs?status=abc&mode=test"); got.status != http.StatusUnprocessableEntity || !strings.Contains(got.body, "status:") {
			t.Errorf("a bad status filter: %d", got.status)
		}
		// Lookup by request id: both modes, never another partner's.
		found := owner.get("/logs?request_id=trace-1")
		if len(ids(found.body)) != 2 || !strings.Contains(found.body, "live-twin") || strings.Contains(found.body, "globex-secret-path") {
			t.Errorf("lookup of trace-1: %d entries\n%s", len(ids(found.body)), found.body)
		}
		if got := globexOwner.get("/logs?request_id=trace-1"); len(ids(got.body)) != 1 || !strings.Contains(got.body, "globex-secret-path") {
			t.Errorf("globex's lookup of trace-1: %d entries", len(ids(got.body)))
		}

		// A request's page: bodies and curl for developers and above, not for viewers.
		failedID := ids(owner.get("/logs?mode=test&class=4xx").body)[0]
		dev := developer.get("/logs/" + failedID)
		if dev.status != http.StatusOK || !strings.Contains(dev.body, "&#34;product_type&#34;: &#34;hotel&#34;") ||
			!strings.Contains(dev.body, "curl -X &#39;POST&#39;") || !strings.Contains(dev.body, "$TRADEWIND_API_KEY") ||
			!strings.Contains(dev.body, `O&#39;\&#39;&#39;Brien`) || !strings.Contains(dev.body, "validation_error") {
			t.Errorf("developer's view of the failed request:\n%s", dev.body)
		}
		view := viewer.get("/logs/" + failedID)
		if view.status != http.StatusOK || strings.Contains(view.body, "product_type") || strings.Contains(view.body, "curl") ||
			!strings.Contains(view.body, "trace-1") {
			t.Errorf("viewer's view of the failed request shows bodies:\n%s", view.body)
		}
		if got := globexOwner.get("/logs/" + failedID); got.status != http.StatusNotFound {
			t.Errorf("another partner's entry answered %d, want 404", got.status)
		}
		if got := owner.get("/logs/999999"); got.status != http.StatusNotFound {
			t.Errorf("an unknown entry answered %d", got.status)
		}
		_ = acme
	})
}
