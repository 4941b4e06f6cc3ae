package httpapi

import (
	"net/http"
	"strings"

	"github.com/tradewind/tradewind"
)

// MaxHeaderBytes is the largest request head (request line and header fields) the
// partner API accepts; a larger one is answered 431 in the envelope by limitHeaders.
const MaxHeaderBytes = 64 << 10

// ServerMaxHeaderBytes is what http.Server.MaxHeaderBytes must be set to (it is the
// serve command's): well above MaxHeaderBytes, so that net/http lets the handler answer a
// head between the two in the envelope; only a head larger than this (plus net/http's
// 4 KiB of slack) still gets net/http's bare 431.
const ServerMaxHeaderBytes = 1 << 20

// ConfigureServer sets what hs needs for every answer to be the envelope wherever
// net/http lets a handler answer: MaxHeaderBytes above the limit the handler enforces, and
// "OPTIONS *" passed to the handler instead of net/http's bare 200.
func ConfigureServer(hs *http.Server) {
	hs.MaxHeaderBytes = ServerMaxHeaderBytes
	hs.DisableGeneralOptionsHandler = true
}

// harden is the outermost layer inside the request id: it sets the headers every answer
// carries, and answers in the envelope what ServeMux or net/http would otherwise answer
// bare: an oversized head (431), a request target that is not a canonical path (404,
// where ServeMux would redirect) and "OPTIONS *" (400).
func (s *Server) harden(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		headerSet(h, hdrNoSniff, "nosniff")
		// No cache keeps an answer: they are per partner and per key. The unauthenticated
		// documentation routes set their own Cache-Control.
		headerSet(h, hdrCacheControl, "no-store")
		if n := headBytes(r); n > MaxHeaderBytes {
			writeErrorBody(w, http.StatusRequestHeaderFieldsTooLarge, tradewind.Errorf(tradewind.ECodeBadRequest,
				"The request's header fields take %d bytes; at most %d are accepted.", n, MaxHeaderBytes))
			return
		}
		if r.RequestURI == "*" {
			writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeBadRequest, "The request target * is not served."))
			return
		}
		if p := r.URL.EscapedPath(); !canonical(p) {
			// ServeMux would answer a redirect to the cleaned path: a client that follows
			// it would send its key and body to a path it never chose.
			writeError(w, r, s.logger, tradewind.Errorf(tradewind.ECodeNotFound,
				"No endpoint %s %s: the path is not canonical (no empty, \".\" or \"..\" segments).", r.Method, p))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// canonical reports whether p is a clean absolute path: no empty, "." or ".." segments
// (a trailing slash is allowed), which is the path ServeMux serves without redirecting:
// path.Clean(p) plus p's trailing slash is p (TestCanonicalAsClean), checked segment by
// segment without building the cleaned path.
func canonical(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for rest := p[1:]; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "." || seg == ".." || (seg == "" && more) {
			return false
		}
		if !more {
			return true
		}
		rest = after
	}
}

// headBytes approximates the size of r's request head as net/http counts it against
// MaxHeaderBytes: the request line and every header line.
func headBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	n += len("Host: ") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n + 2
}
