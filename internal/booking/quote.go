package booking

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// QuoteRequest is the body of a prebook and the quote fields of a direct booking. Ids,
// dates and counts that are required are told missing by their zero value, which is
// never valid.
type QuoteRequest struct {
	ProductType     string  `json:"product_type"`
	HotelID         int64   `json:"hotel_id,omitempty"`
	RoomID          int64   `json:"room_id,omitempty"`
	ActivityID      int64   `json:"activity_id,omitempty"`
	RentalID        int64   `json:"rental_id,omitempty"`
	SpaceID         int64   `json:"space_id,omitempty"`
	PackageID       int64   `json:"package_id,omitempty"`
	DepartureID     int64   `json:"departure_id,omitempty"`
	TravelDate      string  `json:"travel_date,omitempty"`
	AddonIDs        []int64 `json:"addon_ids,omitempty"`
	CheckIn         string  `json:"check_in,omitempty"`
	CheckOut        string  `json:"check_out,omitempty"`
	Date            string  `json:"date,omitempty"`
	Adults          int     `json:"adults"`
	Children        int     `json:"children,omitempty"`
	Infants         int     `json:"infants,omitempty"`
	Rooms           int     `json:"rooms,omitempty"`
	Guests          int     `json:"guests,omitempty"`
	ChildAges       []int   `json:"child_ages,omitempty"`
	NationalityCode string  `json:"nationality_code,omitempty"`
	// Travellers name every person of a package party: optional on prebook, required
	// on book (see checkTravellers); other products take none.
	Travellers []Traveller `json:"travellers,omitempty"`
}

// Cancellation policies of a quote, as decisions.md chose them: a hotel room's
// refundable flag gives policyRefundable or policyNonRefundable; activities are
// policyModerate; rentals and packages policySeePolicy (their own terms apply).
const (
	policyRefundable    = "refundable"
	policyNonRefundable = "non_refundable"
	policyModerate      = "moderate"
	policySeePolicy     = "see_policy"
)

// pricedQuote is a quote priced for a partner against live availability.
type pricedQuote struct {
	Total      int64
	Currency   string
	Instant    bool
	Policy     string // cancellation policy
	ItemID     int64
	Claim      store.Claim // inventory a live booking takes
	StartDate  string
	EndDate    string
	Details    map[string]any          // booking details, without guest_name
	OpenStatus tradewind.BookingStatus // the status of a booking that is not instant
}

// product is what one product type does to validate and price a quote.
type product interface {
	// fields lists the quote fields (JSON names) this product takes, as docs/products.md
	// lists them; any other quote field with a value is refused (foreignFields).
	fields() []string
	// validate lists the problems of the quote's fields for this product.
	validate(q *QuoteRequest, today time.Time) problems
	// price prices a valid quote for the caller; 422 invalid_quote when the item is
	// unknown, does not fit the party or is not available.
	price(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error)
}

// unitStay is a product whose quote reads one item and the nights of one of its units
// (a hotel's room, a rental's space): it names them, with the very query its price
// reads them by, so that a quote from the store reads both in one round trip.
type unitStay interface {
	stayReads(q *QuoteRequest) (tradewind.ProductType, int64, store.InventoryQuery)
}

// unitStayQuery is the query unitStayRows reads a unit's nights of a stay by.
func unitStayQuery(kind tradewind.UnitKind, itemID, unitID int64, checkIn, checkOut string) store.InventoryQuery {
	from, to := nightRange(checkIn, checkOut)
	return store.InventoryQuery{Kind: kind, ItemIDs: []int64{itemID}, UnitIDs: []int64{unitID}, From: from, To: to}
}

// products holds the product types that can be quoted and booked, one entry each.
var products = map[tradewind.ProductType]product{
	tradewind.ProductHotel:    hotelProduct{},
	tradewind.ProductActivity: activityProduct{},
	tradewind.ProductRental:   rentalProduct{},
	tradewind.ProductPackage:  packageProduct{},
}

// productFor returns the product of a quote, checking that the key enables it.
func productFor(c *Caller, q *QuoteRequest) (product, error) {
	pt := tradewind.ProductType(q.ProductType)
	if q.ProductType == "" {
		return nil, tradewind.Invalid([]string{"product_type is required"})
	}
	if !pt.Valid() {
		return nil, tradewind.Invalid([]string{"product_type: must be one of hotel, activity, rental, package"})
	}
	if err := c.RequireProduct(pt); err != nil {
		return nil, err
	}
	p, ok := products[pt]
	if !ok {
		return nil, invalidQuote(tradewind.ReasonProductNotBookable, "Product type %q cannot be booked yet.", pt)
	}
	return p, nil
}

// quoteField is one field of QuoteRequest: its JSON name and its index.
type quoteField struct {
	name  string
	index int
}

// quoteFields lists the fields of QuoteRequest, in their order.
var quoteFields = func() []quoteField {
	var out []quoteField
	t := reflect.TypeFor[QuoteRequest]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, quoteField{name, i})
	}
	return out
}()

