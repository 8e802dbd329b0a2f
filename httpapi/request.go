package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"runtime/debug"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// Headers of the contract.
const (
	headerCorrelationID   = "X-Correlation-Id"
	headerIdempotencyKey  = "Idempotency-Key"
	headerReplayed        = "Idempotent-Replayed"
	headerRetryAfter      = "Retry-After"
	headerAuthenticate    = "WWW-Authenticate"
	maxCorrelationIDBytes = 128
)

// requestInfo is what the outer layer learns about a request while the router
// serves it: the route template for metrics, the caller and the error code of
// an error answer for the log.
type requestInfo struct {
	correlationID string
	route         string
	caller        *connect.Caller
	errorCode     connect.ErrorCode
}

type requestInfoKey struct{}

func withRequestInfo(ctx context.Context, info *requestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info
	}
	return &requestInfo{}
}

// correlationID returns the caller's X-Correlation-Id when it is sane (1-128
// printable ASCII characters), else a new random id.
func correlationID(r *http.Request) string {
	if id := r.Header.Get(headerCorrelationID); saneCorrelationID(id) {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func saneCorrelationID(id string) bool {
	if id == "" || len(id) > maxCorrelationIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// readBody reads the request body, refusing one over the byte limit while
// reading rather than after buffering it. tooLarge is the code of that refusal:
// PayloadTooLarge where the contract lists 413 (the batch endpoint), else
// InvalidRequest, since the specification gives the other endpoints no 413.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, tooLarge connect.ErrorCode) ([]byte, error) {
	refusal := connect.Errorf(tooLarge, "the request body is larger than the limit of %d bytes", h.cfg.MaxBodyBytes)
	if r.ContentLength > h.cfg.MaxBodyBytes {
		return nil, refusal
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes), r.ContentLength)
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return nil, refusal
	}
	if err != nil {
		return nil, connect.Errorf(connect.CodeInvalidRequest, "the request body could not be read")
	}
	return body, nil
}

// readAll reads r to its end into one buffer of the announced size (when
// there is one), so a large body is not copied again and again as it grows.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// writeOptions reads the Idempotency-Key header. A header that is present but
// empty, or given twice, is refused; the library checks the key's form.
func writeOptions(r *http.Request) (connect.WriteOptions, error) {
	values, present := r.Header[http.CanonicalHeaderKey(headerIdempotencyKey)]
	if !present {
		return connect.WriteOptions{}, nil
	}
	if len(values) != 1 || values[0] == "" {
		return connect.WriteOptions{}, connect.Errorf(connect.CodeInvalidRequest,
			"Idempotency-Key must be given once, with 1 to %d printable characters", connect.MaxIdempotencyKeyLength)
	}
	return connect.WriteOptions{IdempotencyKey: values[0]}, nil
}

// readWrite reads what every write request carries: the Idempotency-Key and
// the body (see readBody for tooLarge).
func (h *Handler) readWrite(w http.ResponseWriter, r *http.Request, tooLarge connect.ErrorCode) (connect.WriteOptions, []byte, error) {
	opts, err := writeOptions(r)
	if err != nil {
		return opts, nil, err
	}
	body, err := h.readBody(w, r, tooLarge)
	return opts, body, err
}

// finishWrite marks and counts replays (successes and recorded errors alike)
// and passes err on.
func (h *Handler) finishWrite(w http.ResponseWriter, r *http.Request, replayed bool, err error) error {
	if replayed {
		w.Header().Set(headerReplayed, "true")
		h.metrics.replays.WithLabelValues(requestInfoFrom(r.Context()).route).Inc()
	}
	return err
}

// writeJSON writes v as the JSON body of a status answer.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return errors.Wrap(err, "encoding the response")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}

func stack() []byte { return debug.Stack() }
