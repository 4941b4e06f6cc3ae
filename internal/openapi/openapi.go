// Package openapi holds the hand-written OpenAPI 3.1 document of the partner API, serves
// it (as YAML, as JSON and as an HTML reference page rendered from it), and validates
// HTTP responses against it for the contract tests.
package openapi

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/yaml"
)

//go:embed openapi.yaml
var spec []byte

// Spec returns the OpenAPI document as written, in YAML.
func Spec() []byte { return spec }

// jsonSpec converts the embedded YAML to JSON once.
var jsonSpec = sync.OnceValues(func() ([]byte, error) { return yaml.YAMLToJSON(spec) })

// JSON returns the OpenAPI document as JSON. It panics if the embedded YAML does not
// convert, which the package's tests rule out.
func JSON() []byte {
	b, err := jsonSpec()
	if err != nil {
		panic(fmt.Sprintf("openapi: embedded document: %v", err))
	}
	return b
}

// Load parses and validates the embedded document and returns a copy of its own, with
// every reference resolved; external references are refused.
func Load() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	return doc, nil
}

// loaded is the parsed document shared by the handlers of Register; never modified.
var loaded = sync.OnceValues(Load)

// BasePath returns the path prefix of the API: the URL of the document's first server.
func BasePath() string {
	doc, err := loaded()
	if err != nil || len(doc.Servers) == 0 {
		panic(fmt.Sprintf("openapi: embedded document has no server: %v", err))
	}
	return doc.Servers[0].URL
}

// route is one documentation route Register serves, relative to BasePath.
type route struct {
	path        string
	contentType string
	body        func() ([]byte, error)
}

var routes = []route{
	{"/openapi.json", "application/json", jsonSpec},
	{"/openapi.yaml", "application/yaml; charset=utf-8", func() ([]byte, error) { return spec, nil }},
	{"/docs", "text/html; charset=utf-8", ReferencePage},
}

// Routes lists the routes Register serves, as "METHOD /path" relative to BasePath.
func Routes() []string {
	out := make([]string, len(routes))
	for i, rt := range routes {
		out[i] = http.MethodGet + " " + rt.path
	}
	return out
}

// Register adds the unauthenticated documentation routes under BasePath to mux: the
// document as JSON (openapi.json) and YAML (openapi.yaml) and the reference page (docs).
func Register(mux *http.ServeMux) {
	base := BasePath()
	for _, rt := range routes {
		mux.HandleFunc(http.MethodGet+" "+base+rt.path, func(w http.ResponseWriter, r *http.Request) {
			body, err := rt.body()
			if err != nil {
				http.Error(w, "the API document cannot be rendered", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", rt.contentType)
			w.Header().Set("Cache-Control", "public, max-age=300")
			if strings.HasPrefix(rt.contentType, "text/html") {
				w.Header().Set("Content-Security-Policy", ContentSecurityPolicy(body))
			}
			_, _ = w.Write(body)
		})
	}
}
