package appointments

import (
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// submitLimits are the limits of a submitted request, enforced while it is
// read: the 11th time window fails the request at once, before anything is
// decoded.
var submitLimits = connect.Limits{
	What:   "appointment request",
	Bounds: map[string]connect.Bound{"preferredTimeWindows": {Max: connect.MaxPreferredTimeWindows, Code: connect.CodeInvalidRequest}},
}

// decodeBody decodes a JSON request body into v. It is strict, because an
// appointment request has no channel for warnings: a field that is not in the
// schema, at any depth, fails the request with its path named, so a typo never
// silently drops data. l names the body ("cancel request") in messages and
// bounds its members.
func decodeBody(body []byte, v any, l connect.Limits) error {
	return connect.DecodeBounded(body, v, l, json.RejectUnknownMembers(true))
}
