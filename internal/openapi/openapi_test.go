package openapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/yaml"

	"github.com/tradewind/tradewind/internal/openapi"
)

func TestDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %q, info.version %q; want 3.1.0 and 1.0.0", doc.OpenAPI, doc.Info.Version)
	}
	for _, name := range []string{"booking.confirmed", "booking.cancelled", "availability.changed"} {
		if doc.Webhooks[name] == nil || doc.Webhooks[name].Post == nil {
			t.Errorf("webhook %s is not documented", name)
		}
	}
}

// TestEveryObjectIsClosed checks that every object schema of a response refuses
// undocumented fields, so that a field the server adds without documenting it fails.
func TestEveryObjectIsClosed(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{ // free-form by design
		"#/components/schemas/OpenAPIDocument": true,
	}
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, r *openapi3.SchemaRef, inAllOf bool)
	walk = func(where string, r *openapi3.SchemaRef, inAllOf bool) {
		if r == nil || r.Value == nil || open[r.Ref] || seen[r.Value] {
			return
		}
		s := r.Value
		seen[s] = true
		closed := (s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has) ||
			(s.UnevaluatedProperties.Has != nil && !*s.UnevaluatedProperties.Has)
		if len(s.Properties) > 0 && !closed && !inAllOf {
			t.Errorf("%s (%s): an object schema without additionalProperties: false", where, r.Ref)
		}
		for name, p := range s.Properties {
			walk(where+"."+name, p, false)
		}
		walk(where+"[]", s.Items, false)
		for _, m := range s.AllOf {
			walk(where+"&", m, true)
		}
		for _, m := range s.OneOf {
			walk(where+"|", m, false)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				for _, mt := range resp.Value.Content {
					walk(method+" "+path+" "+status, mt.Schema, false)
				}
			}
		}
	}
	for name, item := range doc.Webhooks {
		for _, mt := range item.Post.RequestBody.Value.Content {
			walk("webhook "+name, mt.Schema, false)
		}
	}
}

func TestJSONMatchesYAML(t *testing.T) {
	t.Parallel()
	fromYAML, err := yaml.YAMLToJSON(openapi.Spec())
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(fromYAML, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(openapi.JSON(), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("JSON() differs from the YAML document")
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("the JSON document does not validate: %v", err)
	}
}

func TestServed(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	openapi.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + openapi.BasePath() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, buf.Bytes())
		}
		return resp, buf.Bytes()
	}
	if resp, body := get("/openapi.json"); resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(body, openapi.JSON()) {
		t.Errorf("openapi.json: %s, %d bytes", resp.Header.Get("Content-Type"), len(body))
	}
	if resp, body := get("/openapi.yaml"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/yaml") || !bytes.Equal(body, openapi.Spec()) {
		t.Errorf("openapi.yaml: %s, %d bytes", resp.Header.Get("Content-Type"), len(body))
	}
	resp, body := get("/docs")
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("docs: Content-Type %s", resp.Header.Get("Content-Type"))
	}
	page := string(body)
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for path, item := range doc.Paths.Map() {
		want = append(want, ">"+path+"<")
		for _, op := range item.Operations() {
			want = append(want, `id="op-`+op.OperationID+`"`)
		}
	}
	for name := range doc.Components.Schemas {
		want = append(want, `id="schema-`+name+`"`)
	}
	for _, c := range doc.Components.Schemas["ErrorCode"].Value.OneOf {
		want = append(want, "<code>"+c.Value.Const.(string)+"</code>")
	}
	for name := range doc.Webhooks {
		want = append(want, `id="webhook-`+name+`"`)
	}
	slices.Sort(want)
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the reference page lacks %s", w)
		}
	}
	for _, bad := range []string{"<script", "<link", "<iframe", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the reference page loads something: it contains %s", bad)
		}
	}
}
