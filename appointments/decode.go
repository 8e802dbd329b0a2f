package appointments

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
)

// decodeBody decodes a JSON request body into v. It is strict, because an
// appointment request has no channel for warnings: a field that is not in the
// schema, at any depth, fails the request with its path named, so a typo never
// silently drops data. what names the body ("cancel request") in messages.
func decodeBody(body []byte, v any, what string) error {
	raw := jsontext.Value(body)
	if raw.Kind() != '{' {
		if !raw.IsValid() {
			return connect.Errorf(connect.CodeInvalidRequest, "the request body is not valid JSON")
		}
		return connect.Errorf(connect.CodeInvalidRequest, "the request body must be a JSON object")
	}
	if err := json.Unmarshal(body, v, json.RejectUnknownMembers(true)); err != nil {
		return connect.Errorf(connect.CodeInvalidRequest, "%s", connect.DecodeProblem(err, what))
	}
	return nil
}
