package importer

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
)

// item is one target of an import, decoded and validated outside the store
// transaction so the transaction only looks up and writes.
type item struct {
	target connect.InboundTarget
	// problem, when set, rejects the item with ValidationFailed.
	problem string
	// warnings are about the request (unknown fields) and shown on any outcome;
	// contentWarnings are about the data and shown only when it is stored.
	warnings        []connect.InboundImportWarning
	contentWarnings []connect.InboundImportWarning
}

// batchBody is a batch as it arrives: the envelope decoded and validated as a
// whole, each target kept raw so it is decoded on its own.
type batchBody struct {
	connect.InboundTargetBatch `json:",inline"`
	Targets                    []jsontext.Value `json:"targets"`
}

// lenientSyntax lets one target's duplicate names or bad UTF-8 through the
// envelope; the target's own decoding then rejects only that target.
var lenientSyntax = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeBatch decodes a batch envelope. Only a body that is not a JSON object or
// whose envelope is wrong fails the whole request.
func decodeBatch(body []byte) (batchBody, error) {
	var b batchBody
	if err := requireObject(body); err != nil {
		return b, err
	}
	err := json.Unmarshal(body, &b, lenientSyntax, json.RejectUnknownMembers(true))
	if err != nil {
		return b, connect.Errorf(connect.CodeInvalidRequest, "%s", envelopeProblem(err))
	}
	return b, nil
}

// requireObject refuses a body that is not one JSON object.
func requireObject(body []byte) error {
	v := jsontext.Value(body)
	if !v.IsValid(lenientSyntax) {
		return connect.Errorf(connect.CodeInvalidRequest, "the request body is not valid JSON")
	}
	if v.Kind() != '{' {
		return connect.Errorf(connect.CodeInvalidRequest, "the request body must be a JSON object")
	}
	return nil
}

func envelopeProblem(err error) string {
	var semantic *json.SemanticError
	if errors.As(err, &semantic) && errors.Is(semantic.Err, json.ErrUnknownName) {
		return fmt.Sprintf("%s is not a field of a batch; the fields are sourceSystem, batchId, operation and targets", pointerPath(semantic.JSONPointer))
	}
	return typeProblem(err)
}

// decoder decodes targets one by one, reusing one token reader for the
// unknown-field check.
type decoder struct {
	tokens *jsontext.Decoder
	reader bytes.Reader
}

func newDecoder() *decoder {
	d := &decoder{}
	d.tokens = jsontext.NewDecoder(&d.reader)
	return d
}

// decodeTarget decodes one raw target. A decoding failure becomes the item's
// problem; the externalId is still picked out so the result can name the item.
func (d *decoder) decodeTarget(raw []byte) item {
	var it item
	if err := json.Unmarshal(raw, &it.target); err != nil {
		it.problem = typeProblem(err)
		it.target = connect.InboundTarget{ExternalID: d.peekExternalID(raw)}
		return it
	}
	for _, path := range d.unknownFields(raw) {
		it.warnings = append(it.warnings, connect.InboundImportWarning{
			Code:    connect.WarningUnknownField,
			Message: fmt.Sprintf("%s is not a field of InboundTarget and was ignored (field names are case-sensitive)", path),
		})
	}
	return it
}

// typeProblem turns a JSON decoding error into a message naming the field path.
func typeProblem(err error) string {
	var semantic *json.SemanticError
	if errors.As(err, &semantic) {
		path := pointerPath(semantic.JSONPointer)
		if path == "" {
			return "the target must be a JSON object"
		}
		if semantic.GoType == nil {
			return fmt.Sprintf("%s is invalid", path)
		}
		return fmt.Sprintf("%s must be %s%s", path, describeType(semantic.GoType), received(semantic))
	}
	var syntactic *jsontext.SyntacticError
	if errors.As(err, &syntactic) {
		where := "the target"
		if path := pointerPath(syntactic.JSONPointer); path != "" {
			where = path
		}
		return fmt.Sprintf("%s is not valid JSON: %v", where, syntactic.Err)
	}
	return "the target is not valid JSON"
}

var (
	timeType = reflect.TypeFor[time.Time]()
	dateType = reflect.TypeFor[connect.Date]()
)

// describeType says in words what JSON a Go type wants.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "an RFC 3339 date-time such as 2026-11-21T08:00:00Z"
	case t == dateType:
		return "a date such as 2026-11-21"
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
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "of type " + t.String()
}

func received(e *json.SemanticError) string {
	switch {
	case e.JSONValue != nil:
		return ", not " + string(e.JSONValue)
	case e.JSONKind != 0 && e.JSONKind != 'n':
		return ", not " + kindName(e.JSONKind)
	}
	return ""
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return k.String()
}

// pointerPath turns a JSON pointer (/planning/estimatedWorkMinutes) into the
// dotted path used in messages (planning.estimatedWorkMinutes).
func pointerPath(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
}

// peekExternalID returns the externalId member of a target that could not be
// decoded, or "" when there is none.
func (d *decoder) peekExternalID(raw []byte) string {
	id := ""
	_ = d.walk(raw, func(tokens *jsontext.Decoder, name string) error {
		if name != "externalId" || tokens.PeekKind() != '"' {
			return tokens.SkipValue()
		}
		tok, err := tokens.ReadToken()
		id = tok.String()
		return err
	})
	return id
}

// walk calls member for every top-level member name of the object raw; member
// must consume the value.
func (d *decoder) walk(raw []byte, member func(tokens *jsontext.Decoder, name string) error) error {
	d.reader.Reset(raw)
	d.tokens.Reset(&d.reader, lenientSyntax)
	if tok, err := d.tokens.ReadToken(); err != nil || tok.Kind() != '{' {
		return errors.New("not an object")
	}
	for d.tokens.PeekKind() != '}' {
		name, err := d.tokens.ReadToken()
		if err != nil {
			return err
		}
		if err := member(d.tokens, name.String()); err != nil {
			return err
		}
	}
	return nil
}

// unknownFields returns the dotted paths of members that are not in the schema
// of InboundTarget. Names are matched exactly, as the decoder matches them.
func (d *decoder) unknownFields(raw []byte) []string {
	var unknown []string
	_ = d.walk(raw, func(tokens *jsontext.Decoder, name string) error {
		return checkMember(tokens, targetSchema, name, name, &unknown)
	})
	return unknown
}

func checkMember(tokens *jsontext.Decoder, s *schema, name, path string, unknown *[]string) error {
	child, known := s.fields[name]
	if !known {
		*unknown = append(*unknown, path)
		return tokens.SkipValue()
	}
	if child == nil || tokens.PeekKind() != '{' {
		return tokens.SkipValue()
	}
	if _, err := tokens.ReadToken(); err != nil {
		return err
	}
	for tokens.PeekKind() != '}' {
		tok, err := tokens.ReadToken()
		if err != nil {
			return err
		}
		if err := checkMember(tokens, child, tok.String(), path+"."+tok.String(), unknown); err != nil {
			return err
		}
	}
	_, err := tokens.ReadToken()
	return err
}

// schema is the tree of JSON member names of a struct type; a nil child means
// the member's value is not checked (scalars, free-form maps).
type schema struct{ fields map[string]*schema }

var targetSchema = schemaOf(reflect.TypeFor[connect.InboundTarget]())

func schemaOf(t reflect.Type) *schema {
	s := &schema{fields: map[string]*schema{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != timeType && ft != dateType {
			s.fields[name] = schemaOf(ft)
		} else {
			s.fields[name] = nil
		}
	}
	return s
}
