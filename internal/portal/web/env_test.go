package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/portal/web"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// env is the partner API and the portal over one fresh database.
type env struct {
	api    *apitest.Env
	portal *portal.Service
	srv    *httptest.Server
}

const password = "correct horse battery 9"

func newEnv(t *testing.T, o storetest.Opener, opts ...apitest.Option) *env {
	t.Helper()
	api := apitest.New(t, o, opts...)
	api.Import(apitest.Catalog())
	ps := portal.New(api.Service, portal.Config{Hash: portal.TestParams, MaxPending: 3})
	srv := httptest.NewServer(web.New(web.Config{Portal: ps, Console: api.API, APIURL: api.URL}))
	t.Cleanup(srv.Close)
	return &env{api: api, portal: ps, srv: srv}
}

// client is a browser of the portal: a cookie jar and no redirects followed, so that
// tests see each answer.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func (e *env) client(t *testing.T) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: e.srv.URL, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// member returns a signed-in client of a new user of partner with role (its id too).
func (e *env) member(t *testing.T, partner, email, role string) (*client, int64) {
	t.Helper()
	ctx := context.Background()
	inv, err := e.portal.InviteAsOperator(ctx, partner, email, role)
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := e.portal.AcceptLink(ctx, inv.Token, "User "+role, password, "192.0.2.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	return e.signin(t, email), m.User.ID
}

// signin returns a new signed-in client of the user.
func (e *env) signin(t *testing.T, email string) *client {
	t.Helper()
	c := e.client(t)
	if res := c.post("/signin", url.Values{"email": {email}, "password": {password}}); res.status != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d %s", email, res.status, res.body)
	}
	return c
}

type result struct {
	status int
	header http.Header
	body   string
}

func (c *client) do(req *http.Request) result {
	c.t.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return result{status: res.StatusCode, header: res.Header, body: string(b)}
}

func (c *client) get(path string) result {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	return c.do(req)
}

// post sends a form as a same-origin browser does.
func (c *client) post(path string, form url.Values) result {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.do(req)
}

// bookHotel books the small room for the night of day 3 through the API with key and
// returns its reference.
func (e *env) bookHotel(t *testing.T, key, idem string) string {
	t.Helper()
	return e.bookHotelOn(t, key, idem, 3, 4)
}

// bookHotelOn books the small room from day in to day out.
func (e *env) bookHotelOn(t *testing.T, key, idem string, in, out int) string {
	t.Helper()
	body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Ada Lovelace"}}`,
		apitest.HotelLisbon, apitest.RoomSmall, apitest.Day(in), apitest.Day(out))
	res := e.api.Book(key, idem, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("book: %d %s", res.Status, res.Raw)
	}
	return res.Map(t)["reference"].(string)
}

// newPartner creates an active partner with keys and an owner signed in.
func (e *env) newPartner(t *testing.T, name string) (*apitest.Partner, *client) {
	t.Helper()
	p := e.api.NewPartner(name, booking.PartnerParams{})
	owner, _ := e.member(t, name, "owner@"+name+".example", portal.RoleOwner)
	return p, owner
}
