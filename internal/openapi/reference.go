package openapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed reference.html.tmpl
var referenceTemplate string

// ReferencePage returns the human-readable API reference, an HTML page rendered once
// from the document: endpoints, parameters, bodies, responses with their error codes,
// webhooks, every error code and every schema. It loads nothing from elsewhere.
func ReferencePage() ([]byte, error) { return referencePage() }

// loadedInOrder is the document parsed with the lines of its keys, so that the reference
// page and the test console keep the document's order; never modified.
var loadedInOrder = sync.OnceValues(func() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	loader.IncludeOrigin = true
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	return doc, nil
})

var referencePage = sync.OnceValues(func() ([]byte, error) {
	doc, err := loadedInOrder()
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("reference").Funcs(template.FuncMap{"prose": prose}).Parse(referenceTemplate)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, newPageView(doc)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

// inlineStyle finds the page's inline style sheets (the template has no scripts and no
// style attributes).
var inlineStyle = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// ContentSecurityPolicy returns the policy of an HTML page rendered by this package:
// nothing may load or run but the page's own inline style sheets, each allowed by its
// SHA-256, so that injected markup could neither run a script nor load anything.
func ContentSecurityPolicy(page []byte) string {
	var hashes []string
	for _, m := range inlineStyle.FindAllSubmatch(page, -1) {
		sum := sha256.Sum256(m[1])
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	style := "'none'"
	if len(hashes) > 0 {
		style = strings.Join(hashes, " ")
	}
	return "default-src 'none'; style-src " + style + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// pageView is what the reference template renders.
type pageView struct {
	Title, Version, Description, Base string
	Security                          []securityView
	Tags                              []tagView
	Webhooks                          []opView
	ErrorCodes                        []errorCodeView
	Schemas                           []schemaView
}

type securityView struct{ Name, In, Header, Description string }

type tagView struct {
	Name, Description string
	Ops               []opView
}

type opView struct {
	Anchor, Method, Path, Summary, Description string
	Public                                     bool // no authentication
	Params                                     []paramView
	Body                                       *bodyView
	Responses                                  []responseView
}

type paramView struct {
	Name, In, Description string
	Type                  template.HTML
	Required              bool
}

type bodyView struct {
	ContentType string
	Type        template.HTML
	Required    bool
	Examples    []exampleView
}

type exampleView struct{ Name, JSON string }

type responseView struct {
	Status, Description, ContentType string
	Type                             template.HTML
	Codes                            []string
	Headers                          []string
}

type errorCodeView struct {
	Code, Description string
	Status            any
}

type schemaView struct {
	Name, Description string
	Type              template.HTML
	Props             []propView
	Example           string
}

type propView struct {
	Name, Description string
	Type              template.HTML
	Required          bool
}

var methodOrder = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func newPageView(doc *openapi3.T) *pageView {
	p := &pageView{Title: doc.Info.Title, Version: doc.Info.Version, Description: doc.Info.Description}
	if len(doc.Servers) > 0 {
		p.Base = doc.Servers[0].URL
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.SecuritySchemes)) {
		s := doc.Components.SecuritySchemes[name].Value
		p.Security = append(p.Security, securityView{Name: name, In: s.In, Header: s.Name, Description: s.Description})
	}
	byTag := map[string]*tagView{}
	for _, t := range doc.Tags {
		p.Tags = append(p.Tags, tagView{Name: t.Name, Description: t.Description})
	}
	for i := range p.Tags {
		byTag[p.Tags[i].Name] = &p.Tags[i]
	}
	paths := doc.Paths.Map()
	for _, path := range sortedByLine(paths, func(pi *openapi3.PathItem) *openapi3.Origin { return pi.Origin }) {
		for _, method := range methodOrder {
			op := paths[path].GetOperation(method)
			if op == nil {
				continue
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			tv := byTag[tag]
			if tv == nil {
				p.Tags = append(p.Tags, tagView{Name: tag})
				tv = &p.Tags[len(p.Tags)-1]
				byTag[tag] = tv
			}
			tv.Ops = append(tv.Ops, newOpView(doc, method, path, op))
		}
	}
	for _, name := range sortedByLine(doc.Webhooks, func(pi *openapi3.PathItem) *openapi3.Origin { return pi.Origin }) {
		if op := doc.Webhooks[name].Post; op != nil {
			v := newOpView(doc, "POST", name, op)
			v.Anchor = "webhook-" + name
			p.Webhooks = append(p.Webhooks, v)
		}
	}
	if ec := doc.Components.Schemas["ErrorCode"]; ec != nil {
		for _, c := range ec.Value.OneOf {
			p.ErrorCodes = append(p.ErrorCodes, errorCodeView{Code: fmt.Sprint(c.Value.Const), Status: c.Value.Extensions["x-status"], Description: c.Value.Description})
		}
	}
	schemas := doc.Components.Schemas
	for _, name := range sortedByLine(schemas, func(s *openapi3.SchemaRef) *openapi3.Origin { return s.Value.Origin }) {
		p.Schemas = append(p.Schemas, newSchemaView(doc, name, schemas[name].Value))
	}
	return p
}

// sortedByLine returns the keys of m in the order the document lists them.
func sortedByLine[V any](m map[string]V, origin func(V) *openapi3.Origin) []string {
	line := func(k string) int {
		if o := origin(m[k]); o != nil && o.Key != nil {
			return o.Key.Line
		}
		return 0
	}
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(line(a), line(b)), strings.Compare(a, b))
	})
}

func newOpView(doc *openapi3.T, method, path string, op *openapi3.Operation) opView {
	v := opView{Anchor: "op-" + op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: op.Description,
		Public: op.Security != nil && len(*op.Security) == 0}
	for _, pr := range op.Parameters {
		pv := pr.Value
		v.Params = append(v.Params, paramView{Name: pv.Name, In: pv.In, Description: pv.Description, Type: typeOf(pv.Schema), Required: pv.Required})
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		for _, ct := range slices.Sorted(maps.Keys(rb.Value.Content)) {
			mt := rb.Value.Content[ct]
			b := &bodyView{ContentType: ct, Type: typeOf(mt.Schema), Required: rb.Value.Required}
			for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
				if ex := mt.Examples[name].Value; ex != nil {
					b.Examples = append(b.Examples, exampleView{Name: cmp.Or(ex.Summary, name), JSON: indentJSON(ex.Value)})
				}
			}
			v.Body = b
		}
	}
	if op.Responses != nil {
		resp := op.Responses.Map()
		for _, status := range slices.Sorted(maps.Keys(resp)) {
			r := resp[status].Value
			rv := responseView{Status: status}
			if r.Description != nil {
				rv.Description = *r.Description
			}
			for _, ct := range slices.Sorted(maps.Keys(r.Content)) {
				rv.ContentType = ct
				if s := r.Content[ct].Schema; s != nil {
					rv.Type = typeOf(s)
					rv.Codes = errorCodes(s)
				}
			}
			rv.Headers = slices.Sorted(maps.Keys(r.Headers))
			v.Responses = append(v.Responses, rv)
		}
	}
	return v
}

