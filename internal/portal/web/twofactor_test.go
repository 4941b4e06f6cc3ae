package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

var (
	secretShown  = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
	recoveryCode = regexp.MustCompile(`<code>([a-z2-7]{4}-[a-z2-7]{4})</code>`)
)

// TestTwoFactor: enrolment with a code, sign-in with a code or a recovery code (once),
// and the owner's requirement, which sends a member without it to enrol.
func TestTwoFactor(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		_, owner := e.newPartner(t, "acme")
		m := secretShown.FindStringSubmatch(owner.get("/account/two-factor").body)
		if m == nil {
			t.Fatal("no secret offered")
		}
		secret := m[1]
		if res := owner.post("/account/two-factor", url.Values{"secret": {secret}, "code": {"000000"}}); res.status != http.StatusUnprocessableEntity {
			t.Fatalf("a wrong enrolment code: %d", res.status)
		}
		code, _ := totp.GenerateCode(secret, e.api.Clock.Now())
		res := owner.post("/account/two-factor", url.Values{"secret": {secret}, "code": {code}})
		codes := recoveryCode.FindAllStringSubmatch(res.body, -1)
		if res.status != http.StatusOK || len(codes) != portal.RecoveryCodeCount {
			t.Fatalf("enrolment: %d, %d recovery codes", res.status, len(codes))
		}
		signin := func() *client {
			c := e.client(t)
			res := c.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
			if res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/signin/code") {
				t.Fatalf("password step: %d %s", res.status, res.header.Get("Location"))
			}
			if res := c.get("/"); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/signin") {
				t.Fatalf("signed in without a code: %d", res.status)
			}
			return c
		}
		c := signin()
		if res := c.post("/signin/code", url.Values{"code": {"123456"}}); res.status != http.StatusUnauthorized || !strings.Contains(res.body, "The code is wrong") {
			t.Fatalf("wrong code: %d", res.status)
		}
		// The enrolment used its code up: it does not sign in, even within its 30 seconds.
		if res := c.post("/signin/code", url.Values{"code": {code}}); res.status != http.StatusUnauthorized {
			t.Fatalf("the enrolment's code signed in: %d", res.status)
		}
		e.api.Clock.Advance(30 * time.Second)
		code, _ = totp.GenerateCode(secret, e.api.Clock.Now())
		if res := c.post("/signin/code", url.Values{"code": {code}, "next": {"/keys"}}); res.status != http.StatusSeeOther || res.header.Get("Location") != "/keys" {
			t.Fatalf("right code: %d %s", res.status, res.header.Get("Location"))
		}
		if res := c.get("/keys"); res.status != http.StatusOK {
			t.Fatalf("after the code: %d", res.status)
		}
		// A recovery code works once.
		rc := codes[3][1]
		if res := signin().post("/signin/code", url.Values{"code": {rc}}); res.status != http.StatusSeeOther {
			t.Fatalf("recovery code: %d", res.status)
		}
		if res := signin().post("/signin/code", url.Values{"code": {rc}}); res.status != http.StatusUnauthorized {
			t.Fatalf("a recovery code worked twice: %d", res.status)
		}
		// A code without the password step is refused.
		if res := e.client(t).post("/signin/code", url.Values{"code": {code}}); res.status != http.StatusUnauthorized {
			t.Fatalf("code without a challenge: %d", res.status)
		}

		// The owner requires two-factor sign-in; an admin may not change that.
		admin, _ := e.member(t, "acme", "admin@acme.example", portal.RoleAdmin)
		if res := admin.post("/team/two-factor", url.Values{"require": {"on"}}); res.status != http.StatusForbidden {
			t.Fatalf("admin requires 2FA: %d", res.status)
		}
		if res := c.post("/team/two-factor", url.Values{"require": {"on"}}); res.status != http.StatusSeeOther {
			t.Fatalf("owner requires 2FA: %d %s", res.status, res.body)
		}
		if res := admin.get("/bookings"); res.status != http.StatusSeeOther || res.header.Get("Location") != "/account/two-factor" {
			t.Fatalf("a member without 2FA: %d %s", res.status, res.header.Get("Location"))
		}
		if res := admin.get("/account/two-factor"); !strings.Contains(res.body, "requires two-factor sign-in") {
			t.Fatal("enrolment page does not say why")
		}
		if res := c.post("/account/two-factor/disable", url.Values{"password": {password}}); res.status != http.StatusUnprocessableEntity {
			t.Fatalf("turning 2FA off while required: %d", res.status)
		}
	})
}

// TestTwoFactorCodeOnce: a code accepted once is refused for the rest of its window, and
// so is the code of the step before it (skew lets both verify); a code sent by two
// sign-ins at once signs in only one; the refusal is the one answer to a wrong code and
// is audited; the next step's code works.
func TestTwoFactorCodeOnce(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		_, owner := e.newPartner(t, "acme")
		secret := secretShown.FindStringSubmatch(owner.get("/account/two-factor").body)[1]
		clock := e.api.Clock
		code, _ := totp.GenerateCode(secret, clock.Now())
		if res := owner.post("/account/two-factor", url.Values{"secret": {secret}, "code": {code}}); res.status != http.StatusOK {
			t.Fatalf("enrolment: %d", res.status)
		}
		// The enrolment form sent again with the same code is refused.
		if res := owner.post("/account/two-factor", url.Values{"secret": {secret}, "code": {code}}); res.status != http.StatusUnprocessableEntity ||
			!strings.Contains(res.body, "already used") {
			t.Fatalf("enrolment with a spent code: %d", res.status)
		}
		signin := func() *client {
			c := e.client(t)
			if res := c.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}}); res.status != http.StatusSeeOther {
				t.Fatalf("password step: %d", res.status)
			}
			return c
		}
		clock.Advance(30 * time.Second)
		before := code // the previous step's code, still inside the skew
		code, _ = totp.GenerateCode(secret, clock.Now())
		// Two sign-ins send the same fresh code at once: one gets in.
		a, b := signin(), signin()
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, c := range []*client{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = c.post("/signin/code", url.Values{"code": {code}}).status
			}()
		}
		wg.Wait()
		if (statuses[0] == http.StatusSeeOther) == (statuses[1] == http.StatusSeeOther) || statuses[0]+statuses[1] != http.StatusSeeOther+http.StatusUnauthorized {
			t.Fatalf("the same code sent twice at once: %v; want one 303 and one 401", statuses)
		}
		for _, c := range []string{code, before} {
			res := signin().post("/signin/code", url.Values{"code": {c}})
			if res.status != http.StatusUnauthorized || !strings.Contains(res.body, "The code is wrong or has expired.") {
				t.Fatalf("a spent code %s within its window: %d", c, res.status)
			}
		}
		if res := owner.get("/audit"); !strings.Contains(res.body, "code already used") {
			t.Error("the audit log does not name the reused code")
		}
		clock.Advance(30 * time.Second)
		next, _ := totp.GenerateCode(secret, clock.Now())
		if res := signin().post("/signin/code", url.Values{"code": {next}}); res.status != http.StatusSeeOther {
			t.Fatalf("the next step's code: %d", res.status)
		}
	})
}
