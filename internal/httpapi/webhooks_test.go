package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func webhookBody(url string, types ...string) map[string]any {
	return map[string]any{"url": url, "event_types": types}
}

func deleteWebhook(env *apitest.Env, key string, id any) *apitest.Response {
	env.TB.Helper()
	return env.Do(apitest.Request{Method: http.MethodDelete, Path: fmt.Sprintf("/webhooks/%v", id), Key: key})
}

// expectProblems fails the test unless r is 422 validation_failed listing each of want.
func expectProblems(t *testing.T, r *apitest.Response, want ...string) {
	t.Helper()
	r.Expect(t, http.StatusUnprocessableEntity, "validation_failed")
	if len(r.Errors) != len(want) {
		t.Fatalf("errors = %q, want %d problems", r.Errors, len(want))
	}
	for _, w := range want {
		if !slices.ContainsFunc(r.Errors, func(e string) bool { return strings.Contains(e, w) }) {
			t.Errorf("errors %q do not mention %q", r.Errors, w)
		}
	}
}

func TestWebhookSubscriptions(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		acme := env.NewPartner("acme", booking.PartnerParams{})
		globex := env.NewPartner("globex", booking.PartnerParams{})

		r := env.Post(acme.TestKey, "/webhooks", webhookBody("https://hooks.acme.example/tw?src=1",
			"booking.confirmed", "availability.changed", "booking.confirmed")).Expect(t, http.StatusCreated, "")
		var created booking.SubscriptionView
		r.Decode(t, &created)
		if created.ID == 0 || created.URL != "https://hooks.acme.example/tw?src=1" || !created.Active ||
			!slices.Equal(created.EventTypes, []string{"booking.confirmed", "availability.changed"}) ||
			!created.CreatedAt.Equal(apitest.Start) || !strings.HasPrefix(created.Secret, "whsec_") || len(created.Secret) < 32 {
			t.Fatalf("created = %+v", created)
		}
		if r.Message == nil || !strings.Contains(*r.Message, "shown only once") {
			t.Errorf("message = %v", r.Message)
		}

		// The secret is never shown again.
		list := env.Get(acme.LiveKey, "/webhooks").Expect(t, http.StatusOK, "")
		if strings.Contains(string(list.Raw), created.Secret) || strings.Contains(string(list.Raw), `"secret"`) {
			t.Fatalf("the list reveals the secret: %s", list.Raw)
		}
		var subs []booking.SubscriptionView
		list.Decode(t, &subs)
		if len(subs) != 1 || subs[0].ID != created.ID || !slices.Equal(subs[0].EventTypes, created.EventTypes) {
			t.Fatalf("list = %+v", subs)
		}
		if !strings.Contains(string(list.Meta), `"total":1`) {
			t.Errorf("meta = %s", list.Meta)
		}
		if got := env.Get(globex.LiveKey, "/webhooks").Expect(t, http.StatusOK, ""); string(got.Data) != "[]" {
			t.Errorf("another partner sees %s", got.Data)
		}

		// Every problem is listed, each naming its field.
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("http://hooks.acme.example/tw", "booking.updated", "booking.cancelled", "x")),
			"url: must use https", `event_types[0]: "booking.updated"`, `event_types[2]: "x"`)
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("")), "url is required", "event_types: at least one")
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("hooks.acme.example/tw", "booking.cancelled")), "url: must be an absolute https URL")
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("https://user:pw@hooks.acme.example/", "booking.cancelled")), "url: must not contain credentials")
		for _, port := range []string{"0", "65536", "99999"} {
			expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("https://hooks.acme.example:"+port+"/", "booking.cancelled")), "url: port "+port+" is not between 1 and 65535")
		}
		env.Post(acme.TestKey, "/webhooks", map[string]any{"url": "https://hooks.acme.example/", "event_types": []string{"booking.cancelled"}, "active": false}).
			Expect(t, http.StatusBadRequest, "bad_request")
		env.Post(acme.TestKey, "/webhooks", map[string]any{"url": 7, "event_types": "booking.cancelled"}).
			Expect(t, http.StatusBadRequest, "bad_request")

		// At most 10 active subscriptions; the 11th is refused with the other problems.
		for i := 2; i <= 10; i++ {
			env.Post(acme.TestKey, "/webhooks", webhookBody(fmt.Sprintf("https://hooks.acme.example/%d", i), "booking.cancelled")).
				Expect(t, http.StatusCreated, "")
		}
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("https://hooks.acme.example/11", "booking.cancelled")),
			"at most 10 active subscriptions")
		expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("ftp://hooks.acme.example/11", "nope")),
			"url: must use https", `event_types[0]: "nope"`, "at most 10 active subscriptions")
		env.Post(globex.TestKey, "/webhooks", webhookBody("https://hooks.globex.example/", "booking.cancelled")).Expect(t, http.StatusCreated, "")
		env.Post(globex.TestKey, "/webhooks", webhookBody("https://hooks.globex.example:8443/", "booking.cancelled")).Expect(t, http.StatusCreated, "")

		// Deletion: only the partner's own, once.
		deleteWebhook(env, globex.LiveKey, created.ID).Expect(t, http.StatusNotFound, "not_found")
		deleteWebhook(env, acme.LiveKey, 999999).Expect(t, http.StatusNotFound, "not_found")
		deleteWebhook(env, acme.LiveKey, "abc").Expect(t, http.StatusBadRequest, "bad_request")
		del := deleteWebhook(env, acme.LiveKey, created.ID).Expect(t, http.StatusOK, "")
		if m := del.Map(t); m["id"] != float64(created.ID) || m["deleted"] != true {
			t.Errorf("delete data = %v", m)
		}
		deleteWebhook(env, acme.LiveKey, created.ID).Expect(t, http.StatusNotFound, "not_found")
		env.Get(acme.LiveKey, "/webhooks").Expect(t, http.StatusOK, "").Decode(t, &subs)
		if len(subs) != 9 || slices.ContainsFunc(subs, func(s booking.SubscriptionView) bool { return s.ID == created.ID }) {
			t.Fatalf("after delete: %d subscriptions", len(subs))
		}
		env.Post(acme.TestKey, "/webhooks", webhookBody("https://hooks.acme.example/11", "booking.cancelled")).Expect(t, http.StatusCreated, "")

		// Pages.
		page := env.Get(acme.LiveKey, "/webhooks?page=2&per_page=4").Expect(t, http.StatusOK, "")
		page.Decode(t, &subs)
		if len(subs) != 4 || !strings.Contains(string(page.Meta), `"total":10`) || !strings.Contains(string(page.Meta), `"total_pages":3`) {
			t.Errorf("page 2 = %d items, meta %s", len(subs), page.Meta)
		}

		// The scope.
		noScope := env.NewKey("acme", booking.KeyParams{Mode: "live", Scopes: []string{"booking:read"}})
		env.Get(noScope, "/webhooks").Expect(t, http.StatusForbidden, "insufficient_scope")
		env.Post(noScope, "/webhooks", webhookBody("https://hooks.acme.example/x", "booking.cancelled")).Expect(t, http.StatusForbidden, "insufficient_scope")
		deleteWebhook(env, noScope, subs[0].ID).Expect(t, http.StatusForbidden, "insufficient_scope")
	})
}

