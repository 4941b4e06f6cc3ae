package apitest

import (
	"net/http"
	"testing"

	"github.com/tradewind/tradewind/internal/openapi"
)

// init makes every HTTP test a contract test: each response Do receives is validated
// against the OpenAPI document (internal/openapi), and a mismatch fails the test.
func init() {
	v, err := openapi.NewValidator()
	if err != nil {
		panic("apitest: " + err.Error())
	}
	ValidateResponse = func(tb testing.TB, req *http.Request, status int, header http.Header, body []byte) {
		tb.Helper()
		if err := v.Check(req, status, header, body); err != nil {
			tb.Errorf("contract: %v", err)
		}
	}
}
