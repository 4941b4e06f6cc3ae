// Package client is the Go SDK for the Tradewind Partner Integration API: typed calls for
// every endpoint, and the verification of webhook deliveries.
//
// # Calls
//
// New makes a Client of one API key; the key decides whether requests are test or live:
//
//	c := client.New("https://api.tradewind.example", os.Getenv("TRADEWIND_KEY"))
//	found, err := c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbon", CheckIn: "2027-03-08", CheckOut: "2027-03-10"})
//
// ListDestinations names the cities there are items to search in. The flow is search
// (SearchHotels, SearchActivities, SearchRentals, SearchPackages),
// the item's record (GetHotel, …), its live availability (HotelAvailability, …; many dates
// at once with HotelCalendar, RentalCalendar and ActivityCalendar), Prebook
// (locks the price for 15 minutes), Book, then GetBooking, ListBookings or AllBookings,
// and CancelBooking. Webhook subscriptions are managed with ListWebhooks, CreateWebhook and
// DeleteWebhook. Every call takes a context and returns the answer's data as a typed value.
//
// Money is an Amount: the decimal text the API sent, never a float64.
//
// # Errors
//
// An error answer is an *Error carrying the HTTP status, the API's code and message, the
// per-field problems and the request id; IsCode tests the code:
//
//	if client.IsCode(err, client.CodeInvalidQuote) { … }
//
// # Retries and idempotency
//
// Every call is retried after a 429 rate_limited answer or the API's own 503
// service_unavailable (its replay check could not answer), once its Retry-After has
// passed: such a request had no effect. Calls that are safe to repeat — reads, searches,
// availability, Prebook (which only issues another token) and Book — are also retried
// after network errors and any 502, 503 or 504 answer, with exponential backoff. CancelBooking,
// CreateWebhook and DeleteWebhook are not: after a network error, read the state back. No
// retry waits past the context's deadline. WithRetry sets the number of attempts.
//
// Book sends an Idempotency-Key: the request's own, or a random one it stores in the
// request, reused by every retry. Booking the same request value again therefore
// returns the first booking (BookResult.Replayed) instead of booking twice. The key
// remembers its body: changed and booked again with the same key, the request is
// refused with CodeIdempotencyKeyReused; clear IdempotencyKey to book something else.
//
// # Request signing
//
// When the partner's contract requires signed requests, WithSigningSecret signs every
// request with the partner's signing secret (X-Partner-Timestamp, X-Partner-Signature).
//
// # Webhooks
//
// ParseWebhook (or VerifyWebhook on a body already read) checks a delivery's signature
// with the subscription's secret and decodes the event; SignWebhook computes a signature.
//
// The API reference, generated from its OpenAPI 3.1 document, is served by every
// Tradewind server at /api/partner/v1/docs.
package client
