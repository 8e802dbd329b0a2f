package httpapi

import (
	_ "embed"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// openAPISpec is the OpenAPI 3 document of everything the handler serves,
// written for the default base path /api/v1.
//
//go:embed openapi.json
var openAPISpec []byte

// OpenAPI returns the OpenAPI document for the default base path.
func OpenAPI() []byte { return append([]byte(nil), openAPISpec...) }

// openAPIDocument returns the document with its server URL set to basePath, so
// what is served matches where it is served.
func openAPIDocument(basePath string) ([]byte, error) {
	if basePath == DefaultBasePath {
		return openAPISpec, nil
	}
	var doc map[string]jsontext.Value
	if err := json.Unmarshal(openAPISpec, &doc); err != nil {
		return nil, errors.Wrap(err, "decoding the embedded OpenAPI document")
	}
	servers, err := json.Marshal([]map[string]string{{"url": basePath}})
	if err != nil {
		return nil, err
	}
	doc["servers"] = servers
	out, err := json.Marshal(doc, json.Deterministic(true))
	return out, errors.Wrap(err, "encoding the OpenAPI document")
}
