package web

import (
	"net/http"
	"strconv"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/portal"
)

// consolePage is the test console: the endpoints and test keys to choose from, the
// call in the form, and the API's answer once sent.
type consolePage struct {
	Operations []openapi.Operation
	Keys       []*tradewind.APIKey
	Endpoint   string // the chosen endpoint, "METHOD /path"
	Call       portal.ConsoleCall
	Result     *portal.ConsoleResult
	APIDocs    string // the API's reference page, when its address is known
}

func (s *Server) consoleView(r *http.Request, m *portal.Member, call portal.ConsoleCall) (*view, error) {
	ops, err := s.portal.ConsoleOperations()
	if err != nil {
		return nil, err
	}
	keys, err := s.portal.ConsoleKeys(r.Context(), m)
	if err != nil {
		return nil, err
	}
	page := &consolePage{Operations: ops, Keys: keys, Call: call}
	if s.cfg.APIURL != "" {
		page.APIDocs = s.cfg.APIURL + "/docs"
	}
	return &view{Title: "Test console", Member: m, Nav: "console", Data: page}, nil
}

// consoleShow shows the console with the chosen endpoint's example (?endpoint=) and
// key (?key=) prefilled.
func (s *Server) consoleShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	endpoint := r.URL.Query().Get("endpoint")
	call, err := s.portal.ConsoleDraft(endpoint)
	if err != nil {
		return err
	}
	call.KeyID = queryID(r, "key")
	v, err := s.consoleView(r, m, call)
	if err != nil {
		return err
	}
	v.Data.(*consolePage).Endpoint = endpoint
	return s.render(w, r, http.StatusOK, "console", v)
}

// consoleSend sends the form's call through the API and shows the answer with the form
// as sent; without JavaScript this is the whole page, with htmx it replaces the answer.
func (s *Server) consoleSend(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if err := r.ParseForm(); err != nil {
		return tradewind.Errorf(tradewind.ECodeValidationFailed, "The form is larger than 64 KB; send a smaller body.")
	}
	f := r.PostForm
	keyID, _ := strconv.ParseInt(f.Get("key"), 10, 64)
	call := portal.ConsoleCall{KeyID: keyID, Method: f.Get("method"), Path: f.Get("path"), Headers: f.Get("headers"), Body: f.Get("body")}
	v, err := s.consoleView(r, m, call)
	if err != nil {
		return err
	}
	page := v.Data.(*consolePage)
	page.Endpoint = f.Get("endpoint")
	page.Result, err = s.portal.ConsoleSend(r.Context(), m, s.cfg.Console, call, s.cfg.APIURL, s.clientAddr(r))
	if err != nil {
		return s.formError(w, r, "console", v, err)
	}
	return s.render(w, r, http.StatusOK, "console", v)
}
