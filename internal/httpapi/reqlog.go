package httpapi

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store"
)

// RequestRecorder takes the request log's entries (*reqlog.Logger); Record must return
// at once. When Full, the request's answer is not captured and its entry is recorded
// with keep false (counted in the usage, dropped).
type RequestRecorder interface {
	Full() bool
	Record(e *store.RequestLogEntry, keep bool)
}

// logEntry is the request log's entry of a request whose key resolved (ri.key set). It
// keeps no header but the user agent and the Idempotency-Key: never the key, the
// signature or a cookie. The writer redacts the bodies, off the request path.
func (s *Server) logEntry(r *http.Request, ri *requestInfo, rec *statusRecorder, at time.Time, d time.Duration) *store.RequestLogEntry {
	e := &store.RequestLogEntry{
		PartnerID: ri.partnerID, Mode: ri.key.Mode, At: at, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Route: ri.route, Status: rec.status, Duration: d, KeyID: ri.key.ID, KeyPrefix: ri.key.Prefix,
		ClientAddr: s.clientAddr(r), UserAgent: truncateText(r.UserAgent(), 500), RequestID: ri.id,
		IdempotencyKey: truncateText(headerGet(r.Header, hdrIdempotencyKey), 500), Console: ri.console,
		RequestBody: ri.body, RequestSize: int64(len(ri.body)), ResponseBody: rec.body, ResponseSize: rec.size,
	}
	if len(ri.body) > reqlog.MaxBody {
		// A copy of the kept part, so that the queue does not hold the whole body.
		e.RequestBody = bytes.Clone(ri.body[:reqlog.MaxBody])
	}
	if e.Status >= 400 {
		var env struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(rec.body, &env) == nil {
			e.ErrorCode = env.Code
		}
	}
	return e
}

func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.ClientAddr != nil {
		if a := s.cfg.ClientAddr(r); a.IsValid() {
			return a.String()
		}
		return ""
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return ""
}

// resolveForLog finds the partner of a request that matched no endpoint, so that its
// 404 or 405 is in the partner's request log too (with route ""). The answer does not
// change: a key that does not resolve is simply not logged.
func (s *Server) resolveForLog(r *http.Request) {
	_, console := consoleOf(r.Context())
	if s.cfg.RequestLog == nil || (!console && headerGet(r.Header, hdrAPIKey) == "") || !strings.HasPrefix(r.URL.Path, Prefix) {
		return
	}
	if c, err := s.caller(r); err == nil {
		ri := infoFrom(r.Context())
		ri.partnerID, ri.key = c.Partner.ID, c.Key
	}
}
