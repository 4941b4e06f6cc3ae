package booking

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// Hinted is an answer that carries, beside its data, a short text for the people
// integrating: the envelope's message, null otherwise. A search that found nothing in a
// city that has nothing of its product says so (a misspelt destination answers an empty
// 200 otherwise), and a hotel search or availability whose party fits no room says how
// many rooms would. Programs read the data; the text is for people and may change.
type Hinted interface{ Hint() string }

// hint is embedded in the answers that may carry one (Hinted).
type hint struct{ text string }

func (h hint) Hint() string { return h.text }

// productPlurals name each product's items in a hint.
var productPlurals = map[tradewind.ProductType]string{
	tradewind.ProductHotel: "hotels", tradewind.ProductActivity: "activities",
	tradewind.ProductRental: "rentals", tradewind.ProductPackage: "packages",
}

// CityCounter is implemented by Reads that hold each city's items in memory (the read
// model): an empty search's hint asks it rather than copy or read the city's items. ok
// false: it cannot tell now; no hint is given.
type CityCounter interface {
	// EachCityItem calls each with the city's items of kind (decoded, *catalog.Hotel, …)
	// under the reader's lock until it returns false; ok false: it cannot now. each must
	// not keep the item nor call the reader.
	EachCityItem(kind tradewind.ProductType, city string, each func(v any) bool) (ok bool)
}

// emptySearchHint is the hint of a search of kind in dest that found total items: when
// it found none and the city has no item of kind at all, it says so and where the cities
// are listed. Asked only for an empty answer, of the read model (CityCounter: its first
// item, if any); a reader without one (the store: tests, embedded use) reads the city's items.
// A failed read gives no hint, not an error.
func (s *Service) emptySearchHint(ctx context.Context, kind tradewind.ProductType, dest string, total int) hint {
	if total > 0 {
		return hint{}
	}
	if cc, ok := s.reads().(CityCounter); ok {
		has := false
		if known := cc.EachCityItem(kind, cityKey(dest), func(any) bool { has = true; return false }); has || !known {
			return hint{}
		}
	} else if items, err := s.reads().CityItems(ctx, kind, cityKey(dest)); err != nil || len(items) > 0 {
		return hint{}
	}
	return hint{fmt.Sprintf("There are no %s in %q. GET /destinations lists the cities to search, with what each has.",
		productPlurals[kind], clip(dest))}
}

// partyFit is what the rooms looked at so far say of a hotel party (add): whether one
// takes it in the rooms asked, else the room that needs the fewest rooms for it.
type partyFit struct {
	st   *hotelStay
	fits bool
	best *catalog.Room
	need int // rooms of best the party needs; 0 with best nil: no number of any does
}

// add looks at the rooms of one hotel; it reports whether one takes the party.
func (f *partyFit) add(rooms []catalog.Room) bool {
	for i := range rooms {
		r := &rooms[i]
		if f.st.fits(r) {
			f.fits = true
			return true
		}
		if n := roomsFor(f.st.adults, f.st.children, r); n > 0 && (f.best == nil || n < f.need) {
			f.best, f.need = r, n
		}
	}
	return false
}

// noRoomsTake is the end of a hint that no number of rooms takes a party: why.
func noRoomsTake() string {
	return fmt.Sprintf(": each room holds at least 1 adult, at most %d rooms are booked at once, and children need rooms that take children.", maxRooms)
}

// partyText names a hotel party: "5 adults", "1 adult and 3 children".
func partyText(st *hotelStay) string {
	party := countOf(st.adults, "adult", "adults")
	if st.children > 0 {
		party += " and " + countOf(st.children, "child", "children")
	}
	return party
}

// roomsFor is how many rooms of r a party of adults and children needs, each room with
// at least one adult and at most r's occupancy; 0 when no number up to maxRooms does.
func roomsFor(adults, children int, r *catalog.Room) int {
	for n := 1; n <= min(adults, maxRooms); n++ {
		if adults <= n*r.MaxAdults && children <= n*r.MaxChildren {
			return n
		}
	}
	return 0
}

// partyHint is the hint of a hotel availability that listed offers rooms: when it listed
// none and no room of h takes the party in the rooms asked, it says how many rooms of
// which would, or that no number does. Sold-out rooms need no words: the list is empty.
func partyHint(h *catalog.Hotel, st *hotelStay, offers int) hint {
	if offers > 0 || len(h.Rooms) == 0 {
		return hint{}
	}
	f := partyFit{st: st}
	switch {
	case f.add(h.Rooms):
		return hint{}
	case f.best == nil:
		return hint{fmt.Sprintf("No number of rooms of %s takes %s", h.Name, partyText(st)) + noRoomsTake()}
	}
	return hint{fmt.Sprintf("No room of %s takes %s in %s; %d rooms of %s would (rooms: %d).",
		h.Name, partyText(st), countOf(st.rooms, "room", "rooms"), f.need, f.best.Name, f.need)}
}

// guestsHint is the hint of a rental availability or calendar that listed nothing: when
// no space of r takes st's guests, it names the largest space. Sold-out nights need no
// words: the list is empty.
func guestsHint(r *catalog.Rental, st rentalStay, offers int) hint {
	if offers > 0 || len(r.Spaces) == 0 {
		return hint{}
	}
	largest := &r.Spaces[0]
	for i := range r.Spaces {
		if st.fits(&r.Spaces[i]) {
			return hint{}
		}
		if r.Spaces[i].MaxGuests > largest.MaxGuests {
			largest = &r.Spaces[i]
		}
	}
	return hint{fmt.Sprintf("No space of %s takes %s; the largest, %s, takes %s.",
		r.Name, countOf(st.guests, "guest", "guests"), largest.Name, countOf(largest.MaxGuests, "guest", "guests"))}
}

// cityPartyHint is the hint of a hotel search in dest that found nothing although the
// city has hotels: when no room of any of them takes the party in the rooms asked, it
// says how many rooms would at some hotel, or that none would. Asked of the read model
// only (CityCounter, the city's hotels in memory); a store reader gives no hint.
func (s *Service) cityPartyHint(dest string, st *hotelStay) hint {
	cc, ok := s.reads().(CityCounter)
	if !ok {
		return hint{}
	}
	f := partyFit{st: st}
	if !cc.EachCityItem(tradewind.ProductHotel, cityKey(dest), func(v any) bool {
		h, ok := v.(*catalog.Hotel)
		return !ok || !f.add(h.Rooms)
	}) || f.fits {
		return hint{}
	}
	if f.best == nil {
		return hint{fmt.Sprintf("No hotel in %q takes %s in any number of rooms", clip(dest), partyText(st)) + noRoomsTake()}
	}
	return hint{fmt.Sprintf("No hotel in %q takes %s in %s; %d rooms would at some (rooms: %d).",
		clip(dest), partyText(st), countOf(st.rooms, "room", "rooms"), f.need, f.need)}
}

// emptyHotelSearchHint is emptySearchHint for hotels, and, for a city with hotels, the
// party no room there takes (cityPartyHint).
func (s *Service) emptyHotelSearchHint(ctx context.Context, dest string, st *hotelStay, total int) hint {
	if h := s.emptySearchHint(ctx, tradewind.ProductHotel, dest, total); h.text != "" || total > 0 {
		return h
	}
	return s.cityPartyHint(dest, st)
}
