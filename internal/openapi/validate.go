package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Validator checks HTTP responses against the document; it is safe for concurrent use.
type Validator struct {
	doc       *openapi3.T
	base      string
	router    routers.Router
	unmatched map[int]*openapi3.ResponseRef // by status: the answers to a path or method the document does not list
}

// NewValidator returns a validator of responses against the embedded document.
func NewValidator() (*Validator, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	base := doc.Servers[0].URL
	doc.Servers = nil // route on the path below base, whatever the host
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	v := &Validator{doc: doc, base: base, router: router, unmatched: map[int]*openapi3.ResponseRef{}}
	for status, name := range map[int]string{
		http.StatusNotFound: "NotFound", http.StatusMethodNotAllowed: "MethodNotAllowed", http.StatusTooManyRequests: "TooManyRequests",
	} {
		r := doc.Components.Responses[name]
		if r == nil {
			return nil, fmt.Errorf("openapi: the document lacks components.responses.%s", name)
		}
		v.unmatched[status] = r
	}
	return v, nil
}

// Check validates one response to req: its status must be documented for the operation,
// its headers and body must match the documented response. A request for a path or
// method the document does not list must have been answered 404 not_found, 405
// method_not_allowed or 429 rate_limited. The error describes every mismatch.
func (v *Validator) Check(req *http.Request, status int, header http.Header, body []byte) error {
	r := req.Clone(context.Background())
	rest, ok := strings.CutPrefix(r.URL.Path, v.base)
	if !ok || (rest != "" && rest[0] != '/') {
		return fmt.Errorf("%s %s is outside the documented base path %s", req.Method, req.URL.Path, v.base)
	}
	r.URL.Path, r.URL.RawPath = rest, ""
	route, params, err := v.router.FindRoute(r)
	if err == nil && strings.Contains(route.Path, "{") && v.doc.Paths.Value(rest) != nil {
		// OpenAPI matches a concrete path before a templated one: GET /hotels/search is
		// the path /hotels/search, which has no GET, not GET /hotels/{id} (the router
		// would take it for the latter).
		err = fmt.Errorf("the path %s has no operation %s", rest, req.Method)
	}
	if err != nil {
		if uerr := v.checkUnmatched(status, header, body); uerr != nil {
			return fmt.Errorf("%s %s is not documented (%v) and its %d response is not a documented fallback: %w", req.Method, req.URL.Path, err, status, uerr)
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status:  status,
		Header:  header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s → %d does not match the document: %w\nbody: %s", req.Method, req.URL.Path, status, err, clip(body))
	}
	return nil
}

// CheckEvent validates one webhook delivery, its headers and JSON body, against the
// document's webhook of the type named in X-Partner-Event.
func (v *Validator) CheckEvent(header http.Header, body []byte) error {
	typ := header.Get("X-Partner-Event")
	item := v.doc.Webhooks[typ]
	if item == nil || item.Post == nil {
		return fmt.Errorf("webhook event type %q is not documented", typ)
	}
	req, err := http.NewRequest(http.MethodPost, "https://receiver.example/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	route := &routers.Route{Spec: v.doc, Path: typ, PathItem: item, Method: http.MethodPost, Operation: item.Post}
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("webhook %s does not match the document: %w\nbody: %s", typ, err, clip(body))
	}
	return nil
}

// checkUnmatched accepts the documented answers to an unlisted path or method: the
// NotFound, MethodNotAllowed or TooManyRequests response of the document's components.
func (v *Validator) checkUnmatched(status int, header http.Header, body []byte) error {
	ref := v.unmatched[status]
	if ref == nil {
		return fmt.Errorf("status %d is neither 404 nor 405", status)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	for name, h := range ref.Value.Headers {
		if h.Value.Required && header.Get(name) == "" {
			return fmt.Errorf("header %s missing", name)
		}
	}
	mt := ref.Value.Content.Get(header.Get("Content-Type"))
	if mt == nil {
		return fmt.Errorf("content type %q is not documented", header.Get("Content-Type"))
	}
	return mt.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse())
}

func clip(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > 2000 {
		return append(b[:2000:2000], "…"...)
	}
	return b
}
