package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/storetest"
	"github.com/tradewind/tradewind/internal/webhook"
)

// contractTransport checks every response the SDK receives against the OpenAPI document,
// as apitest does for its own requests.
type contractTransport struct {
	tb   testing.TB
	next http.RoundTripper
}

func (t contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if apitest.ValidateResponse != nil {
		apitest.ValidateResponse(t.tb, req, resp.StatusCode, resp.Header, body)
	}
	return resp, nil
}

// sdk returns an SDK client of env's server with key, its responses contract-checked.
func sdk(tb testing.TB, env *apitest.Env, key string, opts ...client.Option) *client.Client {
	hc := &http.Client{Transport: contractTransport{tb: tb, next: env.Server.Client().Transport}, Timeout: 30 * time.Second}
	return client.New(env.Server.URL, key, append([]client.Option{client.WithHTTPClient(hc)}, opts...)...)
}

// demoEnv starts the API over the demo catalog with one net-pricing partner.
func demoEnv(t *testing.T, o storetest.Opener, opts ...apitest.Option) (*apitest.Env, *apitest.Partner) {
	t.Helper()
	env := apitest.New(t, o, opts...)
	env.Import(apitest.Demo(apitest.Start, 70))
	return env, env.NewPartner("acme", booking.PartnerParams{})
}

// must returns v, failing the test given to the returned func if err is not nil:
// must(c.Ping(ctx))(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

var guest = client.Guest{Name: "Ana Silva", Email: "ana@example.com"}

// poNumber numbers the partner references of the tests' bookings.
var poNumber atomic.Int64

// bookAndCancel books q live from a prebook, checks the replay, reads, lists and cancels
// the booking, and returns it.
func bookAndCancel(t *testing.T, c *client.Client, q client.Quote, wantStatus string) *client.BookResult {
	t.Helper()
	ctx := context.Background()
	pb := must(c.Prebook(ctx, &q))(t)
	if pb.TotalPrice == "" || pb.ExpiresAt.IsZero() || pb.ProductType != q.ProductType {
		t.Fatalf("prebook = %+v", pb)
	}
	ref := fmt.Sprintf("PO-%s-%d", q.ProductType, poNumber.Add(1))
	req := &client.BookRequest{PrebookToken: pb.PrebookToken, Guest: guest, PartnerReference: ref}
	req.Travellers = q.Travellers
	b := must(c.Book(ctx, req))(t)
	if b.Replayed || b.Status != wantStatus || b.TotalPrice != pb.TotalPrice || b.IdempotencyKey == "" ||
		b.ProductType != q.ProductType || b.PartnerReference != ref || b.Details.GuestName != guest.Name {
		t.Fatalf("book = %+v", b)
	}
	again := must(c.Book(ctx, req))(t) // same request, same key: the same booking
	if !again.Replayed || again.Reference != b.Reference {
		t.Fatalf("replay = %+v, want %s", again, b.Reference)
	}
	got := must(c.GetBooking(ctx, b.Reference))(t)
	if got.Reference != b.Reference || got.Status != wantStatus || got.Cancellation != nil {
		t.Fatalf("get = %+v", got)
	}
	found := false
	for bk, err := range c.AllBookings(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || bk.Reference == b.Reference
	}
	if !found {
		t.Fatalf("AllBookings lacks %s", b.Reference)
	}
	cancel := must(c.CancelBooking(ctx, b.Reference, "plans changed"))(t)
	if cancel.Status != client.StatusCancelled {
		t.Fatalf("cancel = %+v", cancel)
	}
	if ended := must(c.GetBooking(ctx, b.Reference))(t).Cancellation; ended == nil || ended.Reason != "plans changed" || ended.CancelledAt.IsZero() {
		t.Fatalf("the cancelled booking's cancellation = %+v", ended)
	}
	if _, err := c.CancelBooking(ctx, b.Reference, ""); !client.IsCode(err, client.CodeNotCancellable) ||
		!client.IsReason(err, client.ReasonAlreadyCancelled) {
		t.Fatalf("second cancel: %v", err)
	}
	return b
}

