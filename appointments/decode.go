package appointments

import (
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// decodeBody decodes a JSON request body into v. It is strict, because an
// appointment request has no channel for warnings: a field that is not in the
// schema, at any depth, fails the request with its path named, so a typo never
// silently drops data. what names the body ("cancel request") in messages.
func decodeBody(body []byte, v any, what string) error {
	return connect.DecodeObject(body, v, what, json.RejectUnknownMembers(true))
}
