package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

// webhookCmd is the operator's view of webhook deliveries.
type webhookCmd struct {
	List       webhookListCmd       `cmd:"" help:"List active webhook subscriptions (never their secrets)."`
	Deliveries webhookDeliveriesCmd `cmd:"" help:"List webhook deliveries, newest first, with their attempts."`
	Redeliver  webhookRedeliverCmd  `cmd:"" help:"Send an event again to every active subscription that received it."`
	Pause      webhookPauseCmd      `cmd:"" help:"Pause a subscription: its deliveries wait until it is resumed."`
	Resume     webhookResumeCmd     `cmd:"" help:"Resume a paused subscription and redeliver what failed while it was failing or paused."`
}

type webhookDeliveriesCmd struct {
	Partner string `name:"partner" help:"Only this partner's deliveries."`
	Event   string `name:"event" help:"Only the deliveries of this event (evt_…)."`
	Status  string `name:"status" enum:",pending,succeeded,failed" default:"" help:"Only deliveries in this state: pending, succeeded or failed."`
	Limit   int    `name:"limit" default:"100" help:"At most this many deliveries (1–1000)."`
}

// deliveryView is a delivery as the operator sees it, with every attempt.
type deliveryView struct {
	ID             int64         `json:"id"`
	EventID        string        `json:"event_id"`
	EventType      string        `json:"event_type"`
	Partner        string        `json:"partner"`
	SubscriptionID int64         `json:"subscription_id"`
	URL            string        `json:"url"`
	Status         string        `json:"status"`
	NextAttemptAt  *time.Time    `json:"next_attempt_at"` // pending deliveries only
	LastError      string        `json:"last_error"`
	CreatedAt      time.Time     `json:"created_at"`
	UpdatedAt      time.Time     `json:"updated_at"`
	Attempts       []attemptView `json:"attempts"`
}

// attemptView is one attempt of a delivery.
type attemptView struct {
	AttemptedAt time.Time `json:"attempted_at"`
	StatusCode  int       `json:"status_code"` // 0 when no answer was received
	Error       string    `json:"error"`
	Response    string    `json:"response"` // the start of the receiver's answer
	DurationMS  int64     `json:"duration_ms"`
}

func (c *webhookDeliveriesCmd) Run(e *env) error {
	if c.Limit < 1 || c.Limit > 1000 {
		return errors.New("--limit: 1–1000")
	}
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := svc.Deliveries(e.ctx, booking.DeliveryQuery{PartnerName: c.Partner, EventID: c.Event, Status: c.Status, Limit: c.Limit})
	if err != nil {
		return noPartner(err, c.Partner)
	}
	views := []deliveryView{}
	for _, d := range r.Deliveries {
		v := deliveryView{ID: d.ID, EventID: d.EventID, EventType: string(d.EventType), Partner: r.PartnerNames[d.PartnerID], SubscriptionID: d.SubscriptionID,
			URL: d.URL, Status: d.Status, LastError: d.LastError, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
			Attempts: []attemptView{}}
		for _, a := range r.Attempts[d.ID] {
			v.Attempts = append(v.Attempts, attemptView{AttemptedAt: a.AttemptedAt, StatusCode: a.StatusCode,
				Error: a.Error, Response: a.ResponseSnippet, DurationMS: a.Duration.Milliseconds()})
		}
		if d.Status == store.DeliveryPending {
			next := d.NextAttemptAt
			v.NextAttemptAt = &next
		}
		views = append(views, v)
	}
	return e.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "DELIVERY\tEVENT\tTYPE\tPARTNER\tSUBSCRIPTION\tSTATUS\tATTEMPTS\tNEXT ATTEMPT\tLAST ERROR")
		for _, v := range views {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n", v.ID, v.EventID, v.EventType, v.Partner, v.SubscriptionID,
				v.Status, len(v.Attempts), timeOrDash(v.NextAttemptAt), orDash(v.LastError))
			for i, a := range v.Attempts {
				fmt.Fprintf(w, "\t  attempt %d\t%s\t%s\t%d ms\t\t\t\t%s\n", i+1, a.AttemptedAt.Format(time.RFC3339),
					statusOrDash(a.StatusCode), a.DurationMS, orDash(a.Error))
			}
		}
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func statusOrDash(code int) string {
	if code == 0 {
		return "no answer"
	}
	return fmt.Sprintf("HTTP %d", code)
}

type webhookRedeliverCmd struct {
	EventID string `arg:"" name:"EVENT_ID" help:"The event to send again (evt_…; see: tradewind webhook deliveries)."`
}

func (c *webhookRedeliverCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := svc.Redeliver(e.ctx, c.EventID)
	if isNotFound(err) {
		return fmt.Errorf("no event %q (see: tradewind webhook deliveries)", c.EventID)
	}
	if err != nil {
		return err
	}
	return e.print(map[string]any{"event_id": c.EventID, "deliveries": n}, func(w io.Writer) {
		if n == 0 {
			fmt.Fprintf(w, "Event %s was not delivered to any subscription that is still active: nothing to send.\n", c.EventID)
			return
		}
		fmt.Fprintf(w, "Event %s is due again for %d subscription(s); a running server sends it within a second.\n", c.EventID, n)
	})
}

type webhookPauseCmd struct {
	ID int64 `arg:"" name:"ID" help:"The subscription's id."`
}

func (c *webhookPauseCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	if err := svc.PauseSubscription(e.ctx, 0, c.ID, booking.PauseReasonOperator, booking.ActorOperator); err != nil {
		return err
	}
	return e.print(map[string]any{"id": c.ID, "paused": true}, func(w io.Writer) {
		fmt.Fprintf(w, "Subscription %d is paused: its deliveries wait until `tradewind webhook resume %d`.\n", c.ID, c.ID)
	})
}

type webhookResumeCmd struct {
	ID int64 `arg:"" name:"ID" help:"The subscription's id."`
}

func (c *webhookResumeCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := svc.ResumeSubscription(e.ctx, 0, c.ID, booking.ActorOperator)
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": c.ID, "paused": false, "deliveries": n}, func(w io.Writer) {
		fmt.Fprintf(w, "Subscription %d is resumed; %d delivery(ies) are due and a running server sends them within a second.\n", c.ID, n)
	})
}

type webhookListCmd struct {
	Partner string `name:"partner" help:"Only this partner's subscriptions."`
}

func (c *webhookListCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := svc.ListAllSubscriptions(e.ctx, c.Partner)
	if err != nil {
		return noPartner(err, c.Partner)
	}
	return e.print(list, func(w io.Writer) {
		if len(list) == 0 {
			fmt.Fprintln(w, "No active webhook subscriptions.")
			return
		}
		fmt.Fprintln(w, "ID\tPARTNER\tURL\tEVENT TYPES\tCREATED")
		for _, s := range list {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", s.ID, s.Partner, s.URL, strings.Join(s.EventTypes, ","), s.CreatedAt.Format(time.RFC3339))
		}
	})
}
