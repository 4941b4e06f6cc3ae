package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
)

// pathID reads a numeric path segment; anything else names nothing (404).
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, errPageNotFound
	}
	return id, nil
}

func queryID(r *http.Request, name string) int64 {
	id, _ := strconv.ParseInt(r.URL.Query().Get(name), 10, 64)
	return max(id, 0)
}

func (s *Server) overviewShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	mode := portal.Mode(r.URL.Query().Get("mode"))
	o, err := s.portal.Overview(r.Context(), m, mode)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "overview", &view{Title: "Overview", Member: m, Nav: "overview", Mode: string(mode), Data: o})
}

type creditPage struct {
	Partner *tradewind.Partner
	Entries []*store.LedgerEntry
	Next    int64
	Usage   *usageView
}

func (s *Server) creditShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	entries, next, err := s.portal.Ledger(r.Context(), m, queryID(r, "before"))
	if err != nil {
		return err
	}
	mode := portal.Mode(r.URL.Query().Get("mode")) // the usage charts' side; the ledger is live only
	days, _ := strconv.Atoi(r.URL.Query().Get("days"))
	days = portal.UsagePeriod(days)
	usage, err := s.portal.Usage(r.Context(), m, mode, days)
	if err != nil {
		return err
	}
	page := creditPage{Partner: m.Partner, // loaded with the session on every request
		Entries: entries, Next: next, Usage: newUsageView(usage, days)}
	return s.render(w, r, http.StatusOK, "credit", &view{Title: "Credit and usage", Member: m, Nav: "credit", Mode: string(mode), Data: page})
}

func (s *Server) keyList(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	keys, err := s.portal.Keys(r.Context(), m)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "keys", &view{Title: "API keys", Member: m, Nav: "keys", Data: keys})
}

type webhooksPage struct {
	Subscriptions []*store.Subscription
	Created       *booking.SubscriptionView
}

func (s *Server) webhooksView(r *http.Request, m *portal.Member, created *booking.SubscriptionView) (*view, error) {
	subs, err := s.portal.Subscriptions(r.Context(), m)
	if err != nil {
		return nil, err
	}
	return &view{Title: "Webhooks", Member: m, Nav: "webhooks", Data: webhooksPage{Subscriptions: subs, Created: created}}, nil
}

func (s *Server) webhookList(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	v, err := s.webhooksView(r, m, nil)
	if err != nil {
		return err
	}
	switch {
	case r.URL.Query().Get("deleted") == "1":
		v.Notice = "The subscription was deleted."
	case r.URL.Query().Get("paused") == "1":
		v.Notice = "The subscription is paused: its deliveries wait until you resume it."
	case r.URL.Query().Has("resumed"):
		v.Notice = fmt.Sprintf("The subscription is resumed: %d delivery(ies) are due and go out shortly, those that failed while it was failing or paused included.",
			queryID(r, "resumed"))
	}
	return s.render(w, r, http.StatusOK, "webhooks", v)
}

func (s *Server) webhookCreate(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	created, err := s.portal.CreateSubscription(r.Context(), m, r.PostForm.Get("url"), r.PostForm["event_types"], s.clientAddr(r))
	v, verr := s.webhooksView(r, m, created)
	if verr != nil {
		return verr
	}
	if err != nil {
		return s.formError(w, r, "webhooks", v, err)
	}
	// The secret is shown in this answer only; reloading it does not show it again.
	return s.render(w, r, http.StatusCreated, "webhooks", v)
}

func (s *Server) webhookDelete(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.portal.DeleteSubscription(r.Context(), m, id, s.clientAddr(r)); err != nil {
		return err
	}
	http.Redirect(w, r, "/webhooks?deleted=1", http.StatusSeeOther)
	return nil
}

// webhookPause pauses a subscription from the Webhooks page or its own page, and goes
// back to the Webhooks page, which shows the pause.
func (s *Server) webhookPause(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.portal.PauseSubscription(r.Context(), m, id, s.clientAddr(r)); err != nil {
		return err
	}
	http.Redirect(w, r, "/webhooks?paused=1", http.StatusSeeOther)
	return nil
}

func (s *Server) webhookResume(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	n, err := s.portal.ResumeSubscription(r.Context(), m, id, s.clientAddr(r))
	if err != nil {
		return err
	}
	http.Redirect(w, r, fmt.Sprintf("/webhooks?resumed=%d", n), http.StatusSeeOther)
	return nil
}

type webhookPage struct {
	*portal.SubscriptionDeliveries
	NewSecret string // after a roll, shown once
}

func (s *Server) webhookView(r *http.Request, m *portal.Member, id int64, newSecret string) (*view, error) {
	mode := portal.Mode(r.URL.Query().Get("mode"))
	d, err := s.portal.Deliveries(r.Context(), m, id, mode, queryID(r, "before"))
	if err != nil {
		return nil, err
	}
	return &view{Title: "Webhook deliveries", Member: m, Nav: "webhooks", Mode: string(mode), Data: webhookPage{d, newSecret}}, nil
}

func (s *Server) webhookRoll(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	secret, _, err := s.portal.RollSecret(r.Context(), m, id, s.clientAddr(r))
	if err != nil {
		return err
	}
	v, err := s.webhookView(r, m, id, secret)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "webhook", v) // the new secret is in this answer only
}

func (s *Server) webhookShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	v, err := s.webhookView(r, m, id, "")
	if err != nil {
		return err
	}
	switch {
	case r.URL.Query().Get("redelivered") != "":
		v.Notice = "The event is due again and will be delivered shortly."
	case r.URL.Query().Get("tested") != "":
		v.Notice = "A test event is on its way; it is listed below, with the test deliveries, with its attempts."
	}
	return s.render(w, r, http.StatusOK, "webhook", v)
}

func (s *Server) webhookTest(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := s.portal.SendTestEvent(r.Context(), m, id, r.PostFormValue("event_type"), s.clientAddr(r)); err != nil {
		return err
	}
	// Sample events are test data: their deliveries are listed on the test side.
	http.Redirect(w, r, fmt.Sprintf("/webhooks/%d?mode=test&tested=1", id), http.StatusSeeOther)
	return nil
}

func (s *Server) eventRedeliver(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if _, err := s.portal.Redeliver(r.Context(), m, r.PathValue("id"), s.clientAddr(r)); err != nil {
		return err
	}
	back := localNext(r.PostFormValue("back"))
	if back == "/" {
		back = "/webhooks"
	}
	// Back to the same side of the test/live switch.
	q := url.Values{"redelivered": {"1"}}
	if m := r.PostFormValue("mode"); m != "" {
		q.Set("mode", string(portal.Mode(m)))
	}
	http.Redirect(w, r, back+"?"+q.Encode(), http.StatusSeeOther)
	return nil
}

type auditPage struct {
	Entries []*store.AuditEntry
	Next    int64
}

func (s *Server) auditShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	entries, err := s.portal.Audit(r.Context(), m, queryID(r, "before"))
	if err != nil {
		return err
	}
	page := auditPage{Entries: entries}
	if len(entries) == portal.PageSize {
		page.Next = entries[len(entries)-1].ID
	}
	return s.render(w, r, http.StatusOK, "audit", &view{Title: "Audit log", Member: m, Nav: "audit", Data: page})
}
