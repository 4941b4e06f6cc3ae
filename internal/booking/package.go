package booking

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// maxAddons bounds addon_ids in one request.
const maxAddons = 20

// A package occupies its travel date through travel date + duration_nights, but its
// seats (departure seats or open-package seats per day) are counted on the travel date
// only: that is the one day its inventory claim takes.

// PackageSearchRequest is the body of POST /packages/search.
type PackageSearchRequest struct {
	Destination string `json:"destination"`
	City        string `json:"city"`      // alias of destination
	DateFrom    string `json:"date_from"` // first travel date considered; default today
	DateTo      string `json:"date_to"`   // last travel date considered; default today + 500 days
	Adults      *int   `json:"adults"`
	Children    int    `json:"children"`
	Infants     int    `json:"infants"`
	Page        *int   `json:"page"`
	PerPage     *int   `json:"per_page"`
}

// PackageHit is one package search result at its cheapest option in the window, priced
// for the whole party without add-ons. DepartureID and TravelDate name that option.
type PackageHit struct {
	PackageID           int64        `json:"package_id"`
	Name                string       `json:"name"`
	City                string       `json:"city"`
	Country             string       `json:"country"`
	Kind                string       `json:"kind"`
	DurationNights      int          `json:"duration_nights"`
	ImageURL            string       `json:"image_url"`
	InstantConfirmation bool         `json:"instant_confirmation"`
	DepartureID         *int64       `json:"departure_id"` // null on an open package
	TravelDate          string       `json:"travel_date"`
	FromPrice           money.Amount `json:"from_price"`
	Currency            string       `json:"currency"`
}

