// Package web serves the partner portal's pages (shared/spec/portal.md): server-rendered
// html/template pages that work without JavaScript, a little htmx, and one classless
// stylesheet, all embedded in the binary. routes.go lists every page with the action
// (roles.go's table) it needs; middleware.go holds the cross-cutting checks; one file per
// noun holds its GET (show) and POST (change) handlers; templates/ holds the pages.
package web

import (
	"net/http"

	"github.com/tradewind/tradewind/internal/portal"
)

// access says who may reach a route.
type access int

const (
	public  access = iota // anyone, signed in or not
	session               // any signed-in user, whatever the partner's status
	member                // a signed-in user of an approved partner, with the route's action
)

// route is one page or form.
type route struct {
	pattern string // method and path, as http.ServeMux reads them
	access  access
	action  portal.Action // for member routes: the least the role must allow
	handle  handler
}

// routes is every page of the portal.
func (s *Server) routes() []route {
	return []route{
		{"GET /signin", public, "", s.signinShow},
		{"POST /signin", public, "", s.signinCheck},
		{"GET /signin/code", public, "", s.codeShow},
		{"POST /signin/code", public, "", s.codeCheck},
		{"GET /signup", public, "", s.signupShow},
		{"POST /signup", public, "", s.signupSave},
		{"GET /invitations/{token}", public, "", s.linkShow},
		{"POST /invitations/{token}", public, "", s.linkAccept},
		{"GET /reset/{token}", public, "", s.linkShow},
		{"POST /reset/{token}", public, "", s.linkAccept},

		{"POST /signout", session, "", s.signout},
		{"GET /pending", session, "", s.pendingShow},
		{"GET /account/two-factor", session, "", s.twoFactorShow},
		{"POST /account/two-factor", session, "", s.twoFactorEnable},
		{"POST /account/two-factor/disable", session, "", s.twoFactorDisable},

		{"GET /{$}", member, portal.ActView, s.overviewShow},
		{"GET /bookings", member, portal.ActView, s.bookingList},
		{"GET /bookings/export.csv", member, portal.ActCancel, s.bookingExport},
		{"GET /bookings/{reference}", member, portal.ActView, s.bookingShow},
		{"GET /bookings/{reference}/cancel", member, portal.ActCancel, s.bookingCancelShow},
		{"POST /bookings/{reference}/cancel", member, portal.ActCancel, s.bookingCancel},
		{"GET /credit", member, portal.ActView, s.creditShow},
		{"GET /keys", member, portal.ActView, s.keyList},
		{"GET /console", member, portal.ActDevelop, s.consoleShow},
		{"POST /console", member, portal.ActDevelop, s.consoleSend},
		{"GET /logs", member, portal.ActView, s.requestLogList},
		{"GET /logs/{id}", member, portal.ActView, s.requestLogShow}, // bodies: portal.RequestLog checks ActDevelop
		{"GET /webhooks", member, portal.ActView, s.webhookList},
		{"POST /webhooks", member, portal.ActDevelop, s.webhookCreate},
		{"GET /webhooks/{id}", member, portal.ActView, s.webhookShow},
		{"POST /webhooks/{id}/delete", member, portal.ActDevelop, s.webhookDelete},
		{"POST /webhooks/{id}/test", member, portal.ActDevelop, s.webhookTest},
		{"POST /webhooks/{id}/roll", member, portal.ActDevelop, s.webhookRoll},
		{"POST /webhooks/{id}/pause", member, portal.ActDevelop, s.webhookPause},
		{"POST /webhooks/{id}/resume", member, portal.ActDevelop, s.webhookResume},
		{"POST /events/{id}/redeliver", member, portal.ActDevelop, s.eventRedeliver},
		{"GET /account", member, portal.ActView, s.accountShow},
		{"POST /account", member, portal.ActView, s.accountSave},
		{"POST /account/password", member, portal.ActView, s.passwordSave},
		{"POST /account/sessions/{id}/end", member, portal.ActView, s.sessionEnd},
		{"GET /team", member, portal.ActView, s.teamShow},
		{"POST /team/invitations", member, portal.ActManageTeam, s.teamInvite},
		{"POST /team/{id}/role", member, portal.ActManageTeam, s.teamRole},
		{"POST /team/{id}/remove", member, portal.ActManageTeam, s.teamRemove},
		{"POST /team/{id}/transfer", member, portal.ActOwn, s.teamTransfer},
		{"POST /team/two-factor", member, portal.ActOwn, s.teamTwoFactor},
		{"GET /audit", member, portal.ActManageTeam, s.auditShow},
	}
}

func (s *Server) mux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.pattern, s.guard(rt))
	}
	mux.Handle("GET /assets/{file}", assetHandler())
	mux.Handle("/", s.guard(route{access: public, handle: func(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
		return errPageNotFound
	}}))
	return mux
}
