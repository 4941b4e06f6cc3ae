package booking

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/pricing"
)

// TestRoomFitIsFitsRoom: roomFit's one comparison says what hotelStay.fitsRoom says,
// for every party the API takes and room limits around and beyond them (none, huge,
// negative; not so huge that fitsRoom's product overflows).
func TestRoomFitIsFitsRoom(t *testing.T) {
	limits := []int{-3, -1, 0, 1, 2, 3, 4, 5, 9, 10, 20, 29, 30, 31, 1<<15 - 2, 1<<15 - 1, 1 << 15, 1<<31 - 1, math.MaxInt32 * 99}
	for rooms := 1; rooms <= maxRooms; rooms++ {
		for adults := rooms; adults <= maxAdults; adults++ {
			for children := 0; children <= maxChildren; children++ {
				st := hotelStay{adults: adults, children: children, rooms: rooms}
				need := uint32((adults+rooms-1)/rooms)<<16 | uint32((children+rooms-1)/rooms)
				for _, a := range limits {
					for _, c := range limits {
						if got, want := (roomFit(a, c)-need)&fitGuards == fitGuards, st.fitsRoom(a, c); got != want {
							t.Fatalf("%d adults, %d children in %d rooms of %d adults and %d children: fit %v, fitsRoom %v",
								adults, children, rooms, a, c, got, want)
						}
					}
				}
			}
		}
	}
}

// TestNetPickAsEachRoom: netPick's one loop chooses what pricing each room on its own
// chooses: per hotel, the first room of the least sum among those that fit the party
// and are free every night (pickWide when such a room has wide prices; read day-major,
// a negative sum of wideNet nights), over random
// tables with hotels without rooms, nights without inventory, ties and wide prices,
// the rooms' days read day-major and as runs.
func TestNetPickAsEachRoom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 3000 {
		c := &CityHotels{}
		for range rng.IntN(8) {
			for k := range rng.IntN(5) { // 0–4 rooms with inventory
				first, run := int32(rng.IntN(6)), randomRun(rng, 5, 4) // prices 0–3: ties
				c.Rooms = append(c.Rooms, RoomDays{Index: int32(k + rng.IntN(2)), First: first, MaxAdults: 1 + rng.IntN(4),
					MaxChildren: rng.IntN(3), Days: run})
			}
			c.Hotels = append(c.Hotels, nil)
			c.End = append(c.End, int32(len(c.Rooms)))
		}
		c.currency = make([]int32, len(c.Hotels))
		for i := range c.currency {
			c.currency[i] = int32(rng.IntN(3))
		}
		rooms := 1 + rng.IntN(3)
		st := hotelStay{adults: rooms + rng.IntN(5), children: rng.IntN(4), rooms: rooms}
		from, days, base := int32(rng.IntN(10)), int32(1+rng.IntN(4)), int32(rng.IntN(3))
		var want []hotelCandidate
		start := int32(0)
		for i, end := range c.End {
			best := hotelCandidate{total: pickNone}
			for _, rd := range c.Rooms[start:end] {
				if !st.fitsRoom(rd.MaxAdults, rd.MaxChildren) {
					continue
				}
				run := rd.Days.Span(from-rd.First, days)
				if len(run.Free) == 0 {
					continue
				}
				total, free := int64(0), true
				for d, f := range run.Free {
					free = free && int(f) >= st.rooms
					total += run.PriceAt(d)
				}
				if run.Wide != nil {
					total = pickWide
				}
				if free && total < best.total {
					best = hotelCandidate{total: total, hotel: base + int32(i), room: rd.Index, cur: c.currency[i]}
				}
			}
			if best.total != pickNone {
				want = append(want, best)
			}
			start = end
		}
		for _, byDay := range []bool{false, true} {
			c.layoutScan(byDay) // Index's part for the rooms (the hotels here are only numbers)
			found := make([]hotelCandidate, len(c.Hotels)+1)
			got := found[:netPick(c, from, days, base, &st, found)]
			if len(got) != len(want) {
				t.Fatalf("round %d, by day %v: %d candidates, want %d: %+v, want %+v", round, byDay, len(got), len(want), got, want)
			}
			for i := range got {
				if byDay && want[i].total == pickWide && got[i].total < 0 && got[i].total >= int64(days)*wideNet {
					got[i].total = pickWide // netPickDays' sum of wideNet nights: repicked as pickWide is
				}
				if got[i] != want[i] {
					t.Fatalf("round %d, by day %v: candidate %d is %+v, want %+v", round, byDay, i, got[i], want[i])
				}
			}
		}
	}
}

