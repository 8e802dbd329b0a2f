package httpapi

import (
	"net/http"

	"github.com/integration-connect/connect"
)

// subscriptionRoutes let integrators manage their webhook subscriptions under
// {base_url}/webhook-subscriptions. The writes are rate limited like the
// other writes of the API.
func (h *Handler) subscriptionRoutes() []route {
	if h.cfg.Webhooks == nil {
		return nil
	}
	base := h.cfg.BasePath + "/webhook-subscriptions"
	return []route{
		{http.MethodPost, base, connect.Required.ManageWebhooks, true, h.createSubscription},
		{http.MethodGet, base, connect.Required.ManageWebhooks, false, h.listSubscriptions},
		{http.MethodGet, base + "/:id", connect.Required.ManageWebhooks, false, h.getSubscription},
		{http.MethodDelete, base + "/:id", connect.Required.ManageWebhooks, true, h.deleteSubscription},
		{http.MethodPost, base + "/:id/rotate-secret", connect.Required.ManageWebhooks, true, h.rotateSubscriptionSecret},
	}
}

// createSubscription answers 201 with the subscription and its secret.
func (h *Handler) createSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	out, err := h.cfg.Webhooks.CreateWebhookSubscriptionJSON(r.Context(), c.caller, body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, out.Subscription)
}

func (h *Handler) listSubscriptions(w http.ResponseWriter, r *http.Request, c call) error {
	list, err := h.cfg.Webhooks.ListWebhookSubscriptions(r.Context(), c.caller)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, list)
}

func (h *Handler) getSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	sub, err := h.cfg.Webhooks.GetWebhookSubscription(r.Context(), c.caller, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sub)
}

// deleteSubscription answers 204 without a body.
func (h *Handler) deleteSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := h.cfg.Webhooks.DeleteWebhookSubscription(r.Context(), c.caller, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateSubscriptionSecret answers 200 with the subscription and its new
// secret. The request has no body.
func (h *Handler) rotateSubscriptionSecret(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	opts, err := writeOptions(r)
	if err != nil {
		return err
	}
	out, err := h.cfg.Webhooks.RotateWebhookSubscriptionSecret(r.Context(), c.caller, id, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out.Subscription)
}
