package httpapi_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// Items of destinationsCatalog, beside those of apitest.Catalog and ProductsCatalog
// (Lisbon: 3 hotels, 4 activities, 3 rentals, 2 packages; Porto: 1 of each).
const (
	hotelZurich      = 901 // "Zürich", a room on days 0–99
	hotelZurichToo   = 902 // "Zürich"
	hotelFarAhead    = 903 // "Madeira": rooms only 600 days ahead, past any search
	activitySaoPaulo = 911 // "São Paulo"
	activityClosed   = 912 // "Faro": no seat on any day
	activityEvora    = 913 // "Évora": seats on days 0 and 1 only
	rentalZurich     = 921 // "ZÜRICH" (so spelt): its one space free on day 3 only
	spaceZurich      = 92101
	rentalAveiro     = 922 // "Aveiro": the only item there
)

// destinationsCatalog is the test catalogs and items in more cities: names beyond
// ASCII, a city spelt two ways, items no search can return.
func destinationsCatalog() *catalog.Document {
	doc := apitest.Catalog()
	products := apitest.ProductsCatalog()
	doc.Activities, doc.Rentals, doc.Packages = products.Activities, products.Rentals, products.Packages
	hotel := doc.Hotels[len(doc.Hotels)-1] // Porto's: one room, days 0–99
	for _, h := range []struct {
		id   int64
		city string
		from int
	}{{hotelZurich, "Zürich", 0}, {hotelZurichToo, "Zürich", 0}, {hotelFarAhead, "Madeira", 600}} {
		x := hotel
		x.ID, x.City = h.id, h.city
		room := x.Rooms[0]
		room.ID = h.id*100 + 1
		room.Inventory = []catalog.RoomNights{{Start: apitest.Day(h.from), End: apitest.Day(h.from + 99), Allotment: 1, Price: 9000}}
		x.Rooms = []catalog.Room{room}
		doc.Hotels = append(doc.Hotels, x)
	}
	act := doc.Activities[len(doc.Activities)-1] // Porto's
	for _, a := range []struct {
		id         int64
		city       string
		last, seat int
	}{{activitySaoPaulo, "São Paulo", 99, 5}, {activityClosed, "Faro", 99, 0}, {activityEvora, "Évora", 1, 5}} {
		x := act
		x.ID, x.City = a.id, a.city
		x.Availability = []catalog.ActivityDays{{Start: apitest.Day(0), End: apitest.Day(a.last), Capacity: a.seat}}
		doc.Activities = append(doc.Activities, x)
	}
	rental := doc.Rentals[len(doc.Rentals)-1] // Porto's
	for _, r := range []struct {
		id         int64
		city       string
		from, last int
	}{{rentalZurich, "ZÜRICH", 3, 3}, {rentalAveiro, "Aveiro", 0, 99}} {
		x := rental
		x.ID, x.City = r.id, r.city
		sp := x.Spaces[0]
		sp.ID = r.id*100 + 1
		sp.Availability = []catalog.SpaceNights{{Start: apitest.Day(r.from), End: apitest.Day(r.last), Price: 8000}}
		x.Spaces = []catalog.Space{sp}
		doc.Rentals = append(doc.Rentals, x)
	}
	return doc
}

// destination is one entry of GET /destinations.
type destination struct {
	City     string         `json:"city"`
	Products map[string]int `json:"products"`
}

// dest is a destination with the counts of products, given as name, count pairs.
func dest(city string, counts ...any) destination {
	d := destination{City: city, Products: map[string]int{}}
	for i := 0; i+1 < len(counts); i += 2 {
		d.Products[counts[i].(string)] = counts[i+1].(int)
	}
	return d
}

// destinations reads GET /destinations with query, expecting 200, and returns the
// list and its meta.
func destinations(t *testing.T, env *apitest.Env, key, query string) ([]destination, booking.PageMeta) {
	t.Helper()
	r := env.Get(key, "/destinations"+query).Expect(t, 200, "")
	var list []destination
	r.Decode(t, &list)
	var meta booking.PageMeta
	if err := json.Unmarshal(r.Meta, &meta); err != nil {
		t.Fatalf("meta: %v (%s)", err, r.Raw)
	}
	return list, meta
}