func TestHotelFlow(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()

		ping := must(c.Ping(ctx))(t)
		if ping.Partner != "acme" || ping.Mode != "live" || ping.Sandbox || ping.PricingMode != "net" {
			t.Errorf("ping = %+v", ping)
		}
		credit := must(c.Credit(ctx))(t)
		if credit.Currency != "EUR" || credit.CreditLimit != "10000.00" || credit.Available != "10000.00" {
			t.Errorf("credit = %+v", credit)
		}
		search := must(c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(1), CheckOut: apitest.Day(3)}))(t)
		if len(search.Hotels) == 0 || search.Page.Total != len(search.Hotels) || search.Nights != 2 {
			t.Fatalf("search = %+v", search)
		}
		hotel := must(c.GetHotel(ctx, 1001))(t)
		if hotel.Name != "Casa do Rio" || len(hotel.Rooms) != 2 {
			t.Errorf("hotel = %+v", hotel)
		}
		avail := must(c.HotelAvailability(ctx, &client.HotelAvailabilityRequest{HotelID: 1001, CheckIn: apitest.Day(1), CheckOut: apitest.Day(3)}))(t)
		if len(avail.AvailableRooms) == 0 {
			t.Fatalf("availability = %+v", avail)
		}
		room := avail.AvailableRooms[0]
		b := bookAndCancel(t, c, client.Quote{ProductType: client.ProductHotel, HotelID: 1001, RoomID: room.RoomID,
			CheckIn: apitest.Day(1), CheckOut: apitest.Day(3), Rooms: 1, Adults: 2}, client.StatusConfirmed)
		if b.TotalPrice != room.TotalPrice || b.Details.HotelID != 1001 || b.Details.Nights != 2 {
			t.Errorf("booking = %+v, offer %+v", b, room)
		}
		if after := must(c.Credit(ctx))(t); after.Available != credit.Available {
			t.Errorf("credit after cancel = %+v", after)
		}
	})
}

func TestActivityFlow(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()
		search := must(c.SearchActivities(ctx, &client.ActivitySearchRequest{Destination: "Lisbon", Date: apitest.Day(2), Category: "tour"}))(t)
		if len(search.Activities) != 1 || search.Category != "tour" || search.Activities[0].ActivityID != 2001 {
			t.Fatalf("search = %+v", search)
		}
		act := must(c.GetActivity(ctx, 2001))(t)
		if act.Pricing.Adult != "60.00" {
			t.Errorf("activity = %+v", act)
		}
		avail := must(c.ActivityAvailability(ctx, &client.ActivityAvailabilityRequest{ActivityID: 2001, Date: apitest.Day(2), Adults: 2, Children: 1}))(t)
		if !avail.Available || avail.TotalPrice != "150.00" {
			t.Errorf("availability = %+v", avail)
		}
		b := bookAndCancel(t, c, client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: apitest.Day(2), Adults: 2, Children: 1},
			client.StatusConfirmed)
		if b.TotalPrice != avail.TotalPrice || b.Details.ActivityID != 2001 || b.Details.Date != apitest.Day(2) {
			t.Errorf("booking = %+v", b)
		}
		// A supplier-confirmed activity books on request.
		bookAndCancel(t, c, client.Quote{ProductType: client.ProductActivity, ActivityID: 2002, Date: apitest.Day(2), Adults: 1}, client.StatusOnRequest)
	})
}

func TestRentalFlow(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()
		search := must(c.SearchRentals(ctx, &client.RentalSearchRequest{Destination: "Barcelona", CheckIn: apitest.Day(1), CheckOut: apitest.Day(4), Guests: 2}))(t)
		if len(search.Rentals) != 1 || search.Nights != 3 {
			t.Fatalf("search = %+v", search)
		}
		rental := must(c.GetRental(ctx, 3003))(t)
		if rental.CheckInTime != "16:00" || len(rental.Spaces) != 3 {
			t.Errorf("rental = %+v", rental)
		}
		avail := must(c.RentalAvailability(ctx, &client.RentalAvailabilityRequest{RentalID: 3003, CheckIn: apitest.Day(1), CheckOut: apitest.Day(4), Guests: 2}))(t)
		if len(avail.AvailableSpaces) != 2 {
			t.Fatalf("availability = %+v", avail)
		}
		space := avail.AvailableSpaces[0]
		b := bookAndCancel(t, c, client.Quote{ProductType: client.ProductRental, RentalID: 3003, SpaceID: space.SpaceID,
			CheckIn: apitest.Day(1), CheckOut: apitest.Day(4), Guests: 2, Adults: 2}, client.StatusConfirmed)
		if b.TotalPrice != space.TotalPrice || b.Details.RentalPropertyID != 3003 || b.Details.Nights != 3 {
			t.Errorf("booking = %+v", b)
		}
		// A rental without instant booking is pending until the host accepts.
		bookAndCancel(t, c, client.Quote{ProductType: client.ProductRental, RentalID: 3001, SpaceID: 300101,
			CheckIn: apitest.Day(1), CheckOut: apitest.Day(2), Guests: 1, Adults: 1}, client.StatusPending)
	})
}

