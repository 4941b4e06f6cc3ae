package httpapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/openapi"
)

// TestErrorCodesDocumented checks that the OpenAPI document's ErrorCode lists exactly the
// codes of statusOf, each with its HTTP status.
func TestErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, c := range doc.Components.Schemas["ErrorCode"].Value.OneOf {
		documented[fmt.Sprint(c.Value.Const)] = fmt.Sprint(c.Value.Extensions["x-status"])
	}
	for code, status := range statusOf {
		if got, ok := documented[code]; !ok {
			t.Errorf("code %s (%d) is not documented", code, status)
		} else if got != fmt.Sprint(status) {
			t.Errorf("code %s: documented with status %s, served with %d", code, got, status)
		}
	}
	for code := range documented {
		if _, ok := statusOf[code]; !ok {
			t.Errorf("code %s is documented but never served", code)
		}
	}
}

// TestErrorReasonsDocumented checks that the OpenAPI document's ErrorReason table lists
// exactly tradewind.ReasonCodes, each beside its code, and that the Go client names the
// same reasons.
func TestErrorReasonsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, line := range strings.Split(doc.Components.Schemas["ErrorReason"].Value.Description, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		documented[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
	}
	if !maps.Equal(documented, tradewind.ReasonCodes) {
		t.Errorf("ErrorReason documents %v, the server gives %v", documented, tradewind.ReasonCodes)
	}
	inClient := []string{client.ReasonSoldOut, client.ReasonPartyTooLarge, client.ReasonUnknownItem, client.ReasonUnknownOption,
		client.ReasonInThePast, client.ReasonCurrencyMismatch, client.ReasonProductNotBookable, client.ReasonPrebookUnknown,
		client.ReasonPrebookUsed, client.ReasonAlreadyCancelled, client.ReasonCompleted, client.ReasonStateChanged, client.ReasonLiveBooking}
	if got, want := slices.Sorted(slices.Values(inClient)), slices.Sorted(maps.Keys(tradewind.ReasonCodes)); !slices.Equal(got, want) {
		t.Errorf("the client names %v, the server %v", got, want)
	}
	for reason, code := range tradewind.ReasonCodes {
		if _, ok := statusOf[code]; !ok {
			t.Errorf("reason %s refines %s, which is not a code", reason, code)
		}
	}
}
