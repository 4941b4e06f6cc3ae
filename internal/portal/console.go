package portal

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/openapi"
)

// ConsoleAPI is the partner API as the test console calls it: httpapi.Server's
// ServeConsole, which runs r through the API's handler chain as the partner's test key
// keyID, the portal session standing in for the IP allowlist, mTLS and signature.
type ConsoleAPI interface {
	ServeConsole(w http.ResponseWriter, r *http.Request, partnerID, keyID int64)
}

// Bounds of a console call: the form is small, an answer is shown up to its first MB.
const (
	consoleMaxPath    = 2048
	consoleMaxHeaders = 20
	consoleMaxBody    = 64 << 10
	consoleMaxAnswer  = 1 << 20
)

// consoleHeaders are the request headers the console sends (canonical names); the key
// is chosen by id and the session stands in for signatures, so no other is needed.
var consoleHeaders = []string{"Accept", "Content-Type", "Idempotency-Key", "Tradewind-Scenario", "X-Request-Id"}

// ConsoleKeys returns the partner's usable test keys: the only keys the console runs as,
// so that it never acts on live data.
func (s *Service) ConsoleKeys(ctx context.Context, m *Member) ([]*tradewind.APIKey, error) {
	keys, err := s.store.KeyListByPartner(ctx, m.Partner.ID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	return slices.DeleteFunc(keys, func(k *tradewind.APIKey) bool { return k.Mode != tradewind.ModeTest || !k.Usable(now) }), nil
}

// ConsoleOperations lists the endpoints of the served OpenAPI document.
func (s *Service) ConsoleOperations() ([]openapi.Operation, error) { return openapi.Operations() }

// ConsoleCall is a request the console sends, as its form holds it.
type ConsoleCall struct {
	KeyID   int64
	Method  string
	Path    string // relative to the API's base path, query included
	Headers string // "Name: value" lines
	Body    string
}

// ConsoleDraft prefills the console's form for the endpoint id ("METHOD /path"): the
// path with its parameters' examples, the headers it requires (a fresh Idempotency-Key)
// and the document's example body, its dates moved to start 30 days from today (the
// document's are fixed, and a past date would only be refused). An unknown id gives
// the first endpoint.
func (s *Service) ConsoleDraft(id string) (ConsoleCall, error) {
	ops, err := s.ConsoleOperations()
	if err != nil {
		return ConsoleCall{}, err
	}
	if len(ops) == 0 {
		return ConsoleCall{}, errors.New("portal: the API document has no endpoint")
	}
	op := ops[0]
	if i := slices.IndexFunc(ops, func(o openapi.Operation) bool { return o.ID() == id }); i >= 0 {
		op = ops[i]
	}
	path := op.Path
	for name, ex := range op.PathExamples {
		path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(ex))
	}
	var headers []string
	if op.Example != "" {
		headers = append(headers, "Content-Type: application/json")
	}
	for _, h := range op.Headers {
		v := "console-" + randomHex(8)
		headers = append(headers, h+": "+v)
	}
	body, path := shiftDates(op.Example, path, s.now().AddDate(0, 0, consoleLeadDays))
	return ConsoleCall{Method: op.Method, Path: path, Headers: strings.Join(headers, "\n"), Body: body}, nil
}

// consoleLeadDays is how far ahead the console's example dates start.
const consoleLeadDays = 30

var exampleDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// shiftDates moves every date of the texts by the same number of days, so that the
// earliest becomes start's day: the stay lengths and date ranges stay as documented.
func shiftDates(body, path string, start time.Time) (string, string) {
	var first time.Time
	for _, m := range exampleDate.FindAllString(body+" "+path, -1) {
		if d, err := time.Parse(tradewind.DateLayout, m); err == nil && (first.IsZero() || d.Before(first)) {
			first = d
		}
	}
	if first.IsZero() {
		return body, path
	}
	start = time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
	days := int(start.Sub(first).Hours() / 24)
	shift := func(s string) string {
		return exampleDate.ReplaceAllStringFunc(s, func(m string) string {
			d, err := time.Parse(tradewind.DateLayout, m)
			if err != nil {
				return m
			}
			return d.AddDate(0, 0, days).Format(tradewind.DateLayout)
		})
	}
	return shift(body), shift(path)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ConsoleResult is the API's answer to a console call, and the call as curl.
type ConsoleResult struct {
	Status    int
	Headers   []HeaderLine // sorted by name
	Body      string       // indented when JSON
	Truncated bool         // the answer was longer than shown
	Curl      string       // the call as a curl command, the key as a placeholder
}

// HeaderLine is one response header.
type HeaderLine struct{ Name, Value string }

// ConsoleSend sends call through api as the member's test key call.KeyID: 404 unless
// the key is one of ConsoleKeys; 422 with every problem of the form. The answer (any
// status, the API's errors included) is the result. apiURL is the API's base URL for
// the curl command ("" writes a placeholder).
func (s *Service) ConsoleSend(ctx context.Context, m *Member, api ConsoleAPI, call ConsoleCall, apiURL, clientAddr string) (*ConsoleResult, error) {
	if api == nil {
		return nil, tradewind.Errorf(tradewind.ECodeUnavailable, "The test console is not available on this server.")
	}
	keys, err := s.ConsoleKeys(ctx, m)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(keys, func(k *tradewind.APIKey) bool { return k.ID == call.KeyID }) {
		return nil, notFound("Test key")
	}
	target, header, err := call.parse()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, call.Method, target.String(), strings.NewReader(call.Body))
	if err != nil {
		return nil, invalid("method or path: not a request")
	}
	req.Header = header
	if clientAddr != "" {
		req.RemoteAddr = net.JoinHostPort(clientAddr, "0")
	}
	command := curl(call, target, header, apiURL)
	rec := &answer{header: http.Header{}}
	api.ServeConsole(rec, req, m.Partner.ID, call.KeyID)
	res := &ConsoleResult{Status: rec.status, Truncated: rec.truncated, Curl: command}
	if res.Status == 0 {
		res.Status = http.StatusOK
	}
	for name, vs := range rec.header {
		for _, v := range vs {
			res.Headers = append(res.Headers, HeaderLine{name, v})
		}
	}
	slices.SortStableFunc(res.Headers, func(a, b HeaderLine) int { return strings.Compare(a.Name, b.Name) })
	res.Body = rec.body.String()
	var pretty bytes.Buffer
	if !rec.truncated && json.Indent(&pretty, rec.body.Bytes(), "", "  ") == nil {
		res.Body = pretty.String()
	}
	return res, nil
}

// parse checks the form and returns the request's URL (under the API's base path) and
// headers; every problem is reported at once.
func (c ConsoleCall) parse() (*url.URL, http.Header, error) {
	var problems []string
	if !slices.Contains([]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}, c.Method) {
		problems = append(problems, "method: one of GET, POST, PUT, PATCH, DELETE")
	}
	target, err := url.Parse(c.Path)
	switch {
	case c.Path == "" || !strings.HasPrefix(c.Path, "/") || len(c.Path) > consoleMaxPath:
		problems = append(problems, fmt.Sprintf("path: starts with / (relative to %s), at most %d characters", openapi.BasePath(), consoleMaxPath))
	case err != nil || target.Host != "" || target.Fragment != "" || strings.Contains(target.Path, "//") ||
		slices.Contains(strings.Split(target.Path, "/"), ".."):
		problems = append(problems, "path: a path of the API, without .. or //, and no #fragment")
	}
	header := http.Header{}
	lines := strings.Split(strings.ReplaceAll(c.Headers, "\r\n", "\n"), "\n")
	if len(lines) > consoleMaxHeaders {
		problems = append(problems, fmt.Sprintf("headers: at most %d", consoleMaxHeaders))
		lines = nil
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		name = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("headers: %q is not \"Name: value\"", l))
		case !slices.Contains(consoleHeaders, name):
			problems = append(problems, fmt.Sprintf("headers: the console sends only %s (the key is the one chosen above; the session stands in for signatures)",
				strings.Join(consoleHeaders, ", ")))
		default:
			header.Add(name, strings.TrimSpace(value))
		}
	}
	if len(c.Body) > consoleMaxBody {
		problems = append(problems, fmt.Sprintf("body: at most %d bytes", consoleMaxBody))
	}
	if len(problems) > 0 {
		return nil, nil, invalid(problems...)
	}
	if c.Body != "" && header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/json") // every body of the API is JSON
	}
	full := &url.URL{Path: openapi.BasePath() + target.Path, RawQuery: target.RawQuery}
	return full, header, nil
}

// curl writes the call as a curl command (see curlCommand); the API's address is
// apiURL's, when known.
func curl(c ConsoleCall, target *url.URL, header http.Header, apiURL string) string {
	var headers []HeaderLine
	for _, name := range consoleHeaders {
		for _, v := range header.Values(name) {
			headers = append(headers, HeaderLine{name, v})
		}
	}
	return curlCommand(c.Method, strings.TrimSuffix(apiURL, openapi.BasePath()), target.String(), headers, c.Body)
}

// answer records the API's answer to a console call, keeping the first
// consoleMaxAnswer bytes of its body.
type answer struct {
	header    http.Header
	status    int
	body      bytes.Buffer
	truncated bool
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if room := consoleMaxAnswer - a.body.Len(); len(p) > room {
		a.body.Write(p[:max(room, 0)])
		a.truncated = true
		return len(p), nil
	}
	return a.body.Write(p)
}
