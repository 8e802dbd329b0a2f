package bolt

import (
	"bytes"
	"compress/flate"
	"io"
	"sync"

	"github.com/cockroachdb/errors"
)

// The large, rarely read values — the item results of a job and the result an
// idempotency record replays — are kept deflated: they are JSON with the same
// few field names in every item, and shrink to a tenth of their size. A
// deflated value starts with the byte deflated, which never starts JSON, so
// values written before (plain JSON) read as they are.

// deflated marks a deflated value.
const deflated = 0x01

// deflateFrom is the size from which a value is worth deflating: below it the
// deflate header and the compressor's setup cost more than they save.
const deflateFrom = 512

// deflaters are reused: a flate.Writer is large to allocate and cheap to Reset.
var deflaters = sync.Pool{New: func() any {
	w, err := flate.NewWriter(nil, flate.BestSpeed)
	if err != nil {
		panic(err) // only for an invalid level
	}
	return w
}}

// deflate returns data deflated behind the mark, or data itself when it is
// short.
func deflate(data []byte) []byte {
	if len(data) < deflateFrom {
		return data
	}
	var buf bytes.Buffer
	buf.Grow(len(data)/8 + 64)
	buf.WriteByte(deflated)
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = w.Write(data)
	_ = w.Close()
	return buf.Bytes()
}

// inflate returns the JSON of a value written by deflate, or the value itself
// when it is not deflated.
func inflate(data []byte) ([]byte, error) {
	if len(data) == 0 || data[0] != deflated {
		return data, nil
	}
	r := flate.NewReader(bytes.NewReader(data[1:]))
	defer r.Close()
	out, err := io.ReadAll(r)
	return out, errors.Wrap(err, "inflating a record")
}
