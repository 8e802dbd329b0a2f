package httpapi

import (
	"math"
	"net/http"
	"strconv"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[connect.ErrorCode]int{
	connect.CodeInvalidRequest:         http.StatusBadRequest,
	connect.CodeUnauthorized:           http.StatusUnauthorized,
	connect.CodeInsufficientScope:      http.StatusForbidden,
	connect.CodeNotFound:               http.StatusNotFound,
	connect.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	connect.CodeIdempotencyKeyReused:   http.StatusConflict,
	connect.CodeIdempotencyKeyInUse:    http.StatusConflict,
	connect.CodeInvalidStateTransition: http.StatusConflict,
	connect.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	connect.CodeRateLimited:            http.StatusTooManyRequests,
	connect.CodeInternalError:          http.StatusInternalServerError,
	connect.CodeServiceUnavailable:     http.StatusServiceUnavailable,
}

// statusClientClosedRequest is recorded for a request whose client left
// before the answer (nginx's 499); no client ever sees it.
const statusClientClosedRequest = 499

// internalMessage is all a client learns of a fault; the log has the rest.
const internalMessage = "an internal error occurred; quote the correlation id when you report it"

// writeError answers err as an ApiErrorResponse. Anything that is not a
// *connect.Error with a known code is an internal fault: it is logged with the
// correlation id and answered without details.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	info := requestInfoFrom(r.Context())
	e := connect.AsError(err)
	status, known := 0, false
	if e != nil {
		status, known = statusOf[e.Code]
	}
	if !known && r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
		// The client left (a route request waiting for a solver, say): nobody
		// reads the answer and nothing is wrong with the service.
		h.log(r).Info("the client left before the answer", "cause", err.Error())
		w.WriteHeader(statusClientClosedRequest)
		return
	}
	if !known || status == http.StatusInternalServerError {
		h.log(r).Error("internal error", "error", err)
		e, status = &connect.Error{Code: connect.CodeInternalError, Message: internalMessage}, http.StatusInternalServerError
	}
	info.errorCode = e.Code
	body := connect.ApiErrorResponse{Error: connect.ApiError{Code: e.Code, Message: e.Message, CorrelationID: &info.correlationID}}
	if e.RequiredScope != "" {
		body.Error.RequiredScope = &e.RequiredScope
	}
	if e.RetryAfter > 0 {
		seconds := int(math.Ceil(e.RetryAfter.Seconds()))
		body.Error.RetryAfterSeconds = &seconds
		w.Header().Set(headerRetryAfter, strconv.Itoa(seconds))
	}
	if status == http.StatusUnauthorized {
		w.Header().Set(headerAuthenticate, "Bearer")
	}
	if err := writeJSON(w, status, body); err != nil {
		h.log(r).Error("writing an error response", "error", err)
	}
}