// sentFields returns the JSON names of the quote fields of q that hold a value (a
// field left at its zero value reads as not sent, and is stored as nothing). An empty
// list is a zero value too: serializers that write every field send "addon_ids": [].
func sentFields(q *QuoteRequest) []string {
	v := reflect.ValueOf(q).Elem()
	var out []string
	for _, f := range quoteFields {
		fv := v.Field(f.index)
		if fv.IsZero() || fv.Kind() == reflect.Slice && fv.Len() == 0 {
			continue
		}
		out = append(out, f.name)
	}
	return out
}

// foreignFields lists a problem for each field of q with a value that a quote of product
// type pt does not take: a hotel quote carrying a date, an activity one carrying rooms…
// Such values would be stored with the booking unvalidated.
func foreignFields(q *QuoteRequest, pt tradewind.ProductType, fields []string) problems {
	var p problems
	for _, name := range sentFields(q) {
		if name != "product_type" && !slices.Contains(fields, name) {
			p.add("%s: not a field of %s %s quote", name, article(pt), pt)
		}
	}
	return p
}

// article is the indefinite article of a product type's name.
func article(pt tradewind.ProductType) string {
	if pt == tradewind.ProductActivity {
		return "an"
	}
	return "a"
}

// invalidQuote is a 422 invalid_quote with its reason (tradewind.Reason…).
func invalidQuote(reason, format string, args ...any) error {
	return tradewind.Refusal(tradewind.ECodeInvalidQuote, reason, format, args...)
}

// CheckQuote lists every problem of a quote's own fields (a prebook's body) as 400
// bad_request, without reading the store; an unknown or disabled product is its own
// error. Prebook checks the same first.
func (s *Service) CheckQuote(c *Caller, q *QuoteRequest) error {
	_, err := s.validQuote(c, q)
	return err
}

// validQuote checks the quote's fields for its product, without reading the store.
func (s *Service) validQuote(c *Caller, q *QuoteRequest) (product, error) {
	p, err := productFor(c, q)
	if err != nil {
		return nil, err
	}
	// Every problem at once: another product's fields beside the own fields' problems.
	errs := foreignFields(q, tradewind.ProductType(q.ProductType), p.fields())
	if errs = append(errs, p.validate(q, s.todayDate())...); len(errs) > 0 {
		return nil, errs.err()
	}
	return p, nil
}

// quote validates and prices q for the caller, and checks that it starts today or later and
// is priced in the currency of the credit line. It does not check the available credit:
// booking draws it, under the transaction (moveCredit).
func (s *Service) quote(ctx context.Context, db store.Querier, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	// From the store, not the read model: it is what is sold (what the model priced is
	// checked against the store instead: quoteahead.go, prebook.go). The cache only spares
	// decoding an item whose stored document is the one decoded before.
	return s.quoteFrom(ctx, &StoreReads{Q: db, items: s.quoteItems()}, c, q)
}

// readsAhead is a Reads that can read, before a quote asks for them, an item and its
// unit's days in one round trip (StoreReads).
type readsAhead interface {
	readAhead(ctx context.Context, kind tradewind.ProductType, id int64, q store.InventoryQuery)
}

// quoteFrom is quote over db: the store, or what a booking's transaction verified
// (quoteahead.go).
func (s *Service) quoteFrom(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	p, err := s.validQuote(c, q)
	if err != nil {
		return nil, err
	}
	if ra, ok := db.(readsAhead); ok {
		if us, ok := p.(unitStay); ok {
			kind, id, iq := us.stayReads(q)
			ra.readAhead(ctx, kind, id, iq)
		}
	}
	pq, err := p.price(ctx, db, c, q)
	if err != nil {
		return nil, err
	}
	if pq.StartDate < s.today() { // e.g. a package departure that has left
		return nil, invalidQuote(tradewind.ReasonInThePast, "The service starts on %s, which is in the past.", pq.StartDate)
	}
	if err := s.departureWithinReach(pq.StartDate); err != nil {
		return nil, err
	}
	if pq.Currency != c.Partner.Currency {
		return nil, invalidQuote(tradewind.ReasonCurrencyMismatch, "The item is priced in %s but the credit line is in %s; only %s items can be booked.",
			pq.Currency, c.Partner.Currency, c.Partner.Currency)
	}
	return pq, nil
}

// departureWithinReach refuses, like any other date, a service start more than 500 days
// ahead. Only a fixed package's departure can be: its date is the catalog's, not the
// request's, so validate could not see it.
func (s *Service) departureWithinReach(start string) error {
	if last := s.todayDate().AddDate(0, 0, maxDaysAhead).Format(tradewind.DateLayout); start > last {
		return tradewind.Invalid([]string{fmt.Sprintf("departure_id: the departure on %s is more than %d days ahead", start, maxDaysAhead)})
	}
	return nil
}

// cityKey is the search key of a city: matching is case-insensitive.
func cityKey(city string) string { return strings.ToLower(strings.TrimSpace(city)) }
