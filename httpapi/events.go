package httpapi

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/integration-connect/connect"
)

// eventRoutes serve the events feed under {base_url}/events.
func (h *Handler) eventRoutes() []route {
	if h.cfg.Events == nil {
		return nil
	}
	base := h.cfg.BasePath + "/events"
	return []route{
		{http.MethodGet, base, connect.Required.ReadEvents, false, h.listEvents},
		{http.MethodGet, base + "/:id", connect.Required.ReadEvents, false, h.getEvent},
	}
}

// listEvents answers a page of the feed. The query is read strictly: after
// (an event id), limit (1 to 200), type (comma-separated kinds, or the
// parameter repeated), since and until (RFC 3339 date-times); a malformed
// value is 400 naming the parameter.
func (h *Handler) listEvents(w http.ResponseWriter, r *http.Request, c call) error {
	q := r.URL.Query()
	limit, err := queryInt(q, "limit", 1, connect.MaxTake)
	if err != nil {
		return err
	}
	query := connect.EventQuery{After: q.Get("after"), Limit: int(limit)}
	if query.Since, err = queryTime(q, "since"); err != nil {
		return err
	}
	if query.Until, err = queryTime(q, "until"); err != nil {
		return err
	}
	for _, list := range q["type"] {
		for _, name := range strings.Split(list, ",") {
			query.Types = append(query.Types, connect.EventKind(strings.TrimSpace(name)))
		}
	}
	page, err := h.cfg.Events.ListEvents(r.Context(), c.caller, query)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}

// getEvent answers the event's body exactly as its deliveries carry it.
func (h *Handler) getEvent(w http.ResponseWriter, r *http.Request, c call) error {
	body, err := h.cfg.Events.GetEvent(r.Context(), c.caller, c.params.ByName("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// queryInt reads an optional whole-number parameter between lo and hi; 0
// when absent.
func queryInt(q url.Values, name string, lo, hi int64) (int64, error) {
	raw, ok := q[name]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(raw[0], 10, 64)
	if len(raw) != 1 || err != nil || n < lo || n > hi {
		if hi == math.MaxInt64 {
			return 0, connect.Errorf(connect.CodeInvalidRequest, "%s must be given once, as a whole number of at least %d", name, lo)
		}
		return 0, connect.Errorf(connect.CodeInvalidRequest, "%s must be given once, as a whole number between %d and %d", name, lo, hi)
	}
	return n, nil
}

// queryTime reads an optional RFC 3339 date-time parameter; zero when
// absent.
func queryTime(q url.Values, name string) (time.Time, error) {
	raw, ok := q[name]
	if !ok {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw[0])
	if len(raw) != 1 || err != nil {
		return time.Time{}, connect.Errorf(connect.CodeInvalidRequest, "%s must be given once, as an RFC 3339 date-time such as 2026-11-25T08:00:00Z", name)
	}
	return t, nil
}
