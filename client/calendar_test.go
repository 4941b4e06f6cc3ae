package client_test

import (
	"context"
	"testing"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestCalendars reads a hotel's, a rental's and an activity's calendars through the
// SDK, checks each date against the item's availability, and books the cheapest
// date's room at the calendar's price.
func TestCalendars(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()

		cal := must(c.HotelCalendar(ctx, &client.HotelCalendarRequest{HotelID: 1001, From: apitest.Day(1), To: apitest.Day(14), Nights: 2}))(t)
		if cal.HotelID != 1001 || cal.Nights != 2 || cal.Rooms != 1 || len(cal.Dates) != 14 || cal.Hint != "" {
			t.Fatalf("calendar = %+v", cal)
		}
		for _, d := range cal.Dates {
			avail := must(c.HotelAvailability(ctx, &client.HotelAvailabilityRequest{HotelID: 1001, CheckIn: d.CheckIn, CheckOut: d.CheckOut}))(t)
			switch {
			case len(avail.AvailableRooms) == 0 && (d.Available || d.RoomID != 0 || d.TotalPrice != ""):
				t.Errorf("%s: nothing available, the calendar %+v", d.CheckIn, d)
			case len(avail.AvailableRooms) > 0 && (d.RoomID != avail.AvailableRooms[0].RoomID || d.TotalPrice != avail.AvailableRooms[0].TotalPrice):
				t.Errorf("%s: the availability's cheapest %+v, the calendar %+v", d.CheckIn, avail.AvailableRooms[0], d)
			}
		}
		d := cal.Dates[3]
		b := bookAndCancel(t, c, client.Quote{ProductType: client.ProductHotel, HotelID: 1001, RoomID: d.RoomID,
			CheckIn: d.CheckIn, CheckOut: d.CheckOut, Rooms: 1, Adults: 2}, client.StatusConfirmed)
		if b.TotalPrice != d.TotalPrice {
			t.Errorf("booked at %s, the calendar said %s", b.TotalPrice, d.TotalPrice)
		}
		crowd := must(c.HotelCalendar(ctx, &client.HotelCalendarRequest{HotelID: 1001, From: apitest.Day(1), To: apitest.Day(2), Adults: 9}))(t)
		if crowd.Dates[0].Available || crowd.Hint == "" {
			t.Errorf("9 adults in one room: %+v", crowd)
		}

		rc := must(c.RentalCalendar(ctx, &client.RentalCalendarRequest{RentalID: 3003, From: apitest.Day(1), To: apitest.Day(7), Nights: 3, Guests: 2}))(t)
		if rc.RentalID != 3003 || rc.Guests != 2 || len(rc.Dates) != 7 {
			t.Fatalf("rental calendar = %+v", rc)
		}
		for _, d := range rc.Dates {
			avail := must(c.RentalAvailability(ctx, &client.RentalAvailabilityRequest{RentalID: 3003, CheckIn: d.CheckIn, CheckOut: d.CheckOut, Guests: 2}))(t)
			if len(avail.AvailableSpaces) == 0 || d.SpaceID != avail.AvailableSpaces[0].SpaceID || d.TotalPrice != avail.AvailableSpaces[0].TotalPrice {
				t.Errorf("%s: the availability %+v, the calendar %+v", d.CheckIn, avail.AvailableSpaces, d)
			}
		}
		ac := must(c.ActivityCalendar(ctx, &client.ActivityCalendarRequest{ActivityID: 2001, From: apitest.Day(1), To: apitest.Day(10), Adults: 2}))(t)
		if ac.ActivityID != 2001 || ac.Adults != 2 || len(ac.Dates) != 10 || ac.TotalPrice == "" {
			t.Fatalf("activity calendar = %+v", ac)
		}
		for _, d := range ac.Dates {
			avail := must(c.ActivityAvailability(ctx, &client.ActivityAvailabilityRequest{ActivityID: 2001, Date: d.Date, Adults: 2}))(t)
			if d.Available != avail.Available || d.SeatsAvailable != avail.SeatsAvailable || ac.TotalPrice != avail.TotalPrice {
				t.Errorf("%s: the availability %+v, the calendar %+v at %s", d.Date, avail, d, ac.TotalPrice)
			}
		}
		if _, err := c.RentalCalendar(ctx, &client.RentalCalendarRequest{RentalID: 3003, From: apitest.Day(1), To: apitest.Day(70)}); !client.IsCode(err, client.CodeBadRequest) {
			t.Errorf("70 dates: %v", err)
		}
	})
}
