package client

import "context"

// HeaderScenario is the request header that selects a sandbox scenario.
const HeaderScenario = "Tradewind-Scenario"

type scenarioKey struct{}

// WithScenario returns a context whose calls carry the sandbox scenario (test keys
// only; see docs/sandbox.md), for example:
//
//	_, err := c.Prebook(client.WithScenario(ctx, "sold_out"), &quote) // CodeInvalidQuote
//	b, err := c.Book(client.WithScenario(ctx, "on_request; confirm_after=30"), &req)
//
// Scenarios that answer 429 or 503 are retried like real ones (WithRetry).
func WithScenario(ctx context.Context, scenario string) context.Context {
	return context.WithValue(ctx, scenarioKey{}, scenario)
}

func scenarioOf(ctx context.Context) string {
	s, _ := ctx.Value(scenarioKey{}).(string)
	return s
}
