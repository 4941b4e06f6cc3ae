package booking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// Sandbox scenarios: with a test key, the Tradewind-Scenario header forces an outcome
// that is otherwise hard to reach, so that a partner can test every branch of its
// integration. Grammar: a name, then optional "; key=value" parameters
// ("on_request; confirm_after=30"); slow also takes its value directly ("slow=500").

// Operations a scenario may apply to.
const (
	OpPrebook = "prebook" // POST /bookings/prebook
	OpBook    = "book"    // POST /bookings
	OpAny     = "any"     // every endpoint
)

// Scenario is a parsed Tradewind-Scenario header.
type Scenario struct {
	Name string
	// Status forces a new booking's status (on_request, pending); ChangeTo and After
	// schedule its change to confirmed or cancelled (a supplier rejection) After it.
	Status   tradewind.BookingStatus
	ChangeTo tradewind.BookingStatus
	After    time.Duration
	// PricePercent changes the price prebook locks (price_changed).
	PricePercent int64
	// RetryAfter is the Retry-After of rate_limited and unavailable.
	RetryAfter time.Duration
	// Delay is how long slow holds the answer.
	Delay time.Duration
}

// scenarioSpec is what one scenario does and where it applies.
type scenarioSpec struct {
	name    string
	ops     []string
	params  []string // accepted parameters
	effect  string   // for the 400 that lists them
	prepare func(sc *Scenario, params map[string]int64) []string
}

// Limits of scenario parameters.
const (
	MaxScenarioAfter = 3600  // seconds, confirm_after / reject_after / retry_after
	MaxScenarioSlow  = 10000 // milliseconds
)

var scenarios = []scenarioSpec{
	{name: "sold_out", ops: []string{OpPrebook, OpBook}, effect: "422 invalid_quote, as when the item sold out"},
	{name: "price_changed", ops: []string{OpPrebook}, params: []string{"percent"},
		effect: "the locked price differs from availability's by percent (default 10, -90 to 100, not 0), as when a supplier reprices",
		prepare: func(sc *Scenario, p map[string]int64) []string {
			sc.PricePercent = 10
			if v, ok := p["percent"]; ok {
				if v < -90 || v > 100 || v == 0 {
					return []string{"percent: from -90 to 100, not 0"}
				}
				sc.PricePercent = v
			}
			return nil
		}},
	{name: "on_request", ops: []string{OpBook}, params: []string{"confirm_after", "reject_after"},
		effect: "the booking is on_request; confirm_after=SECONDS or reject_after=SECONDS (at most 3600) confirms or rejects it then, with its webhook",
		prepare: func(sc *Scenario, p map[string]int64) []string {
			sc.Status = tradewind.StatusOnRequest
			return timedChange(sc, p)
		}},
	{name: "pending", ops: []string{OpBook}, params: []string{"confirm_after", "reject_after"},
		effect: "the booking is pending; confirm_after / reject_after as for on_request",
		prepare: func(sc *Scenario, p map[string]int64) []string {
			sc.Status = tradewind.StatusPending
			return timedChange(sc, p)
		}},
	{name: "insufficient_credit", ops: []string{OpBook}, effect: "402 insufficient_credit"},
	{name: "credit_blocked", ops: []string{OpBook}, effect: "402 credit_blocked"},
	{name: "rate_limited", ops: []string{OpAny}, params: []string{"retry_after"},
		effect: "429 rate_limited with Retry-After (retry_after=SECONDS, default 1)", prepare: retryAfter},
	{name: "unavailable", ops: []string{OpAny}, params: []string{"retry_after"},
		effect: "503 service_unavailable with Retry-After (retry_after=SECONDS, default 1)", prepare: retryAfter},
	{name: "slow", ops: []string{OpAny}, params: []string{"ms"},
		effect: "the answer comes MILLISECONDS later (slow=MILLISECONDS, at most 10000), then as usual",
		prepare: func(sc *Scenario, p map[string]int64) []string {
			v, ok := p["ms"]
			if !ok || v < 0 || v > MaxScenarioSlow {
				return []string{fmt.Sprintf("slow: give the delay in milliseconds, 0 to %d (slow=500)", MaxScenarioSlow)}
			}
			sc.Delay = time.Duration(v) * time.Millisecond
			return nil
		}},
}