// errorCodes returns the codes an error response's schema allows: the enum of `code` in
// an allOf member that narrows the ErrorEnvelope.
func errorCodes(s *openapi3.SchemaRef) []string {
	var out []string
	for _, m := range s.Value.AllOf {
		if c := m.Value.Properties["code"]; c != nil {
			for _, e := range c.Value.Enum {
				out = append(out, fmt.Sprint(e))
			}
		}
	}
	return out
}

func newSchemaView(doc *openapi3.T, name string, s *openapi3.Schema) schemaView {
	v := schemaView{Name: name, Description: s.Description, Type: describe(s)}
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	collect := func(s *openapi3.Schema) {
		maps.Copy(props, s.Properties)
		for _, r := range s.Required {
			required[r] = true
		}
	}
	for _, m := range s.AllOf {
		collect(m.Value)
	}
	collect(s)
	for _, pn := range sortedByLine(props, func(r *openapi3.SchemaRef) *openapi3.Origin { return r.Origin }) {
		r := props[pn]
		desc := r.Value.Description
		if base := refName(r.Ref); base != "" && doc.Components.Schemas[base] != nil && doc.Components.Schemas[base].Value.Description == desc {
			desc = "" // the referenced schema's own description, shown there
		}
		v.Props = append(v.Props, propView{Name: pn, Description: desc, Type: typeOf(r), Required: required[pn]})
	}
	switch {
	case s.Example != nil:
		v.Example = indentJSON(s.Example)
	case len(s.Examples) > 0:
		v.Example = indentJSON(s.Examples[0])
	}
	return v
}