// TestWebhookURLMustBePublic: a subscription to a loopback, private, link-local,
// multicast or numerically spelled host is refused when it is created (decisions.md),
// every problem listed; serve --webhook-allow-private (AllowPrivateWebhooks) accepts a
// plainly spelt private host.
func TestWebhookURLMustBePublic(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		acme := env.NewPartner("acme", booking.PartnerParams{})
		for _, host := range []string{"127.0.0.1", "localhost", "10.0.0.7", "192.168.1.1", "169.254.169.254", "[::1]", "[fe80::1]",
			"224.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1"} {
			expectProblems(t, env.Post(acme.TestKey, "/webhooks", webhookBody("https://"+host+":8443/hook", "booking.cancelled")),
				"webhooks are delivered to public hosts only")
		}
		env.Post(acme.TestKey, "/webhooks", webhookBody("https://93.184.216.34/hook", "booking.cancelled")).Expect(t, http.StatusCreated, "")

		dev := apitest.New(t, o, apitest.AllowPrivateWebhooks)
		local := dev.NewPartner("local", booking.PartnerParams{})
		dev.Post(local.TestKey, "/webhooks", webhookBody("https://127.0.0.1:8443/hook", "booking.cancelled")).Expect(t, http.StatusCreated, "")
		dev.Post(local.TestKey, "/webhooks", webhookBody("https://[::1]:8443/hook", "booking.cancelled")).Expect(t, http.StatusCreated, "")
		// Private hosts allowed, a numeric host is still spelt plainly or refused (what it
		// names depends on the resolver), and plain http is still refused, with how to
		// make a local receiver that is accepted.
		for _, host := range []string{"2130706433", "0x7f000001", "0177.0.0.1", "127.1"} {
			expectProblems(t, dev.Post(local.TestKey, "/webhooks", webhookBody("https://"+host+":8443/hook", "booking.cancelled")),
				"url: a numeric host must be written as a plain IPv4 or IPv6 address")
		}
		expectProblems(t, dev.Post(local.TestKey, "/webhooks", webhookBody("http://127.0.0.1:8080/hook", "booking.cancelled")),
			"url: must use https, not http, on a local receiver too: serve it over TLS, and start the server with SSL_CERT_FILE naming its certificate (docs/webhooks.md)")
	})
}
