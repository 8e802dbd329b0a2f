package httpapi

import (
	"fmt"
	"net/http"

	"github.com/integration-connect/connect"
)

// routeSuggestionRoutes are endpoint 6 and the reads its links point to.
func (h *Handler) routeSuggestionRoutes() []route {
	if h.cfg.Routes == nil {
		return nil
	}
	base := h.cfg.BasePath
	routes := []route{
		{http.MethodPost, base + "/import-jobs/:id/route-suggestion", connect.Required.CreateRouteSuggestion, false, h.createRouteSuggestion},
		{http.MethodGet, base + "/route-suggestions/:id", connect.Required.ReadRouteSuggestions, false, h.getRouteSuggestion},
	}
	if h.cfg.DrawRoute != nil {
		routes = append(routes, route{http.MethodGet, base + "/route-suggestions/:id/map.svg", connect.Required.ReadRouteSuggestions, false, h.routeSuggestionMap})
	}
	return routes
}

// createRouteSuggestion answers endpoint 6 with 200 and the counts.
func (h *Handler) createRouteSuggestion(w http.ResponseWriter, r *http.Request, c call) error {
	jobID, err := pathID(c)
	if err != nil {
		return err
	}
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	out, err := h.cfg.Routes.CreateRouteSuggestionJSON(r.Context(), c.caller, jobID, body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	out.Response.Links = h.suggestionLinks(out.Response.RouteSuggestionID, jobID)
	return writeJSON(w, http.StatusOK, out.Response)
}

func (h *Handler) suggestionLinks(id, jobID int64) map[string]string {
	self := fmt.Sprintf("%s/route-suggestions/%d", h.cfg.BasePath, id)
	return map[string]string{"self": self, "map": self + "/map.svg", "importJob": fmt.Sprintf("%s/import-jobs/%d", h.cfg.BasePath, jobID)}
}

func (h *Handler) getRouteSuggestion(w http.ResponseWriter, r *http.Request, c call) error {
	s, err := h.routeSuggestion(r, c)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s)
}

// routeSuggestionMap draws the suggestion as an SVG picture.
func (h *Handler) routeSuggestionMap(w http.ResponseWriter, r *http.Request, c call) error {
	s, err := h.routeSuggestion(r, c)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(h.cfg.DrawRoute(s))
	return nil
}

// routeSuggestion reads the suggestion named in the path.
func (h *Handler) routeSuggestion(r *http.Request, c call) (connect.RouteSuggestion, error) {
	id, err := pathID(c)
	if err != nil {
		return connect.RouteSuggestion{}, err
	}
	return h.cfg.Routes.GetRouteSuggestion(r.Context(), c.caller, id)
}