func TestPackageFlow(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()
		search := must(c.SearchPackages(ctx, &client.PackageSearchRequest{Destination: "Lisbon", Adults: 1, Children: 1}))(t)
		if len(search.Packages) != 1 || search.Packages[0].DepartureID == nil || *search.Packages[0].DepartureID != 400101 {
			t.Fatalf("search = %+v", search)
		}
		pkg := must(c.GetPackage(ctx, 4001))(t)
		if pkg.Kind != client.PackageFixed || len(pkg.Departures) != 2 || pkg.Pricing != nil || len(pkg.Addons) != 2 {
			t.Errorf("package = %+v", pkg)
		}
		avail := must(c.PackageAvailability(ctx, &client.PackageAvailabilityRequest{PackageID: 4001, DepartureID: 400101,
			Adults: 1, Children: 1, AddonIDs: []int64{40011}}))(t)
		if !avail.Available || len(avail.Addons) != 1 {
			t.Fatalf("availability = %+v", avail)
		}
		party := []client.Traveller{
			{Type: "adult", FirstName: "Ana", LastName: "Silva", Nationality: "PT"},
			{Type: "child", FirstName: "Rui", LastName: "Silva", BirthDate: "2017-05-09"},
		}
		fixed := client.Quote{ProductType: client.ProductPackage, PackageID: 4001, DepartureID: 400101, Adults: 1, Children: 1,
			AddonIDs: []int64{40011}, Travellers: party}
		b := bookAndCancel(t, c, fixed, client.StatusConfirmed)
		if b.TotalPrice != avail.TotalPrice || b.Details.PackageID != 4001 || len(b.Details.Travellers) != 2 {
			t.Errorf("booking = %+v", b)
		}
		// Without the travellers of the party: 422 travellers_count_mismatch.
		fixed.Travellers = party[:1]
		_, err := c.Book(ctx, &client.BookRequest{Quote: fixed, Guest: guest})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 422 || apiErr.Code != client.CodeTravellersCountMismatch || len(apiErr.Errors) == 0 || apiErr.RequestID == "" {
			t.Errorf("book without every traveller: %v", err)
		}
		// An open package, on request.
		open := client.Quote{ProductType: client.ProductPackage, PackageID: 4002, TravelDate: apitest.Day(20), Adults: 1, Children: 1, Travellers: party}
		bookAndCancel(t, c, open, client.StatusOnRequest)
	})
}

