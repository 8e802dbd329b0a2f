package appointments

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
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
		return connect.Errorf(connect.CodeInvalidRequest, "%s", decodeProblem(err, what))
	}
	return nil
}

// decodeProblem names the field a decoding error is about. (The importer words
// its item problems the same way; the two could share a helper in connect.)
func decodeProblem(err error, what string) string {
	var syntactic *jsontext.SyntacticError
	if errors.As(err, &syntactic) {
		if len(syntactic.JSONPointer) > 0 {
			return fmt.Sprintf("the request body is not valid JSON at %s: %v", fieldPath(syntactic.JSONPointer), syntactic.Err)
		}
		return fmt.Sprintf("the request body is not valid JSON: %v", syntactic.Err)
	}
	var semantic *json.SemanticError
	if !errors.As(err, &semantic) || len(semantic.JSONPointer) == 0 {
		return "the request body is not a valid " + what
	}
	path := fieldPath(semantic.JSONPointer)
	switch {
	case errors.Is(semantic.Err, json.ErrUnknownName):
		return fmt.Sprintf("%s is not a field of the %s (field names are case-sensitive)", path, what)
	case semantic.GoType != nil:
		return fmt.Sprintf("%s must be %s", path, describeType(semantic.GoType))
	}
	return path + " is invalid"
}

// fieldPath turns a JSON pointer (/preferredTimeWindows/0/endUtc) into the path
// validation messages use (preferredTimeWindows[0].endUtc).
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		switch {
		case tok != "" && strings.Trim(tok, "0123456789") == "":
			b.WriteString("[" + tok + "]")
		case b.Len() > 0:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	return b.String()
}

// describeType says in words what JSON a Go type takes.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "an RFC 3339 date-time such as 2026-11-21T08:00:00Z"
	case t == reflect.TypeFor[jsontext.Value]():
		return "valid JSON"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
