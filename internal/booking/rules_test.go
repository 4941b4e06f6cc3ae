package booking

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// The rules below are those of validate.go, items.go, hotel.go, rental.go and
// travellers.go, tested where they live (the HTTP tests cover them end to end).

var ruleToday = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

// wantProblems checks that p lists exactly the problems containing each of want, in order.
func wantProblems(t *testing.T, p problems, want ...string) {
	t.Helper()
	if len(p) != len(want) {
		t.Fatalf("problems %q, want %d matching %q", p, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(p[i], w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, p[i], w)
		}
	}
}

func TestDateRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value string
		want  []string
	}{
		{"2026-03-10", nil},
		{"2027-07-23", nil}, // today + 500 days
		{"", []string{"date is required"}},
		{"2026-02-30", []string{`"2026-02-30" is not a date`}},
		{"2026-3-10", []string{"is not a date"}},
		{"2026-03-09", []string{"2026-03-09 is in the past"}},
		{"2027-07-24", []string{"more than 500 days ahead"}},
	} {
		var p problems
		_, ok := p.date("date", c.value, ruleToday)
		if ok != (len(c.want) == 0) {
			t.Errorf("%q: ok %v", c.value, ok)
		}
		wantProblems(t, p, c.want...)
	}
}

func TestStayAndNights(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, out string
		nights  int
		want    []string
	}{
		{"2026-03-10", "2026-03-11", 1, nil},
		{"2026-03-28", "2026-03-30", 2, nil}, // across a DST change in Europe: nights are calendar days
		{"2026-03-10", "2026-04-09", 30, nil},
		{"2026-03-10", "2026-04-10", 0, []string{"check_out: a stay of 31 nights; at most 30"}},
		{"2026-03-10", "2026-03-10", 0, []string{"check_out must be after check_in"}},
		{"2026-03-10", "", 0, []string{"check_out is required"}},
		{"2026-03-10", "tomorrow", 0, []string{`check_out: "tomorrow" is not a date`}},
		{"", "2026-03-11", 0, []string{"check_in is required"}},
	} {
		var p problems
		nights, _ := p.stay(c.in, c.out, ruleToday)
		if nights != c.nights {
			t.Errorf("%s..%s: %d nights, want %d", c.in, c.out, nights, c.nights)
		}
		wantProblems(t, p, c.want...)
		if c.nights > 0 {
			if n := nightsOf(c.in, c.out); n != c.nights {
				t.Errorf("nightsOf(%s, %s) = %d", c.in, c.out, n)
			}
			if first, last := nightRange(c.in, c.out); first != c.in || addDays(last, 1) != c.out {
				t.Errorf("nightRange(%s, %s) = %s, %s", c.in, c.out, first, last)
			}
		}
	}
}

func TestHotelStayRules(t *testing.T) {
	t.Parallel()
	ok := stayRequest{checkIn: "2026-03-10", checkOut: "2026-03-12", adults: 2, rooms: 1}
	for _, c := range []struct {
		name string
		edit func(*stayRequest)
		want []string
	}{
		{"valid", func(*stayRequest) {}, nil},
		{"children with ages", func(r *stayRequest) { r.children, r.childAges = 2, []int{0, 17} }, nil},
		{"no adults", func(r *stayRequest) { r.adults = 0 }, []string{"adults: 0 is outside 1–30"}},
		{"too many rooms", func(r *stayRequest) { r.adults, r.rooms = 10, 10 }, []string{"rooms: 10 is outside 1–9"}},
		{"fewer adults than rooms", func(r *stayRequest) { r.rooms = 3 }, []string{"every room holds at least one adult (2 adults for 3 rooms)"}},
		{"children without ages", func(r *stayRequest) { r.children = 1 }, []string{"child_ages is required"}},
		{"ages for other children", func(r *stayRequest) { r.children, r.childAges = 1, []int{3, 4} },
			[]string{"child_ages: 2 ages given for 1 child"}},
		{"adult age", func(r *stayRequest) { r.children, r.childAges = 1, []int{18} }, []string{"child_ages[0]: 18 is outside 0–17"}},
		{"nationality", func(r *stayRequest) { r.nationality = "pt" }, []string{`nationality_code: "pt" is not a 2-letter ISO country code in upper case (such as "PT")`}},
		{"every problem", func(r *stayRequest) { r.checkOut, r.adults, r.nationality = "2026-03-10", 31, "PRT" },
			[]string{"check_out must be after check_in", "adults: 31", "nationality_code"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ok
			c.edit(&r)
			var p problems
			st := validateStay(&p, r, ruleToday)
			wantProblems(t, p, c.want...)
			if len(c.want) == 0 && (st.nights != 2 || st.adults != r.adults || st.rooms != r.rooms) {
				t.Errorf("stay %+v", st)
			}
		})
	}
}

func TestPartyRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		adults, children, infants int
		seats                     int
		want                      []string
	}{
		{1, 0, 0, 1, nil},
		{2, 3, 2, 5, nil}, // infants take no seat
		{30, 20, 10, 50, nil},
		{0, 1, 0, 1, []string{"adults: 0 is outside 1–30"}},
		{31, 21, 11, 52, []string{"adults: 31", "children: 21", "infants: 11"}},
		{1, -1, -1, 0, []string{"children: -1", "infants: -1"}},
	} {
		var p problems
		pt := validParty(&p, c.adults, c.children, c.infants)
		wantProblems(t, p, c.want...)
		if pt.seats() != c.seats {
			t.Errorf("%+v: %d seats, want %d", pt, pt.seats(), c.seats)
		}
	}
}

func TestPartyPricing(t *testing.T) {
	t.Parallel()
	prices := catalog.PersonPrices{Adult: 10_000, Child: 5_001, Infant: 0}
	for _, c := range []struct {
		mode     tradewind.PricingMode
		markupBP int64
		pt       party
		want     int64
	}{
		{tradewind.PricingNet, 0, party{2, 1, 1}, 25_001},
		{tradewind.PricingNet, 2_000, party{2, 1, 1}, 25_001}, // net mode ignores the markup
		// markup mode: one rounded line per person, 5001 × 1.15 = 5751.15 → 5751
		{tradewind.PricingMarkup, 1_500, party{2, 1, 0}, 2*11_500 + 5_751},
		{tradewind.PricingMarkup, 1_500, party{1, 0, 3}, 11_500},
	} {
		con := pricing.Contract{Mode: c.mode, MarkupBP: c.markupBP}
		if got := c.pt.price(con, prices); got != c.want {
			t.Errorf("%s %d bp, %+v: %d, want %d", c.mode, c.markupBP, c.pt, got, c.want)
		}
	}
}

func TestStayTotal(t *testing.T) {
	t.Parallel()
	night := func(day string, capacity, sold int, price int64) DayStock {
		return dayStock(store.InventoryRow{Day: day, Capacity: capacity, Sold: sold, Price: price})
	}
	double := func(net int64) int64 { return 2 * net }
	rows := []DayStock{night("2026-03-10", 3, 1, 100), night("2026-03-11", 2, 0, 150)}
	for _, c := range []struct {
		name     string
		rows     []DayStock
		nights   int
		quantity int
		total    int64
		ok       bool
	}{
		{"every night free", rows, 2, 2, 500, true},
		{"a night lacks the units", rows, 2, 3, 0, false},
		{"a night is missing", rows[:1], 2, 1, 0, false},
		{"oversold row counts as none free", []DayStock{night("2026-03-10", 1, 2, 100)}, 1, 1, 0, false},
	} {
		total, ok := stayTotal(c.rows, c.nights, c.quantity, double)
		if total != c.total || ok != c.ok {
			t.Errorf("%s: %d, %v; want %d, %v", c.name, total, ok, c.total, c.ok)
		}
	}
}

func TestUnitFits(t *testing.T) {
	t.Parallel()
	room := &catalog.Room{MaxAdults: 2, MaxChildren: 1}
	for _, c := range []struct {
		adults, children, rooms int
		fits                    bool
	}{
		{2, 1, 1, true}, {3, 0, 1, false}, {2, 2, 1, false}, {4, 2, 2, true}, {5, 0, 2, false},
	} {
		st := hotelStay{adults: c.adults, children: c.children, rooms: c.rooms}
		if st.fits(room) != c.fits {
			t.Errorf("%d adults, %d children in %d rooms: fits %v", c.adults, c.children, c.rooms, !c.fits)
		}
	}
	space := &catalog.Space{MaxGuests: 4}
	for guests, fits := range map[int]bool{1: true, 4: true, 5: false} {
		if (rentalStay{guests: guests}).fits(space) != fits {
			t.Errorf("%d guests in a space for 4: fits %v", guests, !fits)
		}
	}
}

func TestUnitByIDAndSeatShortage(t *testing.T) {
	t.Parallel()
	rooms := []catalog.Room{{ID: 7, Name: "a"}, {ID: 9, Name: "b"}}
	id := func(r *catalog.Room) int64 { return r.ID }
	if r := unitByID(rooms, 9, id); r == nil || r != &rooms[1] {
		t.Errorf("unitByID(9) = %v", r)
	}
	if r := unitByID(rooms, 8, id); r != nil {
		t.Errorf("unitByID(8) = %v, want nil", r)
	}
	err := seatShortage("Tour", 1, "2026-03-10", 3)
	var te *tradewind.Error
	if !errors.As(err, &te) || te.Code != tradewind.ECodeInvalidQuote ||
		te.Message != "Tour has 1 seat(s) left on 2026-03-10; the party needs 3 (adults and children take a seat)." {
		t.Errorf("seatShortage = %v", err)
	}
}