// PackageSearchResult is the data of a package search.
type PackageSearchResult struct {
	Destination string                `json:"destination"`
	DateFrom    string                `json:"date_from"`
	DateTo      string                `json:"date_to"`
	Adults      int                   `json:"adults"`
	Children    int                   `json:"children"`
	Infants     int                   `json:"infants"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Packages    []PackageHit          `json:"packages"`
	hint                              // when empty, a city without packages (Hinted)
}

// pkgOption is one way to travel on a package: a departure of a fixed package or a
// travel date of an open one, with its per-person net prices and seats left.
type pkgOption struct {
	departureID int64 // 0 on an open package
	date        string
	prices      catalog.PersonPrices
	left        int
	unitKind    tradewind.UnitKind // tradewind.UnitDeparture or tradewind.UnitPackageDay
	unitID      int64              // the departure, or the open package
}

// departureRef is the option's departure id for JSON: null on an open package.
func (o *pkgOption) departureRef() *int64 {
	if o.departureID == 0 {
		return nil
	}
	id := o.departureID
	return &id
}

// packageInventory is the seat inventory of some packages over a window: departure
// seats by departure id and open-package seats by package id.
type packageInventory struct {
	departures, days map[int64][]DayStock
}

// loadPackageInventory reads the seats of the given packages on days from..to.
func loadPackageInventory(ctx context.Context, db Reads, ids []int64, from, to string) (inv packageInventory, err error) {
	q := store.InventoryQuery{Kind: tradewind.UnitDeparture, ItemIDs: ids, From: from, To: to}
	if inv.departures, err = rowsByUnit(ctx, db, q); err != nil {
		return inv, err
	}
	q.Kind = tradewind.UnitPackageDay
	inv.days, err = rowsByUnit(ctx, db, q)
	return inv, err
}

// options lists p's options found in the inventory, in date order.
func (inv packageInventory) options(p *catalog.Package) []pkgOption {
	var out []pkgOption
	if p.Kind == catalog.PackageOpen {
		for _, r := range inv.days[p.ID] {
			out = append(out, pkgOption{date: r.Day, prices: *p.Pricing, left: r.Free, unitKind: tradewind.UnitPackageDay, unitID: p.ID})
		}
		return out
	}
	for _, d := range p.Departures {
		if rows := inv.departures[d.ID]; len(rows) > 0 {
			out = append(out, departureOption(d, rows[0].Free))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date < out[j].date })
	return out
}

// dateWindow checks an optional window of travel dates, by default today through the
// last bookable day.
func dateWindow(p *problems, from, to string, today time.Time) (string, string) {
	okFrom, okTo := true, true
	if from == "" {
		from = today.Format(tradewind.DateLayout)
	} else {
		_, okFrom = p.date("date_from", from, today)
	}
	if to == "" {
		to = today.AddDate(0, 0, maxDaysAhead).Format(tradewind.DateLayout)
	} else {
		_, okTo = p.date("date_to", to, today)
	}
	if okFrom && okTo && to < from {
		p.add("date_to must not be before date_from")
	}
	return from, to
}

// packageKinds are the unit kinds a package search reads.
var packageKinds = []tradewind.UnitKind{tradewind.UnitDeparture, tradewind.UnitPackageDay}

// SearchPackages returns the packages of a city with an option in the window that has
// seats for the party, each at its cheapest such option (earliest on a tie), cheapest first.
func (s *Service) SearchPackages(ctx context.Context, c *Caller, req *PackageSearchRequest) (res *PackageSearchResult, meta PageMeta, err error) {
	defer wrap(&err, "search packages")
	if err := c.RequireProduct(tradewind.ProductPackage); err != nil {
		return nil, meta, err
	}
	var p problems
	dest := destination(&p, req.Destination, req.City)
	from, to := dateWindow(&p, req.DateFrom, req.DateTo, s.todayDate())
	pt := validParty(&p, intOr(req.Adults, defaultAdults), req.Children, req.Infants)
	pg := pageOf(&p, req.Page, req.PerPage)
	if err := p.err(); err != nil {
		return nil, meta, err
	}
	// Each package at its cheapest option with seats for the party (earliest on a tie),
	// kept as a small candidate; the hits are built for the page only. An open package
	// costs the same every day, so its cheapest option is its first day with the seats:
	// the search stops there instead of walking the window.
	con := c.contract()
	seats := pt.seats()
	found := packageCandidates.get()
	defer func() { packageCandidates.put(found) }()
	err = scanCity(ctx, s.reads(), tradewind.ProductPackage, dest, packageKinds, from, to, func(pkg *catalog.Package, stock ItemStock) {
		if pkg.Kind == catalog.PackageOpen {
			if day, ok := stock.FirstFree(tradewind.UnitPackageDay, pkg.ID, seats); ok {
				found = append(found, packageCandidate{pkg, 0, day.Day, pt.price(con, *pkg.Pricing)})
			}
			return
		}
		best := packageCandidate{pkg: pkg}
		for i := range pkg.Departures {
			d := &pkg.Departures[i]
			rows := stock.Days(tradewind.UnitDeparture, d.ID)
			if len(rows) == 0 || rows[0].Free < seats {
				continue
			}
			// The cheapest, then the earliest, then the first listed (as the options of
			// a package in date order were chosen before this scan).
			price := pt.price(con, d.Pricing)
			if best.departureID == 0 || price < best.price || (price == best.price && d.Date < best.date) {
				best.departureID, best.date, best.price = d.ID, d.Date, price
			}
		}
		if best.departureID != 0 {
			found = append(found, best)
		}
	})
	if err != nil {
		return nil, meta, err
	}
	cands, meta := cheapestPage(found, c, func(x packageCandidate) money.Amount { return money.Amount{Minor: x.price, Currency: x.pkg.Currency} }, pg)
	page := make([]PackageHit, len(cands))
	for i, x := range cands {
		pkg := x.pkg
		page[i] = PackageHit{PackageID: pkg.ID, Name: pkg.Name, City: pkg.City, Country: pkg.Country, Kind: pkg.Kind,
			DurationNights: pkg.DurationNights, ImageURL: pkg.ImageURL, InstantConfirmation: pkg.InstantConfirmation,
			TravelDate: x.date, FromPrice: money.Amount{Minor: x.price, Currency: pkg.Currency}, Currency: pkg.Currency}
		if x.departureID != 0 {
			page[i].DepartureID = &cands[i].departureID
		}
	}
	return &PackageSearchResult{Destination: dest, DateFrom: from, DateTo: to, Adults: pt.adults, Children: pt.children,
		Infants: pt.infants, PricingMode: c.Partner.PricingMode, Packages: page,
		hint: s.emptySearchHint(ctx, tradewind.ProductPackage, dest, meta.Total)}, meta, nil
}

// PackageRecord is the catalog record of a package as a partner sees it. A fixed package
// lists its upcoming departures (travel_dates empty, pricing null); an open package lists
// its travel_dates from today and its per-person pricing (departures empty).
type PackageRecord struct {
	ID                  int64                  `json:"id"`
	Type                string                 `json:"type"`
	Name                string                 `json:"name"`
	City                string                 `json:"city"`
	Country             string                 `json:"country"`
	Description         string                 `json:"description"`
	DurationNights      int                    `json:"duration_nights"`
	Kind                string                 `json:"kind"`
	InstantConfirmation bool                   `json:"instant_confirmation"`
	Currency            string                 `json:"currency"`
	ImageURL            string                 `json:"image_url"`
	Photos              []string               `json:"photos"`
	Itinerary           []catalog.ItineraryDay `json:"itinerary"`
	Addons              []PackageAddon         `json:"addons"`
	Departures          []PackageDeparture     `json:"departures"`
	TravelDates         []DateRange            `json:"travel_dates"`
	Pricing             *PersonPricing         `json:"pricing"`
}

// PackageAddon is an optional extra of a package, priced per person (infants free).
type PackageAddon struct {
	ID             int64        `json:"id"`
	Name           string       `json:"name"`
	PricePerPerson money.Amount `json:"price_per_person"`
	Currency       string       `json:"currency"`
}

// PackageDeparture is an upcoming departure of a fixed package.
type PackageDeparture struct {
	ID        int64         `json:"id"`
	Date      string        `json:"date"`
	EndDate   string        `json:"end_date"`
	SeatsLeft int           `json:"seats_left"`
	Pricing   PersonPricing `json:"pricing"`
}

// DateRange is an inclusive range of dates.
type DateRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Package returns the catalog record of a package, prices in the caller's pricing mode.
func (s *Service) Package(ctx context.Context, c *Caller, id int64) (rec *PackageRecord, err error) {
	defer wrap(&err, "package %d", id)
	if err := c.RequireProduct(tradewind.ProductPackage); err != nil {
		return nil, err
	}
	p, err := getItem[catalog.Package](ctx, s.reads(), tradewind.ProductPackage, id)
	if err != nil {
		return nil, mapNotFound(err, "Package")
	}
	con, today := c.contract(), s.today()
	// What can be booked: travel dates and departures from today to 500 days ahead.
	last := s.todayDate().AddDate(0, 0, maxDaysAhead).Format(tradewind.DateLayout)
	rec = &PackageRecord{ID: p.ID, Type: string(tradewind.ProductPackage), Name: p.Name, City: p.City, Country: p.Country,
		Description: p.Description, DurationNights: p.DurationNights, Kind: p.Kind, InstantConfirmation: p.InstantConfirmation,
		Currency: p.Currency, ImageURL: p.ImageURL, Photos: orEmpty(p.Photos), Itinerary: orEmpty(p.Itinerary),
		Addons: []PackageAddon{}, Departures: []PackageDeparture{}, TravelDates: []DateRange{}}
	for _, a := range p.Addons {
		rec.Addons = append(rec.Addons, PackageAddon{ID: a.ID, Name: a.Name, Currency: p.Currency,
			PricePerPerson: money.Amount{Minor: con.Line(a.PricePerPerson), Currency: p.Currency}})
	}
	if p.Kind == catalog.PackageOpen {
		pr := personPricing(con, *p.Pricing, p.Currency)
		rec.Pricing = &pr
		for _, r := range p.TravelDates {
			if r.End >= today && r.Start <= last {
				rec.TravelDates = append(rec.TravelDates, DateRange{Start: max(r.Start, today), End: min(r.End, last)})
			}
		}
		return rec, nil
	}
	inv, err := loadPackageInventory(ctx, s.reads(), []int64{p.ID}, today, last)
	if err != nil {
		return nil, err
	}
	for _, o := range inv.options(p) {
		rec.Departures = append(rec.Departures, PackageDeparture{ID: o.departureID, Date: o.date,
			EndDate: addDays(o.date, p.DurationNights), SeatsLeft: o.left, Pricing: personPricing(con, o.prices, p.Currency)})
	}
	return rec, nil
}

// PackageAvailabilityRequest is the body of POST /packages/availability.
type PackageAvailabilityRequest struct {
	PackageID   int64   `json:"package_id"`
	DepartureID int64   `json:"departure_id"`
	TravelDate  string  `json:"travel_date"`
	Adults      *int    `json:"adults"`
	Children    int     `json:"children"`
	Infants     int     `json:"infants"`
	AddonIDs    []int64 `json:"addon_ids"`
}

// AddonLine is one add-on priced for a party: price_per_person × persons (adults and
// children; infants free).
type AddonLine struct {
	ID             int64        `json:"id"`
	Name           string       `json:"name"`
	PricePerPerson money.Amount `json:"price_per_person"`
	Persons        int          `json:"persons"`
	TotalPrice     money.Amount `json:"total_price"`
	Currency       string       `json:"currency"`
}

// PackageAvailability is the data of POST /packages/availability: a priced preview.
type PackageAvailability struct {
	PackageID           int64                 `json:"package_id"`
	Kind                string                `json:"kind"`
	DepartureID         *int64                `json:"departure_id"`
	TravelDate          string                `json:"travel_date"`
	EndDate             string                `json:"end_date"`
	DurationNights      int                   `json:"duration_nights"`
	Adults              int                   `json:"adults"`
	Children            int                   `json:"children"`
	Infants             int                   `json:"infants"`
	Available           bool                  `json:"available"`
	SeatsLeft           int                   `json:"seats_left"`
	InstantConfirmation bool                  `json:"instant_confirmation"`
	Pricing             PersonPricing         `json:"pricing"`
	PackagePrice        money.Amount          `json:"package_price"`
	Addons              []AddonLine           `json:"addons"`
	TotalPrice          money.Amount          `json:"total_price"`
	Currency            string                `json:"currency"`
	PricingMode         tradewind.PricingMode `json:"pricing_mode"`
}

// PackageAvailability previews the price of a package option for a party and add-ons,
// and tells whether the option has the seats.
func (s *Service) PackageAvailability(ctx context.Context, c *Caller, req *PackageAvailabilityRequest) (res *PackageAvailability, err error) {
	defer wrap(&err, "package availability")
	if err := c.RequireProduct(tradewind.ProductPackage); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("package_id", req.PackageID)
	validatePackageChoice(&p, req.DepartureID, req.TravelDate, req.AddonIDs, s.todayDate())
	pt := validParty(&p, intOr(req.Adults, defaultAdults), req.Children, req.Infants)
	if err := p.err(); err != nil {
		return nil, err
	}
	pkg, err := getItem[catalog.Package](ctx, s.reads(), tradewind.ProductPackage, req.PackageID)
	if err != nil {
		return nil, mapNotFound(err, "Package")
	}
	o, addons, err := packageChoice(ctx, s.reads(), pkg, req.DepartureID, req.TravelDate, req.AddonIDs, badRequest)
	if err != nil {
		return nil, err
	}
	if o.date < s.today() {
		return nil, badRequest(fmt.Sprintf("departure_id: departure %d left on %s", o.departureID, o.date))
	}
	if err := s.departureWithinReach(o.date); err != nil {
		return nil, err
	}
	pr := pricePackage(c.contract(), pt, o, addons, pkg.Currency)
	return &PackageAvailability{PackageID: pkg.ID, Kind: pkg.Kind, DepartureID: o.departureRef(), TravelDate: o.date,
		EndDate: addDays(o.date, pkg.DurationNights), DurationNights: pkg.DurationNights, Adults: pt.adults,
		Children: pt.children, Infants: pt.infants, Available: o.left >= pt.seats(), SeatsLeft: o.left,
		InstantConfirmation: pkg.InstantConfirmation, Pricing: personPricing(c.contract(), o.prices, pkg.Currency),
		PackagePrice: pr.base, Addons: pr.addons, TotalPrice: pr.total, Currency: pkg.Currency,
		PricingMode: c.Partner.PricingMode}, nil
}

// validatePackageChoice checks the option and add-on fields of a package request.
func validatePackageChoice(p *problems, departureID int64, travelDate string, addonIDs []int64, today time.Time) {
	switch {
	case departureID != 0 && travelDate != "":
		p.add("departure_id, travel_date: send one of them, departure_id for a fixed package or travel_date for an open one")
	case departureID == 0 && travelDate == "":
		p.add("departure_id (fixed package) or travel_date (open package) is required")
	case departureID < 0:
		p.add("departure_id: must be a positive integer")
	case travelDate != "":
		p.date("travel_date", travelDate, today)
	}
	if len(addonIDs) > maxAddons {
		p.add("addon_ids: at most %d add-ons", maxAddons)
	}
	seen := map[int64]bool{}
	for i, id := range addonIDs {
		if id <= 0 {
			p.add("addon_ids[%d]: must be a positive integer", i)
		} else if seen[id] {
			p.add("addon_ids[%d]: add-on %d is listed twice", i, id)
		}
		seen[id] = true
	}
}

// rejectFunc turns the reason a request names no valid option or add-on into its error:
// 400 bad_request on availability, 422 invalid_quote on prebook and book.
type rejectFunc func(reason string) error

func badRequest(reason string) error { return tradewind.Invalid([]string{reason}) }

func quoteRejected(reason string) error {
	return invalidQuote(tradewind.ReasonUnknownOption, "%s.", reason)
}

// packageChoice resolves the option and add-ons a request names on pkg and reads the
// option's seats left. A travel date outside an open package's travel_dates has 0 seats.
func packageChoice(ctx context.Context, db Reads, pkg *catalog.Package, departureID int64, travelDate string,
	addonIDs []int64, reject rejectFunc) (*pkgOption, []catalog.Addon, error) {
	o, err := packageOption(pkg, departureID, travelDate, reject)
	if err != nil {
		return nil, nil, err
	}
	if o.left, err = unitFreeOn(ctx, db, o.unitKind, o.unitID, o.date); err != nil {
		return nil, nil, err
	}
	byID := map[int64]catalog.Addon{}
	for _, a := range pkg.Addons {
		byID[a.ID] = a
	}
	addons := []catalog.Addon{}
	for _, id := range addonIDs {
		a, ok := byID[id]
		if !ok {
			return nil, nil, reject(fmt.Sprintf("addon_ids: %d is not an add-on of package %d", id, pkg.ID))
		}
		addons = append(addons, a)
	}
	return o, addons, nil
}

// packageOption finds the option named on pkg, its seats not yet read.
func packageOption(pkg *catalog.Package, departureID int64, travelDate string, reject rejectFunc) (*pkgOption, error) {
	if pkg.Kind == catalog.PackageOpen {
		if departureID != 0 {
			return nil, reject(fmt.Sprintf("departure_id: package %d is an open package; send travel_date", pkg.ID))
		}
		return &pkgOption{date: travelDate, prices: *pkg.Pricing, unitKind: tradewind.UnitPackageDay, unitID: pkg.ID}, nil
	}
	if travelDate != "" {
		return nil, reject(fmt.Sprintf("travel_date: package %d is a fixed package; send departure_id", pkg.ID))
	}
	if d := unitByID(pkg.Departures, departureID, func(d *catalog.Departure) int64 { return d.ID }); d != nil {
		o := departureOption(*d, 0)
		return &o, nil
	}
	return nil, reject(fmt.Sprintf("departure_id: %d is not a departure of package %d", departureID, pkg.ID))
}

// departureOption is the option of a fixed package's departure with left seats.
func departureOption(d catalog.Departure, left int) pkgOption {
	return pkgOption{departureID: d.ID, date: d.Date, prices: d.Pricing, left: left, unitKind: tradewind.UnitDeparture, unitID: d.ID}
}

// packagePrice is a package option priced for a party with add-ons.
type packagePrice struct {
	base, total money.Amount
	addons      []AddonLine
}

// pricePackage prices the party on the option, then each add-on per person (adults and
// children, infants free), one rounded line per person.
func pricePackage(con pricing.Contract, pt party, o *pkgOption, addons []catalog.Addon, currency string) packagePrice {
	amount := func(minor int64) money.Amount { return money.Amount{Minor: minor, Currency: currency} }
	base := pt.price(con, o.prices)
	out := packagePrice{base: amount(base), addons: []AddonLine{}}
	total := base
	for _, a := range addons {
		line := con.PerPerson(pt.adults, pt.children, 0, a.PricePerPerson, a.PricePerPerson, 0)
		total += line
		out.addons = append(out.addons, AddonLine{ID: a.ID, Name: a.Name, PricePerPerson: amount(con.Line(a.PricePerPerson)),
			Persons: pt.seats(), TotalPrice: amount(line), Currency: currency})
	}
	out.total = amount(total)
	return out
}

// packageProduct quotes and books seats of a package departure or open travel date.
type packageProduct struct{}

func (packageProduct) fields() []string {
	return []string{"package_id", "departure_id", "travel_date", "addon_ids", "adults", "children", "infants",
		"travellers"}
}

func (packageProduct) validate(q *QuoteRequest, today time.Time) problems {
	var p problems
	p.positiveID("package_id", q.PackageID)
	validatePackageChoice(&p, q.DepartureID, q.TravelDate, q.AddonIDs, today)
	p.party(p.requiredCount("adults", q.Adults, 1), q.Children, q.Infants)
	validateTravellers(&p, q.Travellers, today)
	if _, ok := catalog.ParseDate(q.TravelDate); ok {
		// An open package's travel date is in the request: ages are judged with the
		// other problems. A fixed departure's date is read with the package (price).
		p = append(p, travellerAges(q.Travellers, q.TravelDate)...)
	}
	return p
}

func (packageProduct) price(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	pkg, err := getItem[catalog.Package](ctx, db, tradewind.ProductPackage, q.PackageID)
	if err != nil {
		return nil, quoteNotFound(err, "package %d does not exist", q.PackageID)
	}
	o, addons, err := packageChoice(ctx, db, pkg, q.DepartureID, q.TravelDate, q.AddonIDs, quoteRejected)
	if err != nil {
		return nil, err
	}
	if errs := travellerAges(q.Travellers, o.date); len(errs) > 0 {
		return nil, errs.err()
	}
	pt := party{q.Adults, q.Children, q.Infants}
	if o.left < pt.seats() {
		return nil, seatShortage(pkg.Name, o.left, o.date, pt.seats())
	}
	if len(q.Travellers) > 0 {
		if err := matchTravellers(q); err != nil {
			return nil, err
		}
	}
	details := map[string]any{"package_id": pkg.ID, "addon_ids": orEmpty(q.AddonIDs), "adults": pt.adults,
		"children": pt.children, "infants": pt.infants, "travellers": orEmpty(q.Travellers)}
	if o.departureID != 0 {
		details["departure_id"] = o.departureID
	} else {
		details["travel_date"] = o.date
	}
	claim := store.Claim{Kind: o.unitKind, ItemID: pkg.ID, UnitID: o.unitID, From: o.date, To: o.date, Quantity: pt.seats()}
	return &pricedQuote{Total: pricePackage(c.contract(), pt, o, addons, pkg.Currency).total.Minor, Currency: pkg.Currency,
		Instant: pkg.InstantConfirmation, Policy: policySeePolicy, ItemID: pkg.ID, Claim: claim, StartDate: o.date,
		EndDate: addDays(o.date, pkg.DurationNights), OpenStatus: tradewind.StatusOnRequest, Details: details}, nil
}

// packageCandidate is an item a search found, kept small until the page is chosen.
type packageCandidate struct {
	pkg         *catalog.Package
	departureID int64
	date        string
	price       int64
}

var packageCandidates scratch[packageCandidate]
