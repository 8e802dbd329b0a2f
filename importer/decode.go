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
	connect.InboundTargetBatch
	Targets []jsontext.Value `json:"targets"`
	// Unknown collects the envelope members that are not in the schema while
	// the body is decoded, so finding them needs no second pass over the
	// (large) body.
	Unknown jsontext.Value `json:",embed"`
}

// lenientSyntax lets one target's duplicate names or bad UTF-8 through the
// envelope; the target's own decoding then rejects only that target.
var lenientSyntax = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeBatch decodes a batch envelope. Only a body that is not a JSON object or
// whose envelope members have the wrong type fails the whole request here.
func decodeBatch(body []byte) (batchBody, error) {
	var b batchBody
	return b, connect.DecodeObject(body, &b, "batch", lenientSyntax)
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
		it.problem = connect.DecodeProblem(err, "target")
		it.target = connect.InboundTarget{ExternalID: d.peekExternalID(raw)}
		return it
	}
	for _, path := range d.unknownFields(raw, targetSchema) {
		it.warnings = append(it.warnings, unknownField(path, "InboundTarget"))
	}
	return it
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

// unknownFields returns the dotted paths of members of raw that are not in s.
// Names are matched exactly, as the decoder matches them.
func (d *decoder) unknownFields(raw []byte, s *schema) []string {
	var unknown []string
	_ = d.walk(raw, func(tokens *jsontext.Decoder, name string) error {
		return checkMember(tokens, s, "", name, &unknown)
	})
	return unknown
}

// unknownField is the warning about a member that is not in the schema.
func unknownField(path, schemaName string) connect.InboundImportWarning {
	return connect.InboundImportWarning{
		Code:    connect.WarningUnknownField,
		Message: fmt.Sprintf("%s is not a field of %s and was ignored (field names are case-sensitive)", path, schemaName),
	}
}

// warnings are the warnings about the envelope: its unknown members. They
// concern every item, so every item carries them.
func (b batchBody) warnings() []connect.InboundImportWarning {
	var warnings []connect.InboundImportWarning
	_ = newDecoder().walk(b.Unknown, func(tokens *jsontext.Decoder, name string) error {
		warnings = append(warnings, unknownField(name, "InboundTargetBatch"))
		return tokens.SkipValue()
	})
	return warnings
}

// checkMember checks the member name of the object at parent (a dotted path,
// "" at the top) and its value, adding the paths of unknown members to
// unknown. Paths are only built for unknown members: this runs for every
// member of every target.
func checkMember(tokens *jsontext.Decoder, s *schema, parent, name string, unknown *[]string) error {
	child, known := s.fields[name]
	if !known {
		*unknown = append(*unknown, joinPath(parent, name))
		return tokens.SkipValue()
	}
	if child == nil || tokens.PeekKind() != '{' {
		return tokens.SkipValue()
	}
	if _, err := tokens.ReadToken(); err != nil {
		return err
	}
	path := joinPath(parent, name)
	for tokens.PeekKind() != '}' {
		tok, err := tokens.ReadToken()
		if err != nil {
			return err
		}
		if err := checkMember(tokens, child, path, tok.String(), unknown); err != nil {
			return err
		}
	}
	_, err := tokens.ReadToken()
	return err
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// schema is the tree of JSON member names of a struct type; a nil child means
// the member's value is not checked (scalars, free-form maps).
type schema struct{ fields map[string]*schema }

var targetSchema = schemaOf(reflect.TypeFor[connect.InboundTarget]())

// stringTypes are structs written as JSON strings, not objects.
var stringTypes = map[reflect.Type]bool{reflect.TypeFor[time.Time](): true, reflect.TypeFor[connect.Date](): true}

func schemaOf(t reflect.Type) *schema {
	s := &schema{fields: map[string]*schema{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !stringTypes[ft] {
			s.fields[name] = schemaOf(ft)
		} else {
			s.fields[name] = nil
		}
	}
	return s
}
