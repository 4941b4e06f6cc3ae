package portal

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// RequestLogQuery is the request log page's filters, as the page's URL carries them.
type RequestLogQuery struct {
	Mode        string // "test" or anything else for live; ignored with RequestID
	StatusClass string // "2xx", "3xx", "4xx" or "5xx"; "" any
	Status      string // an HTTP status; "" any
	ErrorCode   string
	Method      string
	Path        string // a path prefix, with or without /api/partner/v1
	KeyPrefix   string // a key's prefix, as the Keys page shows it
	From, To    string // YYYY-MM-DD in the member's time zone, both days included
	RequestID   string // every entry with this X-Request-Id, in both modes
	Before      string // the keyset cursor of the next page: "<unix µs>.<id>"
}

// requestLogPathPrefix is the partner API's path prefix (httpapi.Prefix), which a
// path filter may leave out.
const requestLogPathPrefix = "/api/partner/v1"

// RequestLogs returns a page of the member's partner's request log, newest first, and
// the cursor of the next page ("" on the last). The entries carry no bodies.
func (s *Service) RequestLogs(ctx context.Context, m *Member, q RequestLogQuery) ([]*store.RequestLogEntry, string, error) {
	f := store.RequestLogFilter{PartnerID: m.Partner.ID, Mode: Mode(q.Mode), ErrorCode: strings.TrimSpace(q.ErrorCode),
		Method: strings.ToUpper(strings.TrimSpace(q.Method)), RequestID: strings.TrimSpace(q.RequestID), Limit: PageSize + 1}
	var problems []string
	if f.RequestID != "" {
		f.Mode = "" // an id finds its entries whatever their mode
	}
	if c := q.StatusClass; c != "" {
		if len(c) != 3 || c[0] < '1' || c[0] > '5' || c[1:] != "xx" {
			problems = append(problems, "status class: one of 2xx, 3xx, 4xx, 5xx")
		}
		f.StatusClass = int(c[0] - '0')
	}
	if q.Status != "" {
		n, err := strconv.Atoi(q.Status)
		if err != nil || n < 100 || n > 599 {
			problems = append(problems, "status: an HTTP status such as 422")
		}
		f.Status = n
	}
	if p := strings.TrimSpace(q.Path); p != "" {
		if !strings.HasPrefix(p, requestLogPathPrefix) {
			p = requestLogPathPrefix + "/" + strings.TrimPrefix(p, "/")
		}
		f.PathPrefix = p
	}
	f.KeyPrefix = strings.TrimSpace(q.KeyPrefix)
	loc := m.Location()
	day := func(name, v string) time.Time {
		if v == "" {
			return time.Time{}
		}
		t, err := time.ParseInLocation(tradewind.DateLayout, v, loc)
		if err != nil {
			problems = append(problems, name+": a date YYYY-MM-DD")
		}
		return t
	}
	f.From = day("from", q.From)
	// The day after 9999-12-31 ("no end") is no bound: the year 10000 compares as text
	// before every stored time.
	if to := day("to", q.To); !to.IsZero() && to.AddDate(0, 0, 1).Year() <= 9999 {
		f.To = to.AddDate(0, 0, 1)
	}
	if q.Before != "" {
		us, id, ok := strings.Cut(q.Before, ".")
		at, err1 := strconv.ParseInt(us, 10, 64)
		n, err2 := strconv.ParseInt(id, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			problems = append(problems, "before: not a page of this list")
		}
		f.BeforeAt, f.BeforeID = time.UnixMicro(at).UTC(), n
	}
	if len(problems) > 0 {
		return nil, "", invalid(problems...)
	}
	list, err := s.store.RequestLogList(ctx, f)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(list) > PageSize {
		list = list[:PageSize]
		last := list[len(list)-1]
		next = fmt.Sprintf("%d.%d", last.At.UnixMicro(), last.ID)
	}
	return list, next, nil
}

// RequestLog returns one entry of the member's partner's request log (ErrNotFound for
// another partner's); its bodies only when the member's role may see them (ActDevelop),
// otherwise they are cleared and the sizes kept.
func (s *Service) RequestLog(ctx context.Context, m *Member, id int64) (*store.RequestLogEntry, error) {
	e, err := s.store.RequestLogGet(ctx, m.Partner.ID, id)
	if err != nil {
		return nil, mapNotFound(err, "Request")
	}
	if !m.Can(ActDevelop) {
		e.RequestBody, e.ResponseBody = nil, nil
	}
	return e, nil
}

// Curl is the entry's request as a curl command without any secret: the key and the
// API's address are the shell variables TRADEWIND_API_KEY and TRADEWIND_URL, and no
// signature, which the caller computes (docs/request-logs.md).
func Curl(e *store.RequestLogEntry) string {
	target := e.Path
	if e.Query != "" {
		target += "?" + e.Query
	}
	var headers []HeaderLine
	if e.RequestID != "" {
		headers = append(headers, HeaderLine{"X-Request-Id", e.RequestID})
	}
	if e.IdempotencyKey != "" {
		headers = append(headers, HeaderLine{"Idempotency-Key", e.IdempotencyKey})
	}
	var body string
	if len(e.RequestBody) > 0 && e.Method != http.MethodGet {
		headers = append(headers, HeaderLine{"Content-Type", "application/json"})
		body = string(e.RequestBody)
	}
	return curlCommand(e.Method, "", target, headers, body)
}

// curlCommand writes a request as a curl command that holds no secret: the key is the
// shell variable TRADEWIND_API_KEY; base is the API's address, or "" for the shell
// variable TRADEWIND_URL. Everything else (method, path and query, headers, body) is
// single-quoted for the shell.
func curlCommand(method, base, target string, headers []HeaderLine, body string) string {
	var b strings.Builder
	url := `"$TRADEWIND_URL"` + shellQuote(target)
	if base != "" {
		url = shellQuote(base + target)
	}
	fmt.Fprintf(&b, "curl -X %s %s \\\n  -H \"auth-api-key: $TRADEWIND_API_KEY\"", shellQuote(method), url)
	for _, h := range headers {
		fmt.Fprintf(&b, " \\\n  -H %s", shellQuote(h.Name+": "+h.Value))
	}
	if body != "" {
		fmt.Fprintf(&b, " \\\n  --data-raw %s", shellQuote(body))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell: in single quotes, each single quote in s
// closed, escaped and reopened.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
