package httpapi

import (
	"net/http"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// scenarioOps names the endpoints that scenarios of one operation apply to; every other
// endpoint takes only the scenarios of every endpoint (rate_limited, unavailable, slow).
var scenarioOps = map[string]string{
	"POST /bookings/prebook": booking.OpPrebook,
	"POST /bookings":         booking.OpBook,
}

// scenario reads the Tradewind-Scenario header of an authenticated request, answers the
// scenarios that replace the endpoint's answer (rate_limited, unavailable), waits for
// slow, and hands the others to the service through the caller.
func (s *Server) scenario(w http.ResponseWriter, r *http.Request, e endpoint, c *booking.Caller) error {
	values := r.Header[hdrScenario] // r.Header.Values(booking.HeaderScenario)
	if len(values) == 0 {
		return nil
	}
	if len(values) > 1 {
		return tradewind.Invalid([]string{booking.HeaderScenario + ": send the header once"})
	}
	sc, err := booking.ParseScenario(values[0], scenarioOps[e.method+" "+e.path], c.Test())
	if err != nil {
		return err
	}
	switch sc.Name {
	case "rate_limited":
		secs := int(sc.RetryAfter / time.Second)
		return tradewind.Errorf(tradewind.ECodeRateLimited, "Rate limit exceeded (scenario rate_limited); retry after %d seconds.", secs).RetryIn(secs)
	case "unavailable":
		secs := int(sc.RetryAfter / time.Second)
		return tradewind.Errorf(tradewind.ECodeUnavailable, "The service is unavailable (scenario unavailable); retry after %d seconds.", secs).RetryIn(secs)
	case "slow":
		t := time.NewTimer(sc.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return r.Context().Err()
		}
	}
	c.Scenario = sc
	return nil
}
