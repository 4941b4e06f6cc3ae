package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestErrorResponsesMatchTheirStatus checks that every code an error response allows has
// that response's HTTP status in ErrorCode.
func TestErrorResponsesMatchTheirStatus(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	statusOf := map[string]string{}
	for _, c := range doc.Components.Schemas["ErrorCode"].Value.OneOf {
		statusOf[c.Value.Const.(string)] = fmt.Sprint(c.Value.Extensions["x-status"])
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				mt := resp.Value.Content.Get("application/json")
				if mt == nil || mt.Schema == nil {
					continue
				}
				codes := 0
				for _, m := range mt.Schema.Value.AllOf {
					if c := m.Value.Properties["code"]; c != nil {
						for _, e := range c.Value.Enum {
							codes++
							if statusOf[e.(string)] != status {
								t.Errorf("%s %s %s: code %v has status %s", method, path, status, e, statusOf[e.(string)])
							}
						}
					}
				}
				if status >= "400" && codes == 0 {
					t.Errorf("%s %s %s: an error response without its codes", method, path, status)
				}
			}
		}
	}
}

func TestCheckEvent(t *testing.T) {
	t.Parallel()
	v, err := openapi.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	header := func(typ string) http.Header {
		return http.Header{"Content-Type": {"application/json"}, "X-Partner-Event": {typ}, "X-Partner-Event-Id": {"evt_1"},
			"X-Partner-Timestamp": {"1767225600"}, "X-Partner-Signature": {strings.Repeat("ab", 32)}}
	}
	confirmed := `{"id":"evt_1","type":"booking.confirmed","created_at":"2027-01-04T09:30:00Z","partner":"acme","data":` +
		`{"reference":"HTL-AAAA1111","partner_reference":null,"status":"confirmed","total_price":240.10,"currency":"EUR","test":false,"product_type":"hotel"}}`
	if err := v.CheckEvent(header("booking.confirmed"), []byte(confirmed)); err != nil {
		t.Errorf("a documented event: %v", err)
	}
	for name, tt := range map[string]struct {
		header http.Header
		body   string
	}{
		"unknown type":      {header("booking.exploded"), confirmed},
		"extra data field":  {header("booking.confirmed"), strings.Replace(confirmed, `"test":false`, `"test":false,"secret":"x"`, 1)},
		"price as a string": {header("booking.confirmed"), strings.Replace(confirmed, `240.10`, `"240.10"`, 1)},
		"no signature": {func() http.Header {
			h := header("booking.confirmed")
			h.Del("X-Partner-Signature")
			return h
		}(), confirmed},
		"cancelled without reason": {header("booking.cancelled"), strings.Replace(confirmed, `"booking.confirmed"`, `"booking.cancelled"`, 1)},
	} {
		if err := v.CheckEvent(tt.header, []byte(tt.body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCheckRejects(t *testing.T) {
	t.Parallel()
	v, err := openapi.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1"+openapi.BasePath()+path, nil)
		return r
	}
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	credit := `{"success":true,"message":null,"data":{"currency":"EUR","credit_limit":100.00,"available":100.00,"utilized":0.00,"blocked":false}}`
	notFound := `{"success":false,"message":"No endpoint.","code":"not_found","errors":[]}`
	if err := v.Check(get("/meta/credit"), 200, h, []byte(credit)); err != nil {
		t.Fatalf("a documented answer: %v", err)
	}
	if err := v.Check(get("/nowhere"), 404, h, []byte(notFound)); err != nil {
		t.Fatalf("the documented answer to an unlisted path: %v", err)
	}
	for name, tt := range map[string]struct {
		path   string
		status int
		header http.Header
		body   string
	}{
		"undocumented field":      {"/meta/credit", 200, h, strings.Replace(credit, `"blocked":false`, `"blocked":false,"internal":1`, 1)},
		"money as a string":       {"/meta/credit", 200, h, strings.Replace(credit, `100.00,"available"`, `"100.00","available"`, 1)},
		"missing field":           {"/meta/credit", 200, h, strings.Replace(credit, `,"blocked":false`, ``, 1)},
		"undocumented status":     {"/meta/credit", 418, h, notFound},
		"code of another status":  {"/meta/credit", 404, h, strings.Replace(notFound, "not_found", "invalid_quote", 1)},
		"no request id":           {"/meta/credit", 200, http.Header{"Content-Type": {"application/json"}}, credit},
		"unlisted path, 200":      {"/nowhere", 200, h, credit},
		"429 without Retry-After": {"/meta/credit", 429, h, strings.Replace(notFound, "not_found", "rate_limited", 1)},
	} {
		if err := v.Check(get(tt.path), tt.status, tt.header, []byte(tt.body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	health, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/healthz", nil)
	if err := v.Check(health, 200, h, []byte(`{"status":"ok"}`)); err == nil {
		t.Error("a path outside the base path: accepted")
	}
}

// TestEveryEndpointHasAnExample: the test console prefills every endpoint that takes a
// body with the document's example, in the document's order, with the headers it
// requires.
func TestEveryEndpointHasAnExample(t *testing.T) {
	t.Parallel()
	ops, err := openapi.Operations()
	if err != nil {
		t.Fatal(err) // an endpoint with a body and no example
	}
	var ids []string
	for _, o := range ops {
		ids = append(ids, o.ID())
		if o.Method == http.MethodPost && o.Example == "" {
			t.Errorf("%s: no example body", o.ID())
		}
		if o.Example != "" && !json.Valid([]byte(o.Example)) {
			t.Errorf("%s: example is not JSON: %s", o.ID(), o.Example)
		}
	}
	if len(ids) < 20 || ids[0] != "GET /meta/ping" {
		t.Fatalf("operations = %v", ids)
	}
	book := ops[slices.IndexFunc(ops, func(o openapi.Operation) bool { return o.ID() == "POST /bookings" })]
	if !slices.Contains(book.Headers, "Idempotency-Key") || !strings.Contains(book.Example, `"guest"`) {
		t.Errorf("POST /bookings: headers %v, example %s", book.Headers, book.Example)
	}
	cancel := ops[slices.IndexFunc(ops, func(o openapi.Operation) bool { return o.ID() == "POST /bookings/{reference}/cancel" })]
	if cancel.PathExamples["reference"] == "" {
		t.Errorf("cancel: path examples %v", cancel.PathExamples)
	}
}