// TestSpacePickAsEachSpace: spacePick.city's one loop counts and prices what taking
// each space on its own does: per rental, the spaces that take the guests with a run
// of the stay free every night, and the least stayTotalRun among them, for a net and a
// markup partner, over random tables with rentals without spaces, nights without
// inventory and wide prices.
func TestSpacePickAsEachSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 3000 {
		c := &CityRentals{}
		for range rng.IntN(8) {
			for range rng.IntN(4) { // 0–3 spaces with inventory
				first, run := int32(rng.IntN(6)), randomRun(rng, 4, 900)
				c.Spaces = append(c.Spaces, SpaceDays{First: first, MaxGuests: 1 + rng.IntN(6), Days: run})
			}
			c.Rentals = append(c.Rentals, &catalog.Rental{ID: int64(len(c.Rentals))})
			c.End = append(c.End, int32(len(c.Spaces)))
		}
		c.Index()
		con := pricing.Contract{Mode: tradewind.PricingNet}
		if rng.IntN(2) == 0 {
			con = pricing.Contract{Mode: tradewind.PricingMarkup, MarkupBP: 1250}
		}
		days := int32(1 + rng.IntN(4))
		st := rentalStay{nights: int(days), guests: 1 + rng.IntN(6)}
		from := int32(rng.IntN(10))
		var want []rentalCandidate
		start := int32(0)
		for i, end := range c.End {
			x := rentalCandidate{r: c.Rentals[i]}
			for _, sd := range c.Spaces[start:end] {
				if st.guests > sd.MaxGuests {
					continue
				}
				run := sd.Days.Span(from-sd.First, days)
				if len(run.Free) == 0 {
					continue
				}
				if total, ok := stayTotalLines(&run, st.nights, 1, con.Line); ok {
					if x.spaces == 0 || total < x.total {
						x.total = total
					}
					x.spaces++
				}
			}
			if x.spaces > 0 {
				want = append(want, x)
			}
			start = end
		}
		pick := &spacePick{st: st, con: con, unchanged: con.Unchanged(0), found: []rentalCandidate{{spaces: 9}}}
		pick.city(c, from, days)
		if got := pick.found[1:]; len(got) != len(want) || pick.found[0].spaces != 9 {
			t.Fatalf("round %d: %+v, want %+v after the one found before", round, pick.found, want)
		} else {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("round %d: candidate %d is %+v, want %+v", round, i, got[i], want[i])
				}
			}
		}
	}
}

// randomRun is a run of 0–8 days, each with −1 (no inventory) to free−2 units free;
// one in eight has wide prices (0, 2^33 or 2^34), the others prices below price.
func randomRun(rng *rand.Rand, free, price int) DayRun {
	n := rng.IntN(9)
	run := DayRun{Free: make([]int32, n)}
	wide := rng.IntN(8) == 0
	if wide {
		run.Wide = make([]int64, n)
	} else {
		run.Price = make([]int32, n)
	}
	for d := range n {
		run.Free[d] = int32(rng.IntN(free) - 1)
		if wide {
			run.Wide[d] = int64(rng.IntN(3)) << 33
		} else {
			run.Price[d] = int32(rng.IntN(price))
		}
	}
	return run
}
