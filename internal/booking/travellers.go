package booking

import (
	"fmt"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// Traveller types: a package party is its adults, children and infants.
const (
	travellerAdult  = "adult"
	travellerChild  = "child"
	travellerInfant = "infant"
)

// Ages on the travel date (the service's first day): a child is under 18, an infant
// under 2.
const (
	childUnder  = 18
	infantUnder = 2
	maxNameLen  = 100
)

// Traveller is one person of a package booking.
type Traveller struct {
	Type        string `json:"type"` // adult, child or infant
	FirstName   string `json:"first_name"`
	LastName    string `json:"last_name"`
	BirthDate   string `json:"birth_date,omitempty"`  // YYYY-MM-DD; required for children and infants
	Nationality string `json:"nationality,omitempty"` // ISO 3166-1 alpha-2, optional
}

// validateTravellers lists the problems of every traveller, each naming its index.
func validateTravellers(p *problems, ts []Traveller, today time.Time) {
	if n := maxAdults + maxChildren + maxInfants; len(ts) > n {
		p.add("travellers: at most %d entries", n)
		return
	}
	for i, t := range ts {
		f := fmt.Sprintf("travellers[%d].", i)
		switch t.Type {
		case travellerAdult, travellerChild, travellerInfant:
		case "":
			p.add("%stype is required", f)
		default:
			p.add("%stype: %q must be adult, child or infant", f, t.Type)
		}
		p.personName(f+"first_name", t.FirstName)
		p.personName(f+"last_name", t.LastName)
		p.birthDate(f+"birth_date", t, today)
		p.country(f+"nationality", t.Nationality)
	}
}

// personName checks a required name of at most maxNameLen characters.
func (p *problems) personName(field, name string) {
	if strings.TrimSpace(name) == "" {
		p.add("%s is required", field)
	}
	p.maxLen(field, name, maxNameLen)
	p.lineText(field, name)
}

// birthDate checks a traveller's birth date: required for a child or an infant, and a
// real date not after today. The age for the type is judged on the travel date, once
// it is known (travellerAges).
func (p *problems) birthDate(field string, t Traveller, today time.Time) {
	if t.BirthDate == "" {
		if t.Type == travellerChild || t.Type == travellerInfant {
			p.add("%s is required for a %s", field, t.Type)
		}
		return
	}
	born, ok := catalog.ParseDate(t.BirthDate)
	switch {
	case !ok:
		p.add("%s: %q is not a date (YYYY-MM-DD)", field, t.BirthDate)
	case born.After(today):
		p.add("%s: %s is in the future", field, t.BirthDate)
	}
}

// travellerAges lists a problem for each traveller (with a valid birth date, see
// validateTravellers) whose age on travel, the first day of the service, is not its
// type's: a child or an infant too old, an adult under 18 (a fixed package's departure
// is known only once the package is read).
func travellerAges(ts []Traveller, travel string) problems {
	var p problems
	on, _ := catalog.ParseDate(travel)
	for i, t := range ts {
		born, ok := catalog.ParseDate(t.BirthDate)
		if !ok {
			continue
		}
		f := fmt.Sprintf("travellers[%d].birth_date", i)
		switch age := ageOn(born, on); {
		case t.Type == travellerChild && !born.AddDate(childUnder, 0, 0).After(on):
			p.add("%s: a child is under %d on the travel date %s; born %s, this traveller is %d then", f, childUnder, travel, t.BirthDate, age)
		case t.Type == travellerInfant && !born.AddDate(infantUnder, 0, 0).After(on):
			p.add("%s: an infant is under %d on the travel date %s; born %s, this traveller is %d then", f, infantUnder, travel, t.BirthDate, age)
		case t.Type == travellerAdult && born.AddDate(childUnder, 0, 0).After(on):
			p.add("%s: an adult is %d or over on the travel date %s; born %s, this traveller is %d then: send them as a child or an infant",
				f, childUnder, travel, t.BirthDate, age)
		}
	}
	return p
}

// ageOn is the age in whole years on day of someone born on born.
func ageOn(born, day time.Time) int {
	age := day.Year() - born.Year()
	if born.AddDate(age, 0, 0).After(day) {
		age--
	}
	return age
}

// matchTravellers checks that the travellers are exactly the party: as many entries as
// adults + children + infants, and as many of each type. 422 travellers_count_mismatch.
func matchTravellers(q *QuoteRequest) error {
	got := map[string]int{}
	for _, t := range q.Travellers {
		got[t.Type]++
	}
	var details []string
	if total := q.Adults + q.Children + q.Infants; len(q.Travellers) != total {
		details = append(details, fmt.Sprintf("travellers: %d entries for a party of %d (adults + children + infants)", len(q.Travellers), total))
	}
	for _, c := range []struct {
		typ, field string
		want       int
	}{{travellerAdult, "adults", q.Adults}, {travellerChild, "children", q.Children}, {travellerInfant, "infants", q.Infants}} {
		if got[c.typ] != c.want {
			details = append(details, fmt.Sprintf("travellers: %d of type %s for %s = %d", got[c.typ], c.typ, c.field, c.want))
		}
	}
	if len(details) == 0 {
		return nil
	}
	return &tradewind.Error{Code: tradewind.ECodeTravellersMismatch, Details: details,
		Message: fmt.Sprintf("The travellers do not match the party: %d adult(s), %d child(ren) and %d infant(s) expected, %d, %d and %d given.",
			q.Adults, q.Children, q.Infants, got[travellerAdult], got[travellerChild], got[travellerInfant])}
}

// checkTravellers checks that a package booking names every person of its party (422
// travellers_count_mismatch otherwise, also when travellers are missing). Other
// products take no travellers (productFor refuses them).
func checkTravellers(q *QuoteRequest) error {
	if q.ProductType != string(tradewind.ProductPackage) {
		return nil
	}
	return matchTravellers(q)
}
