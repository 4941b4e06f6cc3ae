package openapi

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// Operation is one endpoint of the document as the portal's test console offers it.
type Operation struct {
	Method  string // "POST"
	Path    string // relative to BasePath, with {name} for each path parameter
	Summary string
	// Example is the request body's example, indented JSON; "" when the endpoint takes
	// no body. The document has one for every endpoint that takes a body (a test checks).
	Example string
	// Headers are the header parameters the endpoint requires (Idempotency-Key).
	Headers []string
	// PathExamples are the examples of the path parameters that have one, by name.
	PathExamples map[string]string
}

// ID names the operation in a form: "METHOD /path".
func (o Operation) ID() string { return o.Method + " " + o.Path }

// Operations lists the document's endpoints in the document's order, as its reference
// page does.
func Operations() ([]Operation, error) {
	doc, err := loadedInOrder()
	if err != nil {
		return nil, err
	}
	var out []Operation
	paths := doc.Paths.Map()
	for _, path := range sortedByLine(paths, func(pi *openapi3.PathItem) *openapi3.Origin { return pi.Origin }) {
		item := paths[path]
		for _, method := range methodOrder {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			o := Operation{Method: method, Path: path, Summary: op.Summary, PathExamples: map[string]string{}}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				switch v := p.Value; {
				case v == nil:
				case v.In == openapi3.ParameterInHeader && v.Required:
					o.Headers = append(o.Headers, v.Name)
				case v.In == openapi3.ParameterInPath && v.Example != nil:
					o.PathExamples[v.Name] = fmt.Sprint(v.Example)
				}
			}
			if o.Example, err = bodyExample(op); err != nil {
				return nil, fmt.Errorf("openapi: %s %s: %w", method, path, err)
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// bodyExample is the JSON request body example of op: the media type's example, else
// the first of its named examples by name; "" when op takes no body.
func bodyExample(op *openapi3.Operation) (string, error) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return "", nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil {
		return "", nil
	}
	v := mt.Example
	if v == nil && len(mt.Examples) > 0 {
		names := make([]string, 0, len(mt.Examples))
		for n := range mt.Examples {
			names = append(names, n)
		}
		slices.Sort(names)
		if ex := mt.Examples[names[0]]; ex != nil && ex.Value != nil {
			v = ex.Value.Value
		}
	}
	if v == nil {
		return "", fmt.Errorf("the request body has no example")
	}
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}