func TestErrors(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.LiveKey)

		_, err := c.Ping(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sdk(t, env, "tw_test_wrong").Ping(ctx)
		if !client.IsCode(err, client.CodeUnauthorized) {
			t.Errorf("bad key: %v", err)
		}
		_, err = c.GetHotel(ctx, 999)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 404 || apiErr.Code != client.CodeNotFound || apiErr.Message == "" {
			t.Errorf("unknown hotel: %#v", err)
		}
		if res, err := c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbn", CheckIn: apitest.Day(1), CheckOut: apitest.Day(3)}); err != nil ||
			len(res.Hotels) != 0 || !strings.Contains(res.Hint, "GET /destinations") {
			t.Errorf("a misspelt city: %+v, %v; want no hotels and a hint", res, err)
		}
		if res, err := c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(1), CheckOut: apitest.Day(3)}); err != nil ||
			len(res.Hotels) == 0 || res.Hint != "" {
			t.Errorf("Lisbon: %+v, %v; want hotels and no hint", res, err)
		}
		_, err = c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(3), CheckOut: apitest.Day(1)})
		if !client.IsCode(err, client.CodeBadRequest) || !errors.As(err, &apiErr) || len(apiErr.Errors) == 0 {
			t.Errorf("bad dates: %v", err)
		}
		_, err = c.Prebook(ctx, &client.Quote{ProductType: client.ProductHotel, HotelID: 999, RoomID: 1, CheckIn: apitest.Day(1), CheckOut: apitest.Day(2), Rooms: 1, Adults: 1})
		if !client.IsCode(err, client.CodeInvalidQuote) || !client.IsReason(err, client.ReasonUnknownItem) || client.IsTemporary(err) {
			t.Errorf("unknown item: %v", err)
		}
		hotelsOnly := sdk(t, env, env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"hotel"}}))
		if _, err := hotelsOnly.GetRental(ctx, 3001); !client.IsCode(err, client.CodeProductNotEnabled) {
			t.Errorf("rental with a hotel key: %v", err)
		}
		small := env.NewPartner("small", booking.PartnerParams{CreditLimit: ptr("10")})
		_, err = sdk(t, env, small.LiveKey).Book(ctx, &client.BookRequest{Guest: guest, Quote: client.Quote{ProductType: client.ProductActivity,
			ActivityID: 2001, Date: apitest.Day(2), Adults: 1}})
		if !client.IsCode(err, client.CodeInsufficientCredit) {
			t.Errorf("over the credit line: %v", err)
		}
		if _, err := c.CancelBooking(ctx, "HTL-NOTFOUND", ""); !client.IsCode(err, client.CodeNotFound) {
			t.Errorf("cancel unknown: %v", err)
		}
		if _, err := client.New("ftp://nowhere", p.LiveKey).Ping(ctx); err == nil {
			t.Error("a client of an ftp URL answered")
		}
	})
}

func TestTestKeyAndPagination(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.TestKey)
		var refs []string
		for i := range 5 {
			b := must(c.Book(ctx, &client.BookRequest{Guest: guest, Quote: client.Quote{ProductType: client.ProductActivity,
				ActivityID: 2001, Date: apitest.Day(2 + i), Adults: 1}}))(t)
			if !b.Test {
				t.Errorf("a test key's booking has test false: %+v", b)
			}
			refs = append(refs, b.Reference)
		}
		page := must(c.ListBookings(ctx, 2, 2))(t)
		if page.Page.Total != 5 || page.Page.TotalPages != 3 || len(page.Bookings) != 2 || page.Bookings[0].Reference != refs[2] {
			t.Errorf("page 2 = %+v", page)
		}
		var all []string
		for b, err := range c.AllBookings(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b.Reference)
		}
		if len(all) != 5 || all[0] != refs[4] || all[4] != refs[0] {
			t.Errorf("AllBookings = %v, want newest first of %v", all, refs)
		}
		if credit := must(c.Credit(ctx))(t); credit.Utilized != "0.00" {
			t.Errorf("test bookings drew credit: %+v", credit)
		}
	})
}

// signingEnv starts the API over the demo catalog with a partner that must sign its
// requests, on the wall clock since signatures carry real timestamps; it returns the
// partner's test key and signing secret, and the time the clock was set to.
func signingEnv(t *testing.T, o storetest.Opener) (env *apitest.Env, key, secret string, now time.Time) {
	t.Helper()
	guards := func(cfg *httpapi.Config) {
		cfg.Guards = append(cfg.Guards, httpapi.PartnerGuards(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now))...)
	}
	env = apitest.New(t, o, guards)
	now = time.Now().UTC()
	env.Clock.Set(now)
	env.Import(apitest.Demo(now, 70))
	yes := true
	env.NewPartner("signer", booking.PartnerParams{RequireSignature: &yes})
	partner, err := env.Store.PartnerGetByName(context.Background(), "signer")
	if err != nil {
		t.Fatal(err)
	}
	return env, env.NewKey("signer", booking.KeyParams{Mode: "test"}), partner.SigningSecret, now
}

