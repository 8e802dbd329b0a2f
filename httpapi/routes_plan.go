package httpapi

import (
	"fmt"
	"net/http"

	"github.com/integration-connect/connect"
)

// routePlanRoutes are the route plans, an extension beside endpoint 6: a
// team's day in one solve.
func (h *Handler) routePlanRoutes() []route {
	if h.cfg.Plans == nil {
		return nil
	}
	base := h.cfg.BasePath
	routes := []route{
		{http.MethodPost, base + "/route-plans", connect.Required.CreateRoutePlan, false, h.createRoutePlan},
		{http.MethodGet, base + "/route-plans/:id", connect.Required.ReadRoutePlans, false, h.getRoutePlan},
	}
	if h.cfg.DrawPlan != nil {
		routes = append(routes, route{http.MethodGet, base + "/route-plans/:id/map.svg", connect.Required.ReadRoutePlans, false, h.routePlanMap})
	}
	return routes
}

// createRoutePlan answers 201 with the plan's summary and links.
func (h *Handler) createRoutePlan(w http.ResponseWriter, r *http.Request, c call) error {
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	out, err := h.cfg.Plans.CreateRoutePlanJSON(r.Context(), c.caller, body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	self := fmt.Sprintf("%s/route-plans/%d", h.cfg.BasePath, out.Response.RoutePlanID)
	out.Response.Links = map[string]string{"self": self, "map": self + "/map.svg"}
	return writeJSON(w, http.StatusCreated, out.Response)
}

func (h *Handler) getRoutePlan(w http.ResponseWriter, r *http.Request, c call) error {
	plan, err := h.routePlan(r, c)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, plan)
}

// routePlanMap draws every technician's route of the plan on one map.
func (h *Handler) routePlanMap(w http.ResponseWriter, r *http.Request, c call) error {
	plan, err := h.routePlan(r, c)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(h.cfg.DrawPlan(plan))
	return nil
}

// routePlan reads the plan named in the path.
func (h *Handler) routePlan(r *http.Request, c call) (connect.RoutePlan, error) {
	id, err := pathID(c)
	if err != nil {
		return connect.RoutePlan{}, err
	}
	return h.cfg.Plans.GetRoutePlan(r.Context(), c.caller, id)
}
