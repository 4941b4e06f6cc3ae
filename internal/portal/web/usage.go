package web

import (
	"fmt"
	"html/template"

	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/portal/chart"
)

// usageView is the usage section of the Credit and usage page: the charts and the
// numbers they draw.
type usageView struct {
	*portal.Usage
	Period   int
	Periods  []int
	Labels   []string // the days, as the charts and the table show them
	Outcome  template.HTML
	Booking  template.HTML
	Value    []template.HTML // one chart per currency booked in
	Endpoint template.HTML
}

// outcomeColors colour the outcomes: successes green, client errors in shades of orange
// (one per status and code), 429 purple, 5xx red.
var outcomeColors = map[string]string{"2xx": "#2e7d32", "429": "#6a1b9a", "5xx": "#c62828", "other": "#757575"}

var clientErrorColors = []string{"#ef6c00", "#f9a825", "#8d6e63", "#ffb74d", "#d84315", "#a1887f"}

var currencyColors = []string{"#1565c0", "#00838f", "#5e35b1", "#546e7a"}

func newUsageView(u *portal.Usage, period int) *usageView {
	v := &usageView{Usage: u, Period: period, Periods: portal.UsagePeriods}
	for _, d := range u.Days {
		v.Labels = append(v.Labels, d.Format("Jan 2"))
	}
	var outcomes []chart.Series
	clientErrors := 0
	for _, o := range u.Outcomes {
		color, ok := outcomeColors[o.Kind]
		if !ok {
			color = clientErrorColors[clientErrors%len(clientErrorColors)]
			clientErrors++
		}
		outcomes = append(outcomes, chart.Series{Name: o.Name, Color: color, Values: o.Values})
	}
	v.Outcome = chart.Bars{ID: "chart-requests", Title: fmt.Sprintf("API requests per day by outcome, last %d days", period),
		Labels: v.Labels, Series: outcomes}.SVG()
	v.Booking = chart.Bars{ID: "chart-bookings", Title: fmt.Sprintf("Bookings per day, last %d days", period), Labels: v.Labels,
		Series: []chart.Series{{Name: "bookings", Color: "#1565c0", Values: u.Bookings}}}.SVG()
	// One chart per currency: amounts of different currencies do not add up.
	for i, b := range u.Booked {
		currency := b.Name
		v.Value = append(v.Value, chart.Bars{ID: "chart-value-" + currency, Title: fmt.Sprintf("Booked value per day in %s, last %d days", currency, period),
			Labels: v.Labels, Series: []chart.Series{{Name: currency, Color: currencyColors[i%len(currencyColors)], Values: b.Values}},
			Format: func(minor int64) string { return money.Format(minor, currency) }}.SVG())
	}
	var routes []string
	var counts []int64
	for _, e := range u.Endpoints {
		routes = append(routes, routeName(e.Route))
		counts = append(counts, e.Count)
	}
	v.Endpoint = chart.Ranking{ID: "chart-endpoints", Title: fmt.Sprintf("Calls per endpoint, last %d days", period), Labels: routes,
		Values: counts, Color: "#1565c0"}.SVG()
	return v
}

// routeName is how an endpoint is shown: its pattern, or a note for paths that matched none.
func routeName(route string) string {
	if route == "" {
		return "(no such endpoint)"
	}
	return route
}