// wantDestinations fails the test unless GET /destinations with query lists want.
func wantDestinations(t *testing.T, env *apitest.Env, key, query string, want ...destination) {
	t.Helper()
	got, _ := destinations(t, env, key, query)
	if want == nil {
		want = []destination{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /destinations%s mismatch (-want +got):\n%s", query, diff)
	}
}

// TestDestinations: GET /destinations lists the cities a search can find items in, with
// the items of each product type the key enables, on both databases, answered from the
// store and from a read model alike; bookings, a re-import and the passing days change
// the counts in both.
func TestDestinations(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		for _, reads := range []string{"store", "model"} {
			t.Run(reads, func(t *testing.T) {
				t.Parallel()
				testDestinations(t, o, reads == "model")
			})
		}
	})
}

func testDestinations(t *testing.T, o storetest.Opener, withModel bool) {
	ctx := context.Background()
	env := apitest.New(t, o)
	doc := destinationsCatalog()
	env.Import(doc)
	p := env.NewPartner("acme", booking.PartnerParams{})
	var model *readmodel.Model
	if withModel {
		model = env.UseReadModel(false)
	}
	// sync makes the model apply what another writer changed (the model never polls
	// here: what this server writes through the service it applies as it commits).
	sync := func() {
		t.Helper()
		if model != nil {
			if err := model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := p.TestKey
	hotelsActivities := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"hotel", "activity"}})
	noCatalog := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"availability:read"}})

	aveiro := dest("Aveiro", "hotel", 0, "activity", 0, "rental", 1, "package", 0)
	lisbon := dest("Lisbon", "hotel", 3, "activity", 4, "rental", 3, "package", 2)
	porto := dest("Porto", "hotel", 1, "activity", 1, "rental", 1, "package", 1)
	saoPaulo := dest("São Paulo", "hotel", 0, "activity", 1, "rental", 0, "package", 0)
	zurich := dest("Zürich", "hotel", 2, "activity", 0, "rental", 1, "package", 0)
	evora := dest("Évora", "hotel", 0, "activity", 1, "rental", 0, "package", 0)

	t.Run("cities and counts", func(t *testing.T) {
		// By name in code point order (É after Z); Faro (no seat) and Madeira (600
		// days ahead) have nothing a search returns; Zürich is spelt as most of its
		// items spell it, on sale or not.
		wantDestinations(t, env, all, "", aveiro, lisbon, porto, saoPaulo, zurich, evora)
		list, meta := destinations(t, env, all, "")
		if want := (booking.PageMeta{Page: 1, PerPage: 25, Total: 6, TotalPages: 1}); meta != want || len(list) != 6 {
			t.Errorf("meta = %+v, want %+v", meta, want)
		}
	})

	t.Run("products the key does not enable", func(t *testing.T) {
		// Rentals and packages are not shown; Aveiro, which has only a rental, is not listed.
		wantDestinations(t, env, hotelsActivities, "",
			dest("Lisbon", "hotel", 3, "activity", 4), dest("Porto", "hotel", 1, "activity", 1),
			dest("São Paulo", "hotel", 0, "activity", 1), dest("Zürich", "hotel", 2, "activity", 0),
			dest("Évora", "hotel", 0, "activity", 1))
		r := env.Get(hotelsActivities, "/destinations?product=rental").Expect(t, 403, "product_not_enabled")
		wantRaw(t, r, `Product type \"rental\" is not enabled for this key.`)
		// Before the query's other problems, as a product's own endpoints refuse it.
		env.Get(hotelsActivities, "/destinations?product=package&page=0&zz=1").Expect(t, 403, "product_not_enabled")
		env.Get(noCatalog, "/destinations").Expect(t, 403, "insufficient_scope")
	})

	t.Run("product filter", func(t *testing.T) {
		wantDestinations(t, env, all, "?product=hotel", dest("Lisbon", "hotel", 3), dest("Porto", "hotel", 1), dest("Zürich", "hotel", 2))
		// Zürich's one rental spells it in capitals: the name of the types shown.
		wantDestinations(t, env, all, "?product=rental", dest("Aveiro", "rental", 1), dest("Lisbon", "rental", 3),
			dest("Porto", "rental", 1), dest("ZÜRICH", "rental", 1))
		wantDestinations(t, env, hotelsActivities, "?product=activity", dest("Lisbon", "activity", 4), dest("Porto", "activity", 1),
			dest("São Paulo", "activity", 1), dest("Évora", "activity", 1))
	})

	t.Run("q prefix", func(t *testing.T) {
		for _, q := range []string{"zü", "ZÜ", "Zürich", " zür "} {
			wantDestinations(t, env, all, "?q="+url.QueryEscape(q), zurich)
		}
		for _, q := range []string{"SÃO", "são p", "São Paulo"} {
			wantDestinations(t, env, all, "?q="+url.QueryEscape(q), saoPaulo)
		}
		wantDestinations(t, env, all, "?q="+url.QueryEscape("É"), evora)
		wantDestinations(t, env, all, "?q=lis&product=package", dest("Lisbon", "package", 2))
		wantDestinations(t, env, all, "?q=p", porto)
		wantDestinations(t, env, all, "?q=zurich") // no folding of ü to u
		wantDestinations(t, env, all, "?q=faro")   // nothing on sale there
		list, meta := destinations(t, env, all, "?q=nowhere")
		if len(list) != 0 || meta.Total != 0 || meta.TotalPages != 0 {
			t.Errorf("no match: %v %+v", list, meta)
		}
	})

	t.Run("paging", func(t *testing.T) {
		list, meta := destinations(t, env, all, "?per_page=2&page=2")
		if diff := cmp.Diff([]destination{porto, saoPaulo}, list); diff != "" {
			t.Errorf("page 2 mismatch (-want +got):\n%s", diff)
		}
		if want := (booking.PageMeta{Page: 2, PerPage: 2, Total: 6, TotalPages: 3}); meta != want {
			t.Errorf("meta = %+v, want %+v", meta, want)
		}
		list, meta = destinations(t, env, all, "?per_page=2&page=4")
		if len(list) != 0 || meta.Total != 6 {
			t.Errorf("past the last page: %v %+v", list, meta)
		}
		wantDestinations(t, env, all, "?per_page=100&page=1", aveiro, lisbon, porto, saoPaulo, zurich, evora)
	})

	t.Run("bad query", func(t *testing.T) {
		long := strings.Repeat("x", 201)
		r := env.Get(all, "/destinations?page=0&per_page=101&product=bogus&q="+long+"&zz=1").Expect(t, 400, "bad_request")
		wantErrors(t, r, "page: must be 1–1000000", "per_page: must be 1–100",
			`product: "bogus" is not one of hotel, activity, rental, package`, "q: at most 200 characters",
			"zz: not a query parameter of GET /destinations; it takes page, per_page, product, q")
		if len(r.Errors) != 5 {
			t.Errorf("errors = %q, want 5", r.Errors)
		}
		r = env.Get(all, "/destinations?page=two&q=%FF").Expect(t, 400, "bad_request")
		wantErrors(t, r, "page: must be an integer", "q: must be UTF-8 text")
		r = env.Get(all, "/destinations?product=hotel&product=hotel&q=a&q=b").Expect(t, 400, "bad_request")
		wantErrors(t, r, "product: given 2 times; give it once", "q: given 2 times; give it once")
		r = env.Get(all, "/destinations?city=lisbon").Expect(t, 400, "bad_request")
		if want := []string{"city: not a query parameter of GET /destinations; it takes page, per_page, product, q"}; !slices.Equal(r.Errors, want) {
			t.Errorf("unknown parameter: errors %q, want %q", r.Errors, want)
		}
		env.Get(all, "/destinations?q="+strings.Repeat("ü", 200)).Expect(t, 200, "") // 200 characters, 400 bytes
	})

	t.Run("a booking sells out a city's rental", func(t *testing.T) {
		// Zürich's rental has one space, free on the night of day 3 only.
		quote := map[string]any{"product_type": "rental", "rental_id": rentalZurich, "space_id": spaceZurich,
			"check_in": apitest.Day(3), "check_out": apitest.Day(4), "guests": 1, "adults": 1}
		ref := env.Book(p.LiveKey, "zurich-1", withGuest(quote)).Expect(t, 201, "").Map(t)["reference"].(string)
		wantDestinations(t, env, all, "?q=z", dest("Zürich", "hotel", 2, "activity", 0, "rental", 0, "package", 0))
		wantDestinations(t, env, all, "?product=rental&q=z")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref + "/cancel", Key: p.LiveKey}).Expect(t, 200, "")
		wantDestinations(t, env, all, "?q=z", zurich)
	})

	t.Run("another writer sells out a city's rental", func(t *testing.T) {
		c := store.Claim{Kind: tradewind.UnitSpace, ItemID: rentalZurich, UnitID: spaceZurich, From: apitest.Day(3), To: apitest.Day(3), Quantity: 1}
		if _, ok, err := env.Store.InventoryClaim(ctx, c); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if model != nil {
			// What answers is the model, which has not polled the feed yet.
			wantDestinations(t, env, all, "?q=z", zurich)
			sync()
		}
		wantDestinations(t, env, all, "?q=z", dest("Zürich", "hotel", 2, "activity", 0, "rental", 0, "package", 0))
		if err := env.Store.InventoryRelease(ctx, c); err != nil {
			t.Fatal(err)
		}
		sync()
		wantDestinations(t, env, all, "?q=z", zurich)
	})

	t.Run("a re-import withdraws items", func(t *testing.T) {
		// A Lisbon hotel closed (allotment 0), a Zürich hotel's nights dropped from the
		// document (closed by the import), São Paulo's activity moved to Aveiro.
		for i := range doc.Hotels {
			h := &doc.Hotels[i]
			switch h.ID {
			case apitest.HotelOnRequest:
				h.Rooms[0].Inventory[0].Allotment = 0
			case hotelZurichToo:
				h.Rooms[0].Inventory = nil
			}
		}
		for i := range doc.Activities {
			if a := &doc.Activities[i]; a.ID == activitySaoPaulo {
				a.City = "Aveiro"
			}
		}
		env.Import(doc)
		sync()
		wantDestinations(t, env, all, "",
			dest("Aveiro", "hotel", 0, "activity", 1, "rental", 1, "package", 0),
			dest("Lisbon", "hotel", 2, "activity", 4, "rental", 3, "package", 2),
			porto,
			dest("Zürich", "hotel", 1, "activity", 0, "rental", 1, "package", 0),
			evora)
	})

	t.Run("the days pass", func(t *testing.T) {
		// Évora's seats are on days 0 and 1: from day 2 no search can return them.
		env.Clock.Advance(2 * 24 * time.Hour)
		got, _ := destinations(t, env, all, "")
		if slices.ContainsFunc(got, func(d destination) bool { return d.City == "Évora" }) {
			t.Errorf("Évora still listed on day 2: %v", got)
		}
		if len(got) != 4 {
			t.Errorf("destinations on day 2 = %v, want 4", got)
		}
	})
}

// TestDestinationsBeforeTheModel: a server whose read model is still being built answers
// 503 service_unavailable, rather than count the whole catalog from the store for one
// request; once built, the model answers.
func TestDestinationsBeforeTheModel(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(destinationsCatalog())
		p := env.NewPartner("acme", booking.PartnerParams{})
		model := readmodel.New(env.Store, env.Clock, nil)
		env.Service.Reads = model // not built yet
		r := env.Get(p.TestKey, "/destinations").Expect(t, 503, "service_unavailable")
		wantRaw(t, r, "once this server has loaded the catalog")
		if got := r.Header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After %q, want 1", got)
		}
		if err := model.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		if list, _ := destinations(t, env, p.TestKey, ""); len(list) != 6 {
			t.Errorf("after the build: %d cities, want 6", len(list))
		}
	})
}