func timedChange(sc *Scenario, p map[string]int64) []string {
	c, hasC := p["confirm_after"]
	r, hasR := p["reject_after"]
	switch {
	case hasC && hasR:
		return []string{"confirm_after and reject_after: give one of them"}
	case hasC:
		sc.ChangeTo, sc.After = tradewind.StatusConfirmed, time.Duration(c)*time.Second
	case hasR:
		sc.ChangeTo, sc.After = tradewind.StatusCancelled, time.Duration(r)*time.Second
	}
	if sc.After < 0 || sc.After > MaxScenarioAfter*time.Second {
		return []string{fmt.Sprintf("confirm_after / reject_after: 0 to %d seconds", MaxScenarioAfter)}
	}
	return nil
}

func retryAfter(sc *Scenario, p map[string]int64) []string {
	sc.RetryAfter = time.Second
	if v, ok := p["retry_after"]; ok {
		if v < 1 || v > MaxScenarioAfter {
			return []string{fmt.Sprintf("retry_after: 1 to %d seconds", MaxScenarioAfter)}
		}
		sc.RetryAfter = time.Duration(v) * time.Second
	}
	return nil
}

// opName is how the 400 names an operation.
var opName = map[string]string{OpPrebook: "POST /bookings/prebook", OpBook: "POST /bookings", OpAny: "every endpoint"}

// knownScenarios lists every scenario, where it applies and what it does, one string each.
func knownScenarios() []string {
	var out []string
	for _, sp := range scenarios {
		var where []string
		for _, op := range sp.ops {
			where = append(where, opName[op])
		}
		out = append(out, fmt.Sprintf("%s (%s): %s", sp.name, strings.Join(where, ", "), sp.effect))
	}
	return out
}

// HeaderScenario is the request header that selects a sandbox scenario.
const HeaderScenario = "Tradewind-Scenario"

// ParseScenario reads a Tradewind-Scenario header for an operation (OpPrebook, OpBook,
// or "" for any other endpoint) of a caller. A live key, a malformed header, an unknown
// scenario or one the operation cannot apply is 400 bad_request; the last two list every
// known scenario and where it applies.
func ParseScenario(header, op string, test bool) (*Scenario, error) {
	if !test {
		return nil, tradewind.Invalid([]string{HeaderScenario + ": scenarios are for test keys only; remove the header from live requests"})
	}
	if len(header) > 200 {
		return nil, tradewind.Invalid([]string{HeaderScenario + ": at most 200 characters"})
	}
	parts := strings.Split(header, ";")
	name, value, hasValue := strings.Cut(strings.TrimSpace(parts[0]), "=")
	name = strings.TrimSpace(name)
	i := slices.IndexFunc(scenarios, func(sp scenarioSpec) bool { return sp.name == name })
	if i < 0 {
		return nil, unknownScenario(fmt.Sprintf("%s: unknown scenario %q", HeaderScenario, clip(name)))
	}
	sp := scenarios[i]
	if !slices.Contains(sp.ops, OpAny) && !slices.Contains(sp.ops, op) {
		return nil, unknownScenario(fmt.Sprintf("%s: %s does not apply to this endpoint", HeaderScenario, name))
	}
	var p problems
	params := map[string]int64{}
	if hasValue { // slow=500: the value of the scenario's one parameter
		if len(sp.params) != 1 {
			p.add("%s: %s takes no value; parameters follow a semicolon", HeaderScenario, name)
		} else {
			parts = append(parts, sp.params[0]+"="+value)
		}
	}
	for _, raw := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(raw), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case !ok || k == "":
			p.add("%s: %q is not key=value", HeaderScenario, clip(raw))
		case !slices.Contains(sp.params, k):
			if len(sp.params) == 0 {
				p.add("%s: %s takes no parameters", HeaderScenario, name)
			} else {
				p.add("%s: %s takes %s, not %q", HeaderScenario, name, strings.Join(sp.params, " or "), clip(k))
			}
		case err != nil:
			p.add("%s: %s must be an integer", HeaderScenario, k)
		default:
			if _, dup := params[k]; dup {
				p.add("%s: %s given twice", HeaderScenario, k)
			}
			params[k] = n
		}
	}
	sc := &Scenario{Name: name}
	if len(p) == 0 && sp.prepare != nil {
		for _, msg := range sp.prepare(sc, params) {
			p.add("%s: %s", HeaderScenario, msg)
		}
	}
	if len(p) > 0 {
		return nil, p.err()
	}
	return sc, nil
}