func TestTravellerRules(t *testing.T) {
	t.Parallel()
	adult := Traveller{Type: "adult", FirstName: "Ana", LastName: "Silva"}
	for _, c := range []struct {
		name string
		t    Traveller
		want []string
	}{
		{"adult", adult, nil},
		{"child of 17", Traveller{Type: "child", FirstName: "B", LastName: "S", BirthDate: "2008-03-11"}, nil},
		{"infant of 1", Traveller{Type: "infant", FirstName: "C", LastName: "S", BirthDate: "2024-03-11"}, nil},
		{"child without birth date", Traveller{Type: "child", FirstName: "B", LastName: "S"},
			[]string{"travellers[0].birth_date is required for a child"}},
		{"born tomorrow", Traveller{Type: "infant", FirstName: "C", LastName: "S", BirthDate: "2026-03-11"},
			[]string{"2026-03-11 is in the future"}},
		{"a name that reads backwards", Traveller{Type: "adult", FirstName: "Ana\u202e", LastName: "S\nilva"},
			[]string{"travellers[0].first_name: holds the control character U+202E", "travellers[0].last_name: holds the control character U+000A"}},
		{"every problem", Traveller{Type: "pet", LastName: strings.Repeat("x", 101), Nationality: "xx"},
			[]string{`type: "pet" must be adult, child or infant`, "first_name is required", "last_name: at most 100",
				`travellers[0].nationality: "xx"`}},
	} {
		var p problems
		validateTravellers(&p, []Traveller{c.t}, ruleToday)
		t.Run(c.name, func(t *testing.T) { wantProblems(t, p, c.want...) })
	}
}

// TestTravellerAgesOnTravelDate: a child is under 18, an infant under 2 and an adult 18
// or over on the travel date, not on the day of the request.
func TestTravellerAgesOnTravelDate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, travel string
		t            Traveller
		want         []string
	}{
		{"child of 17 on travel", "2026-03-10", Traveller{Type: "child", BirthDate: "2008-03-11"}, nil},
		{"child turning 18 before travel", "2026-04-01", Traveller{Type: "child", BirthDate: "2008-03-11"},
			[]string{"travellers[0].birth_date: a child is under 18 on the travel date 2026-04-01; born 2008-03-11, this traveller is 18 then"}},
		{"child of 18 on travel", "2026-03-10", Traveller{Type: "child", BirthDate: "2008-03-10"},
			[]string{"a child is under 18"}},
		{"infant of 1 on travel", "2026-03-10", Traveller{Type: "infant", BirthDate: "2024-03-11"}, nil},
		{"infant turning 2 before travel", "2026-03-11", Traveller{Type: "infant", BirthDate: "2024-03-11"},
			[]string{"an infant is under 2 on the travel date 2026-03-11; born 2024-03-11, this traveller is 2 then"}},
		{"infant of 5", "2026-03-11", Traveller{Type: "infant", BirthDate: "2020-12-31"},
			[]string{"an infant is under 2 on the travel date 2026-03-11; born 2020-12-31, this traveller is 5 then"}},
		{"adult of 18 on travel", "2026-03-10", Traveller{Type: "adult", BirthDate: "2008-03-10"}, nil},
		{"adult under 18 on travel", "2026-03-10", Traveller{Type: "adult", BirthDate: "2008-03-11"},
			[]string{"travellers[0].birth_date: an adult is 18 or over on the travel date 2026-03-10; born 2008-03-11, this traveller is 17 then: send them as a child or an infant"}},
		{"adult without a birth date", "2030-01-01", Traveller{Type: "adult"}, nil},
		{"no birth date", "2030-01-01", Traveller{Type: "child"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) { wantProblems(t, travellerAges([]Traveller{c.t}, c.travel), c.want...) })
	}
}

func TestTravellerCount(t *testing.T) {
	t.Parallel()
	var p problems
	validateTravellers(&p, make([]Traveller, maxAdults+maxChildren+maxInfants+1), ruleToday)
	wantProblems(t, p, "travellers: at most 60 entries")

	adult, child := Traveller{Type: "adult"}, Traveller{Type: "child"}
	for _, c := range []struct {
		name    string
		q       QuoteRequest
		details []string
	}{
		{"matches", QuoteRequest{Adults: 1, Children: 1, Travellers: []Traveller{adult, child}}, nil},
		{"one missing", QuoteRequest{Adults: 2, Travellers: []Traveller{adult}},
			[]string{"travellers: 1 entries for a party of 2 (adults + children + infants)", "travellers: 1 of type adult for adults = 2"}},
		{"wrong types", QuoteRequest{Adults: 1, Children: 1, Travellers: []Traveller{adult, adult}},
			[]string{"travellers: 2 of type adult for adults = 1", "travellers: 0 of type child for children = 1"}},
	} {
		err := matchTravellers(&c.q)
		if c.details == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var te *tradewind.Error
		if !errors.As(err, &te) || te.Code != tradewind.ECodeTravellersMismatch || !slices.Equal(te.Details, c.details) {
			t.Errorf("%s: %v, want details %q", c.name, err, c.details)
		}
	}
}