// TestSigning runs the SDK against a partner that must sign its requests.
func TestSigning(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, key, secret, now := signingEnv(t, o)
		ctx := context.Background()

		if _, err := sdk(t, env, key).Ping(ctx); !client.IsCode(err, client.CodeSignatureRequired) {
			t.Fatalf("unsigned: %v", err)
		}
		if _, err := sdk(t, env, key, client.WithSigningSecret("wrong")).Ping(ctx); !client.IsCode(err, client.CodeSignatureInvalid) {
			t.Fatalf("wrong secret: %v", err)
		}
		c := sdk(t, env, key, client.WithSigningSecret(secret))
		must(c.Ping(ctx))(t)
		must(c.ListBookings(ctx, 1, 5))(t) // the query is signed too
		day := now.AddDate(0, 0, 2).Format("2006-01-02")
		b := must(c.Book(ctx, &client.BookRequest{Guest: guest, Quote: client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: day, Adults: 1}}))(t)
		must(c.CancelBooking(ctx, b.Reference, "signed cancel"))(t)
	})
}

// TestRateLimitRetry spends a budget of one request per minute: the SDK's retry waits
// for Retry-After only within the context's deadline.
func TestRateLimitRetry(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		guards := func(cfg *httpapi.Config) {
			cfg.Guards = append(cfg.Guards, httpapi.PartnerGuards(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now))...)
		}
		env := apitest.New(t, o, guards)
		one := 1
		p := env.NewPartner("slow", booking.PartnerParams{RateLimit: &one})
		c := sdk(t, env, p.TestKey)
		must(c.Ping(context.Background()))(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.Ping(ctx)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Code != client.CodeRateLimited || apiErr.RetryAfter < time.Second || !client.IsTemporary(err) {
			t.Fatalf("over the budget: %v", err)
		}
		if time.Since(start) > time.Second {
			t.Errorf("the SDK slept %v for a Retry-After beyond the context's deadline", time.Since(start))
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestWebhookSubscriptions(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()
		sub := must(c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://partner.example.com/hooks",
			EventTypes: []string{client.EventBookingConfirmed, client.EventBookingCancelled}}))(t)
		if sub.ID == 0 || !sub.Active || len(sub.Secret) < 10 || sub.Secret[:6] != "whsec_" || len(sub.EventTypes) != 2 {
			t.Fatalf("created %+v", sub)
		}
		list := must(c.ListWebhooks(ctx))(t)
		if len(list) != 1 || list[0].ID != sub.ID || list[0].Secret != "" || list[0].URL != sub.URL {
			t.Fatalf("list = %+v", list)
		}
		_, err := c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "http://partner.example.com/hooks", EventTypes: []string{"booking.updated"}})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Code != client.CodeValidationFailed || len(apiErr.Errors) != 2 {
			t.Errorf("invalid subscription: %v", err)
		}
		if err := c.DeleteWebhook(ctx, sub.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteWebhook(ctx, sub.ID); !client.IsCode(err, client.CodeNotFound) {
			t.Errorf("second delete: %v", err)
		}
		if list := must(c.ListWebhooks(ctx))(t); len(list) != 0 {
			t.Errorf("list after delete = %+v", list)
		}
	})
}

