package portal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// UsagePeriods are the periods, in days, of the Credit and usage page's charts; the
// first is the default.
var UsagePeriods = []int{7, 30, 90}

// UsagePeriod returns raw as one of UsagePeriods, else the default.
func UsagePeriod(raw int) int {
	if slices.Contains(UsagePeriods, raw) {
		return raw
	}
	return UsagePeriods[0]
}

// Usage is what the member's partner did in one mode over the last Days UTC days
// (today included): API requests per day by outcome and per endpoint, from the usage
// counters (never from the request log), and bookings per day, from the bookings.
type Usage struct {
	Days      []time.Time // UTC midnights, oldest first
	Requests  []int64     // all requests per day
	Outcomes  []*Series   // requests per day by outcome, in outcomeOrder
	Endpoints []RouteCount
	Bookings  []int64   // bookings created per day (cancelled ones included)
	Booked    []*Series // their total price per day, one series per currency (minor units)
	Total     int64     // requests in the period
}

// Series is one named row of per-day values and its total.
type Series struct {
	Name   string
	Kind   string // outcomes: "2xx", "4xx", "429", "5xx", "other"; booked value: the currency
	Values []int64
	Total  int64
}

// RouteCount is the calls to one endpoint ("" when the path matched none).
type RouteCount struct {
	Route string
	Count int64
}

// outcomeOf names a response's outcome on the charts: 2xx together, each 4xx status and
// error code apart, 429, 5xx together.
func outcomeOf(status int, code string) (kind, name string) {
	switch {
	case status >= 200 && status < 300:
		return "2xx", "2xx"
	case status == 429:
		return "429", "429"
	case status >= 400 && status < 500:
		if code == "" {
			return "4xx", fmt.Sprint(status)
		}
		return "4xx", fmt.Sprintf("%d %s", status, code)
	case status >= 500:
		return "5xx", "5xx"
	}
	return "other", "other"
}

var outcomeOrder = []string{"2xx", "4xx", "429", "5xx", "other"}

// usageDays returns the UTC midnights of the n days that end today.
func (s *Service) usageDays(n int) []time.Time {
	today := s.now().Truncate(24 * time.Hour)
	days := make([]time.Time, n)
	for i := range days {
		days[i] = today.AddDate(0, 0, i-n+1)
	}
	return days
}

// Usage gathers the usage of the member's partner in mode over the last days UTC days
// (a value of UsagePeriods).
func (s *Service) Usage(ctx context.Context, m *Member, mode tradewind.Mode, days int) (*Usage, error) {
	u := &Usage{Days: s.usageDays(UsagePeriod(days))}
	n := len(u.Days)
	from, to := u.Days[0], u.Days[n-1].AddDate(0, 0, 1)
	index := func(day time.Time) int { return int(day.UTC().Sub(from) / (24 * time.Hour)) }
	rows, err := s.store.UsageList(ctx, m.Partner.ID, from, to)
	if err != nil {
		return nil, err
	}
	u.Requests = make([]int64, n)
	outcomes := map[string]*Series{}
	routes := map[string]int64{}
	for _, r := range rows {
		i := index(r.Day)
		if r.Mode != mode || i < 0 || i >= n {
			continue
		}
		kind, name := outcomeOf(r.Status, r.ErrorCode)
		o := outcomes[name]
		if o == nil {
			o = &Series{Name: name, Kind: kind, Values: make([]int64, n)}
			outcomes[name] = o
		}
		o.Values[i] += r.Count
		o.Total += r.Count
		u.Requests[i] += r.Count
		u.Total += r.Count
		routes[r.Route] += r.Count
	}
	for _, o := range outcomes {
		u.Outcomes = append(u.Outcomes, o)
	}
	slices.SortFunc(u.Outcomes, func(a, b *Series) int {
		return cmp.Or(cmp.Compare(slices.Index(outcomeOrder, a.Kind), slices.Index(outcomeOrder, b.Kind)), cmp.Compare(a.Name, b.Name))
	})
	for route, c := range routes {
		u.Endpoints = append(u.Endpoints, RouteCount{Route: route, Count: c})
	}
	slices.SortFunc(u.Endpoints, func(a, b RouteCount) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Route, b.Route)) })

	test := mode == tradewind.ModeTest
	daily, err := s.store.BookingDaily(ctx, store.BookingFilter{PartnerID: m.Partner.ID, Test: &test, CreatedFrom: from, CreatedBefore: to})
	if err != nil {
		return nil, err
	}
	u.Bookings = make([]int64, n)
	booked := map[string]*Series{}
	for _, d := range daily {
		i := index(d.Day)
		if i < 0 || i >= n {
			continue
		}
		u.Bookings[i] += d.Count
		v := booked[d.Currency]
		if v == nil {
			v = &Series{Name: d.Currency, Kind: d.Currency, Values: make([]int64, n)}
			booked[d.Currency] = v
			u.Booked = append(u.Booked, v)
		}
		v.Values[i] += d.Value
		v.Total += d.Value
	}
	slices.SortFunc(u.Booked, func(a, b *Series) int { return cmp.Compare(a.Name, b.Name) })
	return u, nil
}

// RequestFigures are the Overview's request counts: today (UTC) and the last 30 days,
// each with how many were answered with an error (4xx or 5xx, 429 included).
type RequestFigures struct {
	Today, TodayErrors, Month, MonthErrors int64
}

// ErrorRate is errors as a share of requests, in percent ("–" without requests).
func ErrorRate(errors, requests int64) string {
	if requests == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", float64(errors)*100/float64(requests))
}

// requestFigures reads the usage counters of the partner's last 30 UTC days in mode.
// The counters are per UTC day, so the short period is today's UTC day.
func (s *Service) requestFigures(ctx context.Context, partnerID int64, mode tradewind.Mode) (RequestFigures, error) {
	days := s.usageDays(30)
	today := days[len(days)-1]
	rows, err := s.store.UsageList(ctx, partnerID, days[0], today.AddDate(0, 0, 1))
	if err != nil {
		return RequestFigures{}, err
	}
	var f RequestFigures
	for _, r := range rows {
		if r.Mode != mode {
			continue
		}
		failed := r.Status >= 400
		f.Month += r.Count
		if failed {
			f.MonthErrors += r.Count
		}
		if r.Day.Equal(today) {
			f.Today += r.Count
			if failed {
				f.TodayErrors += r.Count
			}
		}
	}
	return f, nil
}
