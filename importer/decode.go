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

// decodeBatch decodes a batch envelope. Its limits are enforced while it is
// read (connect.CheckJSON), before anything is decoded: the target after the
// maxTargets-th fails the request at once with PayloadTooLarge, and the
// envelope is strict like every request-level object (a name given twice or
// invalid UTF-8 outside the targets is InvalidRequest). Targets are skipped
// unread there: inside one, the same faults reject only that target, when it
// is decoded on its own.
func decodeBatch(body []byte, maxTargets int) (batchBody, error) {
	var b batchBody
	limits := connect.Limits{
		What:   "batch",
		Bounds: map[string]connect.Bound{"targets": {Max: maxTargets, Code: connect.CodePayloadTooLarge}},
		Opaque: "targets",
	}
	return b, connect.DecodeBounded(body, &b, limits, lenientSyntax)
}

// decoder decodes targets one by one, reusing one token reader for the
// unknown-field check. The reader is a bytes.Buffer, which the token reader
// reads in place: any other reader would be copied into a buffer of its own,
// a megabyte for a megabyte-long string.
type decoder struct {
	tokens *jsontext.Decoder
	reader bytes.Buffer
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
	hasUnknown, err := decodeTargetJSON(raw, &it.target)
	if err != nil {
		it.problem = connect.AsError(err).Message
		it.target = connect.InboundTarget{ExternalID: d.peekExternalID(raw)}
		return it
	}
	if hasUnknown {
		it.warnings = d.unknownFields(raw, targetSchema).warnings("InboundTarget")
	}
	return it
}

// targetLimits are the bounds of one target, enforced while it is read.
var targetLimits = connect.Limits{
	What:   "target",
	Bounds: map[string]connect.Bound{"customFields": {Max: connect.MaxCustomFields, Code: connect.CodeValidationFailed}},
}

// decodeTargetJSON decodes one target strictly: a name given twice or
// invalid UTF-8 anywhere in it fails, with the path named. hasUnknown reports
// members that are not in the schema (ignored, but warned about). The first
// decode refuses them, so the common target without any needs no walk of its
// own to find them; only a target with some is decoded again.
func decodeTargetJSON(raw []byte, t *connect.InboundTarget) (hasUnknown bool, err error) {
	err = connect.DecodeBounded(raw, t, targetLimits, json.RejectUnknownMembers(true))
	if !errors.Is(err, json.ErrUnknownName) {
		return false, err
	}
	*t = connect.InboundTarget{}
	return true, connect.DecodeBounded(raw, t, targetLimits)
}

// maxUnknownWarnings bounds the UnknownField warnings of one item: one per
// unknown member up to it, then one that counts the rest, so a target of a
// million unknown members does not make a million warnings.
const maxUnknownWarnings = 20

// unknownMembers are the paths of the first maxUnknownWarnings unknown
// members and the number of the others.
type unknownMembers struct {
	paths []string
	more  int
}

// warnings are the UnknownField warnings about u's members of schemaName.
func (u unknownMembers) warnings(schemaName string) []connect.InboundImportWarning {
	var warnings []connect.InboundImportWarning
	for _, path := range u.paths {
		warnings = append(warnings, unknownField(path, schemaName))
	}
	if u.more > 0 {
		warnings = append(warnings, connect.InboundImportWarning{
			Code:    connect.WarningUnknownField,
			Message: fmt.Sprintf("%d more members that are not fields of %s were ignored", u.more, schemaName),
		})
	}
	return warnings
}

func (u *unknownMembers) add(parent, name string) {
	if len(u.paths) == maxUnknownWarnings {
		u.more++
		return
	}
	u.paths = append(u.paths, connect.Cut(joinPath(parent, name)))
}

// peekExternalID returns the externalId member of a target that could not be
// decoded, or "" when there is none. Only its start is unquoted: the item
// keeps it cut (connect.Cut), and it may be megabytes long.
func (d *decoder) peekExternalID(raw []byte) string {
	id := ""
	_ = d.walk(raw, func(tokens *jsontext.Decoder, name string) error {
		if name != "externalId" || tokens.PeekKind() != '"' {
			return tokens.SkipValue()
		}
		value, err := tokens.ReadValue()
		id = unquoteStart(value)
		return err
	})
	return id
}

// peekBytes is how much of a long string peekExternalID unquotes: enough
// for more than connect.MaxQuoted characters, however they are escaped.
const peekBytes = 8 * connect.MaxQuoted

// unquoteStart unquotes the JSON string value, or only its first peekBytes
// when it is longer, cut before an escape sequence that would be split.
func unquoteStart(value []byte) string {
	if len(value) > peekBytes {
		start := value[:peekBytes]
		if i := bytes.LastIndexByte(start[len(start)-6:], '\\'); i >= 0 {
			start = start[:len(start)-6+i]
		}
		value = append(bytes.Clone(start), '"')
	}
	s, _ := jsontext.AppendUnquote(nil, value)
	return string(s)
}

// walk calls member for every top-level member name of the object raw; member
// must consume the value.
func (d *decoder) walk(raw []byte, member func(tokens *jsontext.Decoder, name string) error) error {
	d.reader = *bytes.NewBuffer(raw)
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

// unknownFields finds the members of raw that are not in s. Names are
// matched exactly, as the decoder matches them.
func (d *decoder) unknownFields(raw []byte, s *schema) unknownMembers {
	var unknown unknownMembers
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
	var unknown unknownMembers
	_ = newDecoder().walk(b.Unknown, func(tokens *jsontext.Decoder, name string) error {
		unknown.add("", name)
		return tokens.SkipValue()
	})
	return unknown.warnings("InboundTargetBatch")
}

// checkMember checks the member name of the object at parent (a dotted path,
// "" at the top) and its value, adding the paths of unknown members to
// unknown. Paths are only built for unknown members: this runs for every
// member of every target.
func checkMember(tokens *jsontext.Decoder, s *schema, parent, name string, unknown *unknownMembers) error {
	child, known := s.fields[name]
	if !known {
		unknown.add(parent, name)
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
