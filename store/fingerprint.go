package store

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
)

// digest identifies one JSON value in a fingerprint. 128 bits of SHA-256 are
// ample for telling one client's requests apart, and keep an object's member
// list (one digest per member, see canonicalDigest) smaller than the members'
// own text.
type digest [16]byte

// canonicalDigest returns the digest of a JSON document by its meaning, so
// white space, member order and the spelling of numbers and strings do not
// count: a number is its exact decimal value (1.0 = 1 = 10e-1, but
// 9007199254740993 ≠ 9007199254740992), a string its characters, an array its
// elements in order, an object the set of its members. ok is false when body
// is not valid UTF-8 JSON, which is then taken byte for byte.
//
// It streams: arrays are hashed as they are read and an object keeps one
// digest per member, never a decoded tree. A body with an object of more
// members than connect.MaxObjectMembers, which every endpoint refuses, is
// taken byte for byte, so the member digests kept stay few.
func canonicalDigest(body []byte) (d digest, ok bool) {
	if !utf8.Valid(body) {
		return d, false
	}
	c := &canonicalizer{dec: jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowDuplicateNames(true))}
	d, err := c.value(0)
	if err != nil {
		return d, false
	}
	if _, err := c.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return d, false // more after the value, valid or not: taken byte for byte
	}
	return d, true
}

// canonicalizer reads one document; its buffers are reused per depth, so
// hashing allocates per nesting level, not per value.
type canonicalizer struct {
	dec     *jsontext.Decoder
	scratch []byte
	levels  []hash.Hash
	members memberList
	element digest
}

func (c *canonicalizer) value(depth int) (digest, error) {
	switch c.dec.PeekKind() {
	case '[':
		return c.array(depth)
	case '{':
		return c.object(depth)
	}
	canonical, err := c.scalar()
	return sum(canonical), err
}

// scalar reads a string, number or literal and returns its canonical bytes,
// valid until the next read: a kind marker (the opening quote, '0', or the
// literal's own first letter) and the value.
func (c *canonicalizer) scalar() ([]byte, error) {
	raw, err := c.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch kind := raw.Kind(); {
	case kind == '"' && bytes.IndexByte(raw, '\\') < 0:
		// Without escapes the characters are the bytes between the quotes,
		// taken in place with the opening quote as the kind marker: a
		// string may be megabytes long.
		return raw[:len(raw)-1], nil
	case kind == '"':
		c.scratch, err = jsontext.AppendUnquote(append(c.scratch[:0], '"'), raw)
	case kind == '0':
		c.scratch = canonicalNumber(append(c.scratch[:0], '0'), raw)
	default: // true, false, null
		c.scratch = append(c.scratch[:0], raw...)
	}
	return c.scratch, err
}

// maxInline is the longest canonical scalar an array takes in place of its
// digest: hashing a million short elements one by one would cost a second.
const maxInline = 64

func (c *canonicalizer) array(depth int) (digest, error) {
	if _, err := c.dec.ReadToken(); err != nil {
		return digest{}, err
	}
	h := c.level(depth)
	h.Write(openArray)
	for kind := c.dec.PeekKind(); kind != ']'; kind = c.dec.PeekKind() {
		if kind != '[' && kind != '{' {
			canonical, err := c.scalar()
			if err != nil {
				return digest{}, err
			}
			if len(canonical) <= maxInline {
				// Tagged and length-prefixed, so no element runs into the
				// next and none reads like a digest.
				c.element[0], c.element[1] = inlineTag, byte(len(canonical))
				h.Write(c.element[:2])
				h.Write(canonical)
				continue
			}
			c.element = sum(canonical)
		} else {
			d, err := c.value(depth + 1)
			if err != nil {
				return digest{}, err
			}
			c.element = d // d itself would escape to the heap through h
		}
		h.Write(digestTag)
		h.Write(c.element[:])
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return digest{}, err
	}
	c.scratch = h.Sum(c.scratch[:0])
	return digest(c.scratch[:16]), nil
}

// The tags of an array's elements: a scalar in place, or a digest.
const inlineTag = 1

var digestTag = []byte{0}

func (c *canonicalizer) object(depth int) (digest, error) {
	if _, err := c.dec.ReadToken(); err != nil {
		return digest{}, err
	}
	if c.dec.PeekKind() == '}' {
		_, err := c.dec.ReadToken()
		return emptyObject, err
	}
	// Every object uses one list, nested ones after their parent's members.
	members := &c.members
	start := members.len()
	for c.dec.PeekKind() != '}' {
		if members.len()-start == connect.MaxObjectMembers {
			return digest{}, errTooManyMembers
		}
		name, err := c.dec.ReadValue()
		if err != nil {
			return digest{}, err
		}
		if c.scratch, err = jsontext.AppendUnquote(c.scratch[:0], name); err != nil {
			return digest{}, err
		}
		nameSum := sum(c.scratch)
		v, err := c.value(depth + 1)
		if err != nil {
			return digest{}, err
		}
		var member [2 * len(digest{})]byte
		copy(member[:], nameSum[:])
		copy(member[len(nameSum):], v[:])
		members.add(sum(member[:]))
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return digest{}, err
	}
	d := members.digest(start, c.level(depth), &c.scratch)
	members.truncate(start)
	return d, nil
}

