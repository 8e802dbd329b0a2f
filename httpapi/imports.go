package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
)

// health answers endpoint 1.
func (h *Handler) health(w http.ResponseWriter, _ *http.Request, c call) error {
	return writeJSON(w, http.StatusOK, connect.Health(c.caller, h.cfg.Now()))
}

// importTarget answers endpoint 2: 201 when the target was created, else 200.
func (h *Handler) importTarget(w http.ResponseWriter, r *http.Request, c call) error {
	return h.importWith(w, r, c, h.cfg.Importer.ImportTargetJSON, true, connect.CodeInvalidRequest)
}

// importBatch answers endpoint 3: always 200; item outcomes are in the body.
func (h *Handler) importBatch(w http.ResponseWriter, r *http.Request, c call) error {
	return h.importWith(w, r, c, h.cfg.Importer.ImportBatchJSON, false, connect.CodePayloadTooLarge)
}

type importFunc func(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.ImportOutcome, error)

func (h *Handler) importWith(w http.ResponseWriter, r *http.Request, c call, importJSON importFunc, createdIs201 bool, tooLarge connect.ErrorCode) error {
	opts, body, err := h.readWrite(w, r, tooLarge)
	if err != nil {
		return err
	}
	out, err := importJSON(r.Context(), c.caller, body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	if !out.Replayed {
		h.metrics.observeItems(out.Result.Items)
	}
	out.Result.Links = h.jobLinks(out.Result.ImportJobID)
	status := http.StatusOK
	if createdIs201 && out.Created {
		status = http.StatusCreated
	}
	return writeJSON(w, status, out.Result)
}

// jobLinks are the links of an import result: paths from the server root.
func (h *Handler) jobLinks(jobID int64) map[string]string {
	self := fmt.Sprintf("%s/import-jobs/%d", h.cfg.BasePath, jobID)
	links := map[string]string{"self": self}
	if h.cfg.Routes != nil {
		links["routeSuggestion"] = self + "/route-suggestion"
	}
	return links
}

// listJobs answers endpoint 4. It never answers 400: parameters out of range are
// clamped by the library and unparsable ones take the default.
func (h *Handler) listJobs(w http.ResponseWriter, r *http.Request, c call) error {
	q := r.URL.Query()
	list, err := h.cfg.Jobs.ListJobs(r.Context(), c.caller, connect.JobQuery{
		Status:       q.Get("status"),
		SourceSystem: q.Get("sourceSystem"),
		Skip:         intParam(q.Get("skip")),
		Take:         intParam(q.Get("take")),
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, list)
}

// intParam parses a query integer; absent or unparsable is nil (the default).
// A number too large for an int is the largest (or smallest) int, so that the
// library clamps it like any other value out of range.
func intParam(s string) *int {
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return &n // Atoi returns the nearest int on overflow
	}
	if err != nil {
		return nil
	}
	return &n
}

// getJob answers endpoint 5. An id that is not an int64 is NotFound, like an
// unknown one.
func (h *Handler) getJob(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	job, err := h.cfg.Jobs.GetJob(r.Context(), c.caller, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, job)
}

func pathID(c call) (int64, error) {
	raw := c.params.ByName("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, connect.Errorf(connect.CodeNotFound, "%s is not an id", connect.Quote(raw))
	}
	return id, nil
}
