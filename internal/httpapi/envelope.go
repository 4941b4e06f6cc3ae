package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// statusOf maps every error code to its one HTTP status.
var statusOf = map[string]int{
	tradewind.ECodeBadRequest:             http.StatusBadRequest,
	tradewind.ECodeIdempotencyKeyRequired: http.StatusBadRequest,
	tradewind.ECodeUnauthorized:           http.StatusUnauthorized,
	tradewind.ECodeSignatureRequired:      http.StatusUnauthorized,
	tradewind.ECodeSignatureExpired:       http.StatusUnauthorized,
	tradewind.ECodeSignatureInvalid:       http.StatusUnauthorized,
	tradewind.ECodeInsufficientCredit:     http.StatusPaymentRequired,
	tradewind.ECodeCreditBlocked:          http.StatusPaymentRequired,
	tradewind.ECodeIPNotAllowed:           http.StatusForbidden,
	tradewind.ECodeMTLSRequired:           http.StatusForbidden,
	tradewind.ECodeInsufficientScope:      http.StatusForbidden,
	tradewind.ECodeProductNotEnabled:      http.StatusForbidden,
	tradewind.ECodeNotFound:               http.StatusNotFound,
	tradewind.ECodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	tradewind.ECodeDuplicatePartnerRef:    http.StatusConflict,
	tradewind.ECodeInvalidQuote:           http.StatusUnprocessableEntity,
	tradewind.ECodePrebookExpired:         http.StatusUnprocessableEntity,
	tradewind.ECodeNotCancellable:         http.StatusUnprocessableEntity,
	tradewind.ECodeTravellersMismatch:     http.StatusUnprocessableEntity,
	tradewind.ECodeIdempotencyKeyReused:   http.StatusUnprocessableEntity,
	tradewind.ECodeValidationFailed:       http.StatusUnprocessableEntity,
	tradewind.ECodeRateLimited:            http.StatusTooManyRequests,
	tradewind.ECodeUnavailable:            http.StatusServiceUnavailable,
	tradewind.ECodeCursorExpired:          http.StatusGone,
	tradewind.ECodeInternal:               http.StatusInternalServerError,
}

// response is what a handler answers on success.
type response struct {
	Status  int
	Message *string
	Data    any
	Meta    any
	Header  http.Header // extra headers of the answer
}

func ok(data any) *response { return &response{Status: http.StatusOK, Data: data} }

func withMessage(status int, msg string, data any) *response {
	return &response{Status: status, Message: &msg, Data: data}
}

type successBody struct {
	Success bool    `json:"success"`
	Message *string `json:"message"`
	Data    any     `json:"data"`
	Meta    any     `json:"meta,omitempty"`
}

type errorBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Code    string `json:"code"`
	// Reason refines code on the 422s whose code has several causes (invalid_quote,
	// not_cancellable); absent elsewhere (docs/api-decisions.md, "Error reasons").
	Reason string   `json:"reason,omitempty"`
	Errors []string `json:"errors"`
}

// answerBuffers holds the buffers answers are encoded into.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer is the largest buffer kept for reuse, so that one huge answer does not
// stay in the pool.
const maxPooledAnswer = 1 << 20

// writeJSON encodes body into a pooled buffer first, then writes it in one Write with its
// Content-Length: the answer crosses the middleware's writers (status, request log
// capture) once instead of in the encoder's pieces, and is not sent chunked.
func writeJSON(w http.ResponseWriter, status int, body any) {
	buf := answerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			answerBuffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // what encodes is written, as before when the encoder wrote to w
	h := w.Header()
	headerSet(h, hdrContentType, "application/json")
	headerSet(h, hdrContentLength, strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeSuccess(w http.ResponseWriter, res *response) {
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	if data, ok := res.Data.(jsonAppender); ok {
		meta, ok := res.Meta.(jsonAppender)
		if ok || res.Meta == nil {
			writeAppended(w, res.Status, res.Message, data, meta)
			return
		}
	}
	writeJSON(w, res.Status, successBody{Success: true, Message: res.Message, Data: res.Data, Meta: res.Meta})
}

// jsonAppender is data that appends its own JSON encoding (the search results: the bytes
// encoding/json gives them with SetEscapeHTML(false), without reflection).
type jsonAppender interface{ AppendJSON(b []byte) []byte }

// writeAppended writes the success envelope of msg (nil: null), data and meta (nil:
// none) as writeJSON writes successBody, from their AppendJSON, in one Write with its
// Content-Length.
func writeAppended(w http.ResponseWriter, status int, msg *string, data, meta jsonAppender) {
	buf := answerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			answerBuffers.Put(buf)
		}
	}()
	b := append(buf.AvailableBuffer(), `{"success":true,"message":`...)
	if msg == nil {
		b = append(b, "null"...)
	} else {
		b = booking.AppendJSONString(b, *msg)
	}
	b = append(b, `,"data":`...)
	b = data.AppendJSON(b)
	if meta != nil {
		b = append(b, `,"meta":`...)
		b = meta.AppendJSON(b)
	}
	b = append(b, '}', '\n')
	buf.Write(b) // b is buf's own free space when it fits: no copy
	h := w.Header()
	headerSet(h, hdrContentType, "application/json")
	headerSet(h, hdrContentLength, strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeError writes the error envelope. Only *tradewind.Error text reaches the client;
// anything else is logged in full and answered with a generic 500.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	var te *tradewind.Error
	if !errors.As(err, &te) {
		logger.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		te = &tradewind.Error{Code: tradewind.ECodeInternal, Message: "An internal error occurred; it has been logged. Quote the X-Request-Id when you contact support."}
	}
	status, known := statusOf[te.Code]
	if !known {
		status = http.StatusInternalServerError
	}
	writeErrorBody(w, status, te)
}

// writeErrorBody writes the error envelope of te with status, which is normally its
// code's (harden answers bad_request with 431 when the header fields are too large).
func writeErrorBody(w http.ResponseWriter, status int, te *tradewind.Error) {
	if te.RetryAfter > 0 && w.Header().Get(HeaderRetryAfter) == "" {
		w.Header().Set(HeaderRetryAfter, strconv.Itoa(te.RetryAfter))
	}
	writeJSON(w, status, errorBody{Success: false, Message: truncateText(te.Message, maxMessageBytes), Code: te.Code,
		Reason: te.Reason, Errors: boundedDetails(te.Details)})
}

// Bounds of the errors list (decisions.md): an answer stays small whatever a client sends,
// even a body of thousands of bad values, each of which may be quoted back.
const (
	maxDetails      = 50
	maxDetailBytes  = 300
	maxMessageBytes = 500
)

// boundedDetails returns at most maxDetails problems, each cut to maxDetailBytes, and then
// one entry saying how many more there were.
func boundedDetails(details []string) []string {
	out := make([]string, 0, min(len(details), maxDetails+1))
	for i, d := range details {
		if i == maxDetails {
			out = append(out, fmt.Sprintf("… and %d more problems", len(details)-maxDetails))
			break
		}
		out = append(out, truncateText(d, maxDetailBytes))
	}
	return out
}

// truncateText cuts s to at most n bytes on a character boundary, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
