package httpapi

import (
	"fmt"
	"testing"

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
