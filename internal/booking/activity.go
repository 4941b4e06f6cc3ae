package booking

import (
	"context"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// ActivitySearchRequest is the body of POST /activities/search.
type ActivitySearchRequest struct {
	Destination string `json:"destination"`
	City        string `json:"city"` // alias of destination
	Date        string `json:"date"`
	Adults      *int   `json:"adults"`
	Children    int    `json:"children"`
	Infants     int    `json:"infants"`
	Category    string `json:"category"`
	Page        *int   `json:"page"`
	PerPage     *int   `json:"per_page"`
}

// ActivityHit is one activity search result, priced for the whole party.
type ActivityHit struct {
	ActivityID          int64        `json:"activity_id"`
	Name                string       `json:"name"`
	Category            string       `json:"category"`
	City                string       `json:"city"`
	DurationHours       float64      `json:"duration_hours"`
	ImageURL            string       `json:"image_url"`
	InstantConfirmation bool         `json:"instant_confirmation"`
	SeatsAvailable      int          `json:"seats_available"`
	FromPrice           money.Amount `json:"from_price"`
	Currency            string       `json:"currency"`
}

// ActivitySearchResult is the data of an activity search.
type ActivitySearchResult struct {
	Destination string                `json:"destination"`
	Date        string                `json:"date"`
	Adults      int                   `json:"adults"`
	Children    int                   `json:"children"`
	Infants     int                   `json:"infants"`
	Category    *string               `json:"category"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Activities  []ActivityHit         `json:"activities"`
	hint                              // when empty, a city without activities (Hinted)
}

// activityKinds are the unit kinds an activity search reads.
var activityKinds = []tradewind.UnitKind{tradewind.UnitActivity}

// SearchActivities returns the activities of a city with seats for the party on the
// date, optionally of one category, each priced for the party, cheapest first.
func (s *Service) SearchActivities(ctx context.Context, c *Caller, req *ActivitySearchRequest) (res *ActivitySearchResult, meta PageMeta, err error) {
	defer wrap(&err, "search activities")
	if err := c.RequireProduct(tradewind.ProductActivity); err != nil {
		return nil, meta, err
	}
	var p problems
	dest := destination(&p, req.Destination, req.City)
	p.date("date", req.Date, s.todayDate())
	pt := validParty(&p, intOr(req.Adults, defaultAdults), req.Children, req.Infants)
	p.maxLen("category", req.Category, 100)
	pg := pageOf(&p, req.Page, req.PerPage)
	if err := p.err(); err != nil {
		return nil, meta, err
	}
	// Each activity with seats for the party kept as a small candidate; the hits are
	// built for the page only.
	category := strings.TrimSpace(req.Category)
	con := c.contract()
	found := activityCandidates.get()
	defer func() { activityCandidates.put(found) }()
	err = scanCity(ctx, s.reads(), tradewind.ProductActivity, dest, activityKinds, req.Date, req.Date, func(a *catalog.Activity, stock ItemStock) {
		if category != "" && !strings.EqualFold(a.Category, category) {
			return
		}
		left := freeOn(stock.Days(tradewind.UnitActivity, a.ID))
		if left < pt.seats() {
			return
		}
		found = append(found, activityCandidate{a, left, pt.price(con, a.Pricing)})
	})
	if err != nil {
		return nil, meta, err
	}
	cands, meta := cheapestPage(found, c, func(x activityCandidate) money.Amount { return money.Amount{Minor: x.price, Currency: x.a.Currency} }, pg)
	page := make([]ActivityHit, len(cands))
	for i, x := range cands {
		a := x.a
		page[i] = ActivityHit{ActivityID: a.ID, Name: a.Name, Category: a.Category, City: a.City,
			DurationHours: a.DurationHours, ImageURL: a.ImageURL, InstantConfirmation: a.InstantConfirmation,
			SeatsAvailable: x.left, FromPrice: money.Amount{Minor: x.price, Currency: a.Currency}, Currency: a.Currency}
	}
	res = &ActivitySearchResult{Destination: dest, Date: req.Date, Adults: pt.adults, Children: pt.children,
		Infants: pt.infants, PricingMode: c.Partner.PricingMode, Activities: page,
		hint: s.emptySearchHint(ctx, tradewind.ProductActivity, dest, meta.Total)}
	if category != "" {
		res.Category = &category
	}
	return res, meta, nil
}

// ActivityRecord is the catalog record of an activity as a partner sees it.
type ActivityRecord struct {
	ID                  int64         `json:"id"`
	Type                string        `json:"type"`
	Name                string        `json:"name"`
	Category            string        `json:"category"`
	City                string        `json:"city"`
	Description         string        `json:"description"`
	DurationHours       float64       `json:"duration_hours"`
	Languages           []string      `json:"languages"`
	InstantConfirmation bool          `json:"instant_confirmation"`
	Currency            string        `json:"currency"`
	ImageURL            string        `json:"image_url"`
	Photos              []string      `json:"photos"`
	Pricing             PersonPricing `json:"pricing"`
}

// Activity returns the catalog record of an activity, prices in the caller's pricing mode.
func (s *Service) Activity(ctx context.Context, c *Caller, id int64) (*ActivityRecord, error) {
	if err := c.RequireProduct(tradewind.ProductActivity); err != nil {
		return nil, err
	}
	a, err := getItem[catalog.Activity](ctx, s.reads(), tradewind.ProductActivity, id)
	if err != nil {
		return nil, mapNotFound(err, "Activity")
	}
	return &ActivityRecord{ID: a.ID, Type: string(tradewind.ProductActivity), Name: a.Name, Category: a.Category,
		City: a.City, Description: a.Description, DurationHours: a.DurationHours, Languages: orEmpty(a.Languages),
		InstantConfirmation: a.InstantConfirmation, Currency: a.Currency, ImageURL: a.ImageURL, Photos: orEmpty(a.Photos),
		Pricing: personPricing(c.contract(), a.Pricing, a.Currency)}, nil
}

// ActivityAvailabilityRequest is the body of POST /activities/availability.
type ActivityAvailabilityRequest struct {
	ActivityID int64  `json:"activity_id"`
	Date       string `json:"date"`
	Adults     *int   `json:"adults"`
	Children   int    `json:"children"`
	Infants    int    `json:"infants"`
}

// ActivityAvailability is the data of POST /activities/availability.
type ActivityAvailability struct {
	ActivityID          int64                 `json:"activity_id"`
	Date                string                `json:"date"`
	Adults              int                   `json:"adults"`
	Children            int                   `json:"children"`
	Infants             int                   `json:"infants"`
	Available           bool                  `json:"available"`
	SeatsAvailable      int                   `json:"seats_available"`
	InstantConfirmation bool                  `json:"instant_confirmation"`
	Pricing             PersonPricing         `json:"pricing"`
	TotalPrice          money.Amount          `json:"total_price"`
	Currency            string                `json:"currency"`
	PricingMode         tradewind.PricingMode `json:"pricing_mode"`
}

// ActivityAvailability tells whether the activity has seats for the party on the date,
// and prices the party.
func (s *Service) ActivityAvailability(ctx context.Context, c *Caller, req *ActivityAvailabilityRequest) (res *ActivityAvailability, err error) {
	defer wrap(&err, "activity availability")
	if err := c.RequireProduct(tradewind.ProductActivity); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("activity_id", req.ActivityID)
	p.date("date", req.Date, s.todayDate())
	pt := validParty(&p, intOr(req.Adults, defaultActivityCheckAdults), req.Children, req.Infants)
	if err := p.err(); err != nil {
		return nil, err
	}
	a, err := getItem[catalog.Activity](ctx, s.reads(), tradewind.ProductActivity, req.ActivityID)
	if err != nil {
		return nil, mapNotFound(err, "Activity")
	}
	left, err := unitFreeOn(ctx, s.reads(), tradewind.UnitActivity, a.ID, req.Date)
	if err != nil {
		return nil, err
	}
	return &ActivityAvailability{ActivityID: a.ID, Date: req.Date, Adults: pt.adults, Children: pt.children,
		Infants: pt.infants, Available: left >= pt.seats(), SeatsAvailable: left, InstantConfirmation: a.InstantConfirmation,
		Pricing: personPricing(c.contract(), a.Pricing, a.Currency), Currency: a.Currency, PricingMode: c.Partner.PricingMode,
		TotalPrice: money.Amount{Minor: pt.price(c.contract(), a.Pricing), Currency: a.Currency}}, nil
}

// activityProduct quotes and books seats of an activity on one date.
type activityProduct struct{}

func (activityProduct) fields() []string {
	return []string{"activity_id", "date", "adults", "children", "infants"}
}

func (activityProduct) validate(q *QuoteRequest, today time.Time) problems {
	var p problems
	p.positiveID("activity_id", q.ActivityID)
	p.date("date", q.Date, today)
	p.party(p.requiredCount("adults", q.Adults, 1), q.Children, q.Infants)
	return p
}

func (activityProduct) price(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	a, err := getItem[catalog.Activity](ctx, db, tradewind.ProductActivity, q.ActivityID)
	if err != nil {
		return nil, quoteNotFound(err, "activity %d does not exist", q.ActivityID)
	}
	pt := party{q.Adults, q.Children, q.Infants}
	left, err := unitFreeOn(ctx, db, tradewind.UnitActivity, a.ID, q.Date)
	if err != nil {
		return nil, err
	}
	if left < pt.seats() {
		return nil, seatShortage(a.Name, left, q.Date, pt.seats())
	}
	return &pricedQuote{Total: pt.price(c.contract(), a.Pricing), Currency: a.Currency, Instant: a.InstantConfirmation,
		Policy: policyModerate, ItemID: a.ID, StartDate: q.Date, EndDate: q.Date, OpenStatus: tradewind.StatusOnRequest,
		Claim: store.Claim{Kind: tradewind.UnitActivity, ItemID: a.ID, UnitID: a.ID, From: q.Date, To: q.Date, Quantity: pt.seats()},
		Details: map[string]any{"activity_id": a.ID, "date": q.Date, "adults": pt.adults, "children": pt.children,
			"infants": pt.infants}}, nil
}

// activityCandidate is an item a search found, kept small until the page is chosen.
type activityCandidate struct {
	a     *catalog.Activity
	left  int
	price int64
}

var activityCandidates scratch[activityCandidate]
