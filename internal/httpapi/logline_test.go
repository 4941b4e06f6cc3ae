package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRequestLineAsInfoContext checks that logRequest writes the line the middleware
// wrote with InfoContext and untyped arguments, request id included.
func TestRequestLineAsInfoContext(t *testing.T) {
	var got, want bytes.Buffer
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	newLogger := func(buf *bytes.Buffer, level slog.Level) *slog.Logger {
		return slog.New(LogHandler(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level, ReplaceAttr: noTime})))
	}
	r := httptest.NewRequest("POST", Prefix+"/hotels/availability", nil)
	ri := &requestInfo{id: "req_1", partnerID: 42, route: "POST /hotels/availability", console: true}
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
	d := 1534 * time.Millisecond

	s := &Server{logger: newLogger(&got, slog.LevelInfo)}
	s.logRequest(r, ri, 200, time.Now(), d)
	newLogger(&want, slog.LevelInfo).InfoContext(r.Context(), "request", "method", r.Method, "route", ri.route, "path", r.URL.Path,
		"status", 200, "duration_ms", d.Milliseconds(), "partner_id", ri.partnerID, "console", ri.console)
	if got.String() != want.String() || got.Len() == 0 {
		t.Errorf("request line\n got %s\nwant %s", got.String(), want.String())
	}

	got.Reset()
	s = &Server{logger: newLogger(&got, slog.LevelWarn)}
	s.logRequest(r, ri, 200, time.Now(), d)
	if got.Len() != 0 {
		t.Errorf("logged below the handler's level: %s", got.String())
	}
}