func refName(ref string) string {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return ""
	}
	return name
}

// typeOf renders a schema reference as a short type with links to named schemas.
func typeOf(r *openapi3.SchemaRef) template.HTML {
	if r == nil {
		return ""
	}
	if name := refName(r.Ref); name != "" {
		return template.HTML(fmt.Sprintf(`<a href="#schema-%s">%s</a>`, html.EscapeString(name), html.EscapeString(name)))
	}
	if r.Value == nil {
		return ""
	}
	return describe(r.Value)
}

// describe renders an inline schema as a short type.
func describe(s *openapi3.Schema) template.HTML {
	esc := func(v any) template.HTML { return template.HTML(html.EscapeString(fmt.Sprint(v))) }
	join := func(rs openapi3.SchemaRefs, sep string) template.HTML {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = string(typeOf(r))
		}
		return template.HTML(strings.Join(parts, sep))
	}
	var t template.HTML
	switch {
	case s.Const != nil:
		b, _ := json.Marshal(s.Const)
		return "<code>" + esc(string(b)) + "</code>"
	case len(s.AllOf) > 0:
		// Named members are listed; inline members without a type only narrow them
		// (an error response's code enum) and are shown elsewhere.
		var named openapi3.SchemaRefs
		extended := len(s.Properties) > 0
		for _, m := range s.AllOf {
			switch {
			case m.Ref != "":
				named = append(named, m)
			case m.Value != nil && m.Value.Type != nil:
				named, extended = append(named, m), true
			}
		}
		t = join(named, " and ")
		if extended {
			t += " with more fields"
		}
	case len(s.OneOf) > 0 && s.OneOf[0].Value != nil && s.OneOf[0].Value.Const != nil:
		t = "string, one of the codes below"
	case len(s.OneOf) > 0:
		t = "one of " + join(s.OneOf, ", ")
	case s.Type != nil && s.Type.Is("array"):
		t = "array of " + typeOf(s.Items)
	case s.Type != nil:
		t = esc(strings.Join(s.Type.Slice(), " or "))
	default:
		t = "any"
	}
	if s.Format != "" {
		t += " (" + esc(s.Format) + ")"
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = "<code>" + html.EscapeString(fmt.Sprint(e)) + "</code>"
		}
		t += template.HTML(": " + strings.Join(vals, ", "))
	}
	var limits []string
	if s.Min != nil {
		limits = append(limits, fmt.Sprintf("≥ %v", *s.Min))
	}
	if s.Max != nil {
		limits = append(limits, fmt.Sprintf("≤ %v", *s.Max))
	}
	if s.MinLength > 0 || s.MaxLength != nil {
		l := fmt.Sprintf("%d–", s.MinLength)
		if s.MaxLength != nil {
			l += fmt.Sprint(*s.MaxLength)
		}
		limits = append(limits, l+" characters")
	}
	if s.Pattern != "" {
		limits = append(limits, "pattern "+s.Pattern)
	}
	if s.Default != nil {
		limits = append(limits, fmt.Sprintf("default %v", s.Default))
	}
	if len(limits) > 0 {
		t += esc(" [" + strings.Join(limits, ", ") + "]")
	}
	return t
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	bold     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// prose renders the small Markdown subset the document's descriptions use: paragraphs,
// `code` and **bold**. Everything else is escaped.
func prose(s string) template.HTML {
	var out strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if para = strings.TrimSpace(para); para == "" {
			continue
		}
		text := html.EscapeString(strings.Join(strings.Fields(para), " "))
		text = codeSpan.ReplaceAllString(text, "<code>$1</code>")
		text = bold.ReplaceAllString(text, "<strong>$1</strong>")
		out.WriteString("<p>" + text + "</p>\n")
	}
	return template.HTML(out.String())
}
