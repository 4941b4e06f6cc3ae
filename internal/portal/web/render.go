package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/portal"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/*.js assets/*.css
var assetFS embed.FS

// pages are the parsed templates, each page with the shared layout.
var pages = parsePages()

func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" || base == "partials.html" {
			continue
		}
		out[strings.TrimSuffix(base, ".html")] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n))
	}
	return out
}

var funcs = template.FuncMap{
	"money":  func(minor int64, currency string) string { return money.Format(minor, currency) + " " + currency },
	"can":    func(m *portal.Member, a string) bool { return m != nil && m.Can(portal.Action(a)) },
	"roles":  func() []string { return portal.Roles },
	"events": func() []tradewind.EventType { return tradewind.AllEventTypes },
	"join": func(list any, sep string) string { // any slice of strings or string types
		v := reflect.ValueOf(list)
		if v.Kind() != reflect.Slice {
			return ""
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = v.Index(i).String()
		}
		return strings.Join(parts, sep)
	},
	"ms":         func(d time.Duration) int64 { return d.Milliseconds() },
	"statustext": http.StatusText,
	"errorrate":  portal.ErrorRate,
	"sum": func(vs []int64) (n int64) {
		for _, v := range vs {
			n += v
		}
		return n
	},
	"apibase": openapi.BasePath,
	"list":    func(v ...string) []string { return v },
	"pretty": func(raw []byte) string { // stored JSON, indented for reading
		var b bytes.Buffer
		if json.Indent(&b, raw, "", "  ") != nil {
			return string(raw)
		}
		return b.String()
	},
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
}

// view is what every page template gets.
type view struct {
	Title   string
	Member  *portal.Member
	Nav     string // the navigation entry of the page
	Mode    string // "live" or "test" on pages with the switch, else ""
	Path    string
	Query   url.Values
	Notice  string
	Message string   // an error's message
	Errors  []string // every problem of a refused form
	Form    url.Values
	Data    any
}

// ModeURL is the current page in the other mode, keeping its filters.
func (v *view) ModeURL(mode string) string {
	q := url.Values{}
	for k, vs := range v.Query {
		if k != "mode" && k != "before" {
			q[k] = vs
		}
	}
	q.Set("mode", mode)
	return v.Path + "?" + q.Encode()
}

// Time renders t in the member's time zone, with UTC on hover.
func (v *view) Time(t time.Time) template.HTML {
	if t.IsZero() {
		return "–"
	}
	loc := time.UTC
	if v.Member != nil {
		loc = v.Member.Location()
	}
	utc := t.UTC().Format("2006-01-02 15:04:05 UTC")
	local := t.In(loc).Format("2006-01-02 15:04 MST")
	return template.HTML(`<time datetime="` + template.HTMLEscapeString(t.UTC().Format(time.RFC3339)) + `" title="` +
		template.HTMLEscapeString(utc) + `">` + template.HTMLEscapeString(local) + `</time>`)
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, v *view) error {
	t, ok := pages[name]
	if !ok {
		return errors.New("web: no template " + name)
	}
	v.Path, v.Query = r.URL.Path, r.URL.Query()
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}

// errPageNotFound answers an unknown path.
var errPageNotFound = tradewind.Errorf(tradewind.ECodeNotFound, "There is no such page.")

// fail renders an error page: 404 for anything absent or another partner's, 403 for
// a role that does not allow the action, 400/422 for a refused request, else 500
// (logged, never shown).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, m *portal.Member, err error) {
	status, msg := http.StatusInternalServerError, "Something went wrong on our side; please try again."
	var te *tradewind.Error
	var details []string
	if errors.As(err, &te) {
		msg, details, status = te.Message, te.Details, statusOf(te.Code)
	} else {
		s.logger.ErrorContext(r.Context(), "portal request failed", "path", r.URL.Path, "err", err)
	}
	v := &view{Title: http.StatusText(status), Member: m, Message: msg, Errors: details}
	if rerr := s.render(w, r, status, "error", v); rerr != nil {
		http.Error(w, msg, status)
	}
}

// statusOf is the HTTP status of an error code on a page.
func statusOf(code string) int {
	switch code {
	case tradewind.ECodeNotFound:
		return http.StatusNotFound
	case "forbidden":
		return http.StatusForbidden
	case tradewind.ECodeUnauthorized:
		return http.StatusUnauthorized
	case tradewind.ECodeRateLimited:
		return http.StatusTooManyRequests
	case tradewind.ECodeUnavailable:
		return http.StatusServiceUnavailable
	case tradewind.ECodeNotCancellable:
		return http.StatusConflict
	case tradewind.ECodeValidationFailed, tradewind.ECodeBadRequest: // a refused form or filter
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadRequest
}

// formError re-renders a form page with the problems of err when it is a refused form;
// any other error goes to fail.
func (s *Server) formError(w http.ResponseWriter, r *http.Request, name string, v *view, err error) error {
	var te *tradewind.Error
	if !errors.As(err, &te) || te.Code == tradewind.ECodeNotFound || te.Code == "forbidden" {
		return err
	}
	v.Message, v.Errors, v.Form = te.Message, te.Details, r.PostForm
	status := statusOf(te.Code)
	return s.render(w, r, status, name, v)
}

func assetHandler() http.Handler {
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		r2 := new(http.Request)
		*r2 = *r
		r2.URL = &url.URL{Path: "/" + r.PathValue("file")}
		files.ServeHTTP(w, r2)
	})
}