// TestWebhookDeliveries subscribes with the SDK, runs the dispatcher, and checks that
// every delivery verifies with ParseWebhook and matches the document's webhooks. It runs
// on the wall clock, since ParseWebhook checks timestamps against it.
func TestWebhookDeliveries(t *testing.T) {
	validator, err := openapi.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, apitest.AllowPrivateWebhooks)
		now := time.Now().UTC()
		env.Clock.Set(now)
		env.Import(apitest.Demo(now, 70))
		p := env.NewPartner("acme", booking.PartnerParams{})
		c := sdk(t, env, p.LiveKey)
		ctx := context.Background()

		var mu sync.Mutex
		var secret string
		got := map[string][]*client.WebhookEvent{}
		receiver := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			ev, err := client.ParseWebhook(r, secret)
			if err != nil {
				t.Errorf("delivery: %v", err)
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			if err := validator.CheckEvent(r.Header, body); err != nil {
				t.Errorf("delivery: %v", err)
			}
			got[ev.Type] = append(got[ev.Type], ev)
		}))
		defer receiver.Close()
		sub := must(c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: receiver.URL + "/hooks",
			EventTypes: []string{client.EventBookingConfirmed, client.EventBookingCancelled, client.EventAvailabilityChanged}}))(t)
		mu.Lock()
		secret = sub.Secret
		mu.Unlock()

		tlsConfig := receiver.Client().Transport.(*http.Transport).TLSClientConfig
		d, err := webhook.NewDispatcher(webhook.DispatcherConfig{Store: env.Store, Deliverer: webhook.NewDeliverer(true, 5*time.Second, tlsConfig),
			Clock: env.Clock, PollInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { d.Run(runCtx); close(done) }()
		defer func() { stop(); <-done }()

		// booking.confirmed, then booking.cancelled; selling the last rooms of a night
		// and a catalog change both give availability.changed.
		day := func(n int) string { return now.AddDate(0, 0, n).Format("2006-01-02") }
		b := must(c.Book(ctx, &client.BookRequest{Guest: guest, PartnerReference: "PO-hook", Quote: client.Quote{ProductType: client.ProductHotel,
			HotelID: 1001, RoomID: 100102, CheckIn: day(3), CheckOut: day(4), Rooms: 2, Adults: 2}}))(t)
		must(c.CancelBooking(ctx, b.Reference, "testing webhooks"))(t)
		doc := apitest.Demo(now, 70)
		doc.Hotels[0].Rooms[0].Inventory[0].Price += 100
		env.Import(doc)

		deadline := time.Now().Add(15 * time.Second)
		for {
			mu.Lock()
			n := len(got[client.EventBookingConfirmed]) * len(got[client.EventBookingCancelled]) * len(got[client.EventAvailabilityChanged])
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("deliveries by type after 15 s: %v", got)
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if ev := got[client.EventBookingCancelled][0]; ev.Partner != "acme" || !bytes.Contains(ev.Data, []byte(b.Reference)) {
			t.Errorf("booking.cancelled = %+v %s", ev, ev.Data)
		}
	})
}

// failOnce forwards every request to the server but, for the first POST /bookings,
// throws the server's answer away and gives the client fail() instead: the booking was
// made and its signature recorded, and the client must retry.
type failOnce struct {
	next   http.RoundTripper
	fail   func(req *http.Request) (*http.Response, error)
	failed atomic.Bool
	sigs   []string
	mu     sync.Mutex
}

func (f *failOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.sigs = append(f.sigs, req.Header.Get(client.HeaderSignature))
	f.mu.Unlock()
	resp, err := f.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || req.URL.Path != client.BasePath+"/bookings" || f.failed.Swap(true) {
		return resp, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return f.fail(req)
}

// TestSignedRetryNotRefused: the SDK retries a signed booking after a 503 or a timeout
// whose request did reach the server; the retry carries a new signature, so it is not
// refused as a replay, and the booking is made once.
func TestSignedRetryNotRefused(t *testing.T) {
	fails := map[string]func(req *http.Request) (*http.Response, error){
		"503": func(req *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
				Body: io.NopCloser(bytes.NewReader([]byte(`{"success":false,"message":"busy","code":"unavailable","errors":[]}`)))}, nil
		},
		// A read that timed out on the connection (not the caller's context).
		"timeout": func(*http.Request) (*http.Response, error) {
			return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
		},
	}
	for name, fail := range fails {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env, key, secret, now := signingEnv(t, storetest.Openers()[0])
			tr := &failOnce{next: env.Server.Client().Transport, fail: fail}
			c := client.New(env.Server.URL, key, client.WithHTTPClient(&http.Client{Transport: tr}), client.WithSigningSecret(secret))
			day := now.AddDate(0, 0, 2).Format("2006-01-02")
			b, err := c.Book(context.Background(), &client.BookRequest{Guest: guest,
				Quote: client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: day, Adults: 1}})
			if err != nil {
				t.Fatalf("the retry of a signed booking failed: %v", err)
			}
			if len(tr.sigs) != 2 || tr.sigs[0] == tr.sigs[1] || !b.Replayed {
				t.Errorf("%d attempts (signatures %v), replayed %v: want 2 differently signed attempts, the second answered with the booking",
					len(tr.sigs), tr.sigs, b.Replayed)
			}
		})
	}
}