// level returns the reset hash of an array or object at depth. Siblings use
// it one after the other; nested values use deeper levels.
func (c *canonicalizer) level(depth int) hash.Hash {
	for len(c.levels) <= depth {
		c.levels = append(c.levels, sha256.New())
	}
	c.levels[depth].Reset()
	return c.levels[depth]
}

// The first bytes of hashed arrays and objects; package variables, since a
// literal passed to hash.Hash.Write would be allocated for every value.
var openArray, openObject = []byte{'['}, []byte{'{'}

// errTooManyMembers ends canonicalization at an object larger than any
// request may hold (connect.MaxObjectMembers): such a body is refused whatever
// its spelling, so it is taken byte for byte and the member list stays small.
var errTooManyMembers = errors.New("an object with more members than a request may hold")

// emptyObject is the digest of {}, the same as an object of no members
// hashed (memberList.digest), computed once: a body may hold millions.
var emptyObject = func() digest {
	full := sha256.Sum256(openObject)
	return digest(full[:16])
}()

func sum(b []byte) digest {
	full := sha256.Sum256(b)
	return digest(full[:16])
}

// memberList keeps member digests in fixed pages, so growing it never copies
// what it holds (append's copies would cost several times the list).
type memberList struct {
	pages [][]digest
	n     int
}

const pageSize = 4096

func (l *memberList) len() int { return l.n }

func (l *memberList) add(d digest) {
	if l.n == len(l.pages)*pageSize {
		l.pages = append(l.pages, make([]digest, pageSize))
	}
	l.pages[l.n/pageSize][l.n%pageSize] = d
	l.n++
}

func (l *memberList) at(i int) *digest { return &l.pages[i/pageSize][i%pageSize] }

// digest sorts the members from start on and hashes them: the digest of an
// object whatever the order of its members.
func (l *memberList) digest(start int, h hash.Hash, scratch *[]byte) digest {
	l.sort(start, l.n)
	h.Write(openObject)
	for i := start; i < l.n; i++ {
		h.Write(l.at(i)[:])
	}
	*scratch = h.Sum((*scratch)[:0])
	return digest((*scratch)[:16])
}

func (l *memberList) truncate(n int) { l.n = n }

// sort orders the digests in [lo, hi) with heap sort, in place: no extra memory
// whatever the size of the object.
func (l *memberList) sort(lo, hi int) {
	n := hi - lo
	less := func(i, j int) bool { return bytes.Compare(l.at(lo + i)[:], l.at(lo + j)[:]) < 0 }
	swap := func(i, j int) { *l.at(lo + i), *l.at(lo + j) = *l.at(lo + j), *l.at(lo + i) }
	down := func(i, n int) {
		for {
			child := 2*i + 1
			if child >= n {
				return
			}
			if child+1 < n && less(child, child+1) {
				child++
			}
			if !less(i, child) {
				return
			}
			swap(i, child)
			i = child
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		swap(0, end)
		down(0, end)
	}
}

// canonicalNumber appends the exact decimal value of the JSON number raw:
// sign, significant digits without leading or trailing zeros, and the
// exponent of the last digit. A zero is "0" whatever its sign. An exponent
// too long for 64 bits is kept as written, shifted by the digits moved. It
// works on the bytes in place: a body may hold millions of numbers.
func canonicalNumber(dst []byte, raw []byte) []byte {
	negative := len(raw) > 0 && raw[0] == '-'
	if negative {
		raw = raw[1:]
	}
	mantissa, exponent := raw, []byte(nil)
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		mantissa, exponent = raw[:i], raw[i+1:]
	}
	intPart, frac, _ := bytes.Cut(mantissa, []byte("."))
	shift := -len(frac)
	intPart = bytes.TrimLeft(intPart, "0")
	if len(intPart) == 0 {
		frac = bytes.TrimLeft(frac, "0")
	}
	start := len(dst)
	if negative {
		dst = append(dst, '-')
	}
	digitsAt := len(dst)
	dst = append(append(dst, intPart...), frac...)
	trimmed := bytes.TrimRight(dst[digitsAt:], "0")
	shift += len(dst) - digitsAt - len(trimmed)
	if len(trimmed) == 0 {
		return append(dst[:start], '0')
	}
	dst = append(dst[:digitsAt+len(trimmed)], 'e')
	exp, err := strconv.ParseInt(string(exponent), 10, 64)
	if len(exponent) == 0 {
		exp, err = 0, nil
	}
	if err != nil || exp > 1<<62 || exp < -(1<<62) {
		return strconv.AppendInt(append(append(dst, exponent...), '~'), int64(shift), 10)
	}
	return strconv.AppendInt(dst, exp+int64(shift), 10)
}
