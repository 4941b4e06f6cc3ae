package web

import (
	"html/template"
	"net/http"
	"net/url"

	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
)

// requestLogQuery reads the request log page's filters from its URL.
func requestLogQuery(q url.Values) portal.RequestLogQuery {
	return portal.RequestLogQuery{Mode: q.Get("mode"), StatusClass: q.Get("class"), Status: q.Get("status"),
		ErrorCode: q.Get("code"), Method: q.Get("method"), Path: q.Get("path"), KeyPrefix: q.Get("key"),
		From: q.Get("from"), To: q.Get("to"), RequestID: q.Get("request_id"), Before: q.Get("before")}
}

type requestLogPage struct {
	Entries   []*store.RequestLogEntry
	NextURL   template.URL // the next page, its query already encoded
	RequestID string       // the page looks one request id up, in both modes
}

func (s *Server) requestLogList(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	q := r.URL.Query()
	lq := requestLogQuery(q)
	v := &view{Title: "Request logs", Member: m, Nav: "logs", Mode: string(portal.Mode(lq.Mode))}
	if lq.RequestID != "" {
		v.Mode = "" // both modes: no switch
	}
	list, next, err := s.portal.RequestLogs(r.Context(), m, lq)
	if err != nil {
		v.Data = requestLogPage{}
		return s.formError(w, r, "logs", v, err)
	}
	page := requestLogPage{Entries: list, RequestID: lq.RequestID}
	if next != "" {
		nq := url.Values{}
		for k, vs := range q {
			nq[k] = vs
		}
		nq.Set("before", next)
		page.NextURL = template.URL("/logs?" + nq.Encode())
	}
	v.Data = page
	return s.render(w, r, http.StatusOK, "logs", v)
}

type requestLogDetail struct {
	Entry  *store.RequestLogEntry
	Bodies bool // the member's role may see them
	Curl   string
}

func (s *Server) requestLogShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	e, err := s.portal.RequestLog(r.Context(), m, id)
	if err != nil {
		return err
	}
	d := requestLogDetail{Entry: e, Bodies: m.Can(portal.ActDevelop)}
	if d.Bodies { // the command carries the request body
		d.Curl = portal.Curl(e)
	}
	return s.render(w, r, http.StatusOK, "log", &view{Title: e.Method + " " + e.Path, Member: m, Nav: "logs", Data: d})
}