func unknownScenario(problem string) error {
	return &tradewind.Error{Code: tradewind.ECodeBadRequest,
		Message: "Unknown or inapplicable " + HeaderScenario + "; the known scenarios and where they apply are listed.",
		Details: append([]string{problem}, knownScenarios()...)}
}

// scenario returns the caller's scenario (never for a live key) or nil.
func (c *Caller) scenario() *Scenario {
	if c.Scenario == nil || !c.Test() {
		return nil
	}
	return c.Scenario
}

// is reports whether the caller asked for scenario name.
func (c *Caller) is(name string) bool {
	sc := c.scenario()
	return sc != nil && sc.Name == name
}

// scenarioQuote applies the scenarios of prebook and book to a priced quote.
func (c *Caller) scenarioQuote(pq *pricedQuote, op string) error {
	switch {
	case c.is("sold_out"):
		return invalidQuote(tradewind.ReasonSoldOut, "The item is no longer available for these dates and party (scenario sold_out).")
	case c.is("price_changed") && op == OpPrebook:
		pq.Total = repriced(pq.Total, c.Scenario.PricePercent)
	case c.is("insufficient_credit") && op == OpBook:
		return tradewind.Errorf(tradewind.ECodeInsufficientCredit, "The booking of %s exceeds the available credit (scenario insufficient_credit).",
			money.Amount{Minor: pq.Total, Currency: pq.Currency})
	case c.is("credit_blocked") && op == OpBook:
		return tradewind.Errorf(tradewind.ECodeCreditBlocked, "The account is on hold; bookings cannot draw credit (scenario credit_blocked).")
	}
	return nil
}

// repriced is total changed by percent, rounded half away from zero, at least one minor
// unit away from total and never below one.
func repriced(total, percent int64) int64 {
	delta := (total*percent*2 + 100*sign(percent)) / 200
	if delta == 0 {
		delta = sign(percent)
	}
	return max(total+delta, 1)
}

func sign(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

// scheduleScenario applies on_request / pending to a new booking and schedules its
// timed change, in the booking's transaction.
func (c *Caller) scheduleScenario(ctx context.Context, tx store.Querier, b *tradewind.Booking, now time.Time) error {
	sc := c.scenario()
	if sc == nil || sc.ChangeTo == "" {
		return nil
	}
	return tx.SandboxTimerCreate(ctx, store.SandboxTimer{BookingID: b.ID, Action: sc.ChangeTo, DueAt: now.Add(sc.After)})
}

// scenarioStatus is the status a scenario forces on a new booking, or "".
func (c *Caller) scenarioStatus() tradewind.BookingStatus {
	if sc := c.scenario(); sc != nil {
		return sc.Status
	}
	return ""
}

// RunSandboxTimers carries out the scenario changes that are due (on_request / pending
// with confirm_after or reject_after): it confirms or rejects each booking, with its
// webhook, and forgets the timer. A booking that meanwhile left pending / on_request (the
// partner cancelled it) is left as it is. It returns how many bookings changed. The
// periodic job calls it every second; several servers may run it at once.
func (s *Service) RunSandboxTimers(ctx context.Context) (int, error) {
	due, err := s.Store.SandboxTimersDue(ctx, s.now(), 100)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, t := range due {
		if t.Status == tradewind.StatusOnRequest || t.Status == tradewind.StatusPending {
			var err error
			if t.Action == tradewind.StatusConfirmed {
				_, err = s.Confirm(ctx, t.Reference)
			} else {
				_, err = s.Reject(ctx, t.Reference, "sandbox scenario")
			}
			var te *tradewind.Error
			switch {
			case err == nil:
				changed++
			case errors.As(err, &te): // changed meanwhile by another server or the partner
			default:
				return changed, err
			}
		}
		if err := s.Store.SandboxTimerDelete(ctx, t.BookingID); err != nil {
			return changed, err
		}
	}
	return changed, nil
}
