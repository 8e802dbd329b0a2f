package httpapi

import (
	"context"
	"math"
	"net/http"

	"github.com/go-json-experiment/json"

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
		{http.MethodPost, base + "/:id/enable", connect.Required.ManageWebhooks, true, h.enableSubscription},
		{http.MethodPost, base + "/:id/disable", connect.Required.ManageWebhooks, true, h.disableSubscription},
		{http.MethodGet, base + "/:id/attempts", connect.Required.ManageWebhooks, false, h.listAttempts},
		{http.MethodPost, base + "/:id/replay", connect.Required.ManageWebhooks, true, h.replaySubscription},
		{http.MethodPost, base + "/:id/resend", connect.Required.ManageWebhooks, true, h.resendEvent},
		{http.MethodPost, base + "/:id/test", connect.Required.ManageWebhooks, true, h.testSubscription},
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

// enableSubscription answers 200 with the subscription. The request has no
// body; it is idempotent by nature (it sets a state).
func (h *Handler) enableSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	return h.changeSubscription(w, r, c, h.cfg.Webhooks.EnableWebhookSubscription)
}

// disableSubscription answers 200 with the subscription, like enable.
func (h *Handler) disableSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	return h.changeSubscription(w, r, c, h.cfg.Webhooks.DisableWebhookSubscription)
}

func (h *Handler) changeSubscription(w http.ResponseWriter, r *http.Request, c call,
	change func(context.Context, connect.Caller, int64) (connect.WebhookSubscriptionInfo, error)) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	sub, err := change(r.Context(), c.caller, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sub)
}

// listAttempts answers a page of attempts, newest first; before and limit
// must be whole numbers (limit 1 to 200).
func (h *Handler) listAttempts(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	before, err := queryInt(q, "before", 1, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := queryInt(q, "limit", 1, connect.MaxTake)
	if err != nil {
		return err
	}
	page, err := h.cfg.Webhooks.ListDeliveryAttempts(r.Context(), c.caller, id, before, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}

// replaySubscription answers 202 with the subscription: the replay is
// queued and delivered by the dispatcher.
func (h *Handler) replaySubscription(w http.ResponseWriter, r *http.Request, c call) error {
	var req connect.ReplayRequest
	return h.queueReplay(w, r, c, "replay request", &req, func(id int64, opts connect.WriteOptions) (connect.ReplayOutcome, error) {
		return h.cfg.Webhooks.ReplayWebhookSubscription(r.Context(), c.caller, id, req, opts)
	})
}

// resendEvent answers 202 with the subscription, like replay.
func (h *Handler) resendEvent(w http.ResponseWriter, r *http.Request, c call) error {
	var req connect.ResendRequest
	return h.queueReplay(w, r, c, "resend request", &req, func(id int64, opts connect.WriteOptions) (connect.ReplayOutcome, error) {
		return h.cfg.Webhooks.ResendWebhookEvent(r.Context(), c.caller, id, req, opts)
	})
}

// queueReplay reads a replay or resend request strictly into req, and runs
// queue with it.
func (h *Handler) queueReplay(w http.ResponseWriter, r *http.Request, c call, what string, req any,
	queue func(int64, connect.WriteOptions) (connect.ReplayOutcome, error)) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	if err := connect.DecodeObject(body, req, what, json.RejectUnknownMembers(true)); err != nil {
		return err
	}
	out, err := queue(id, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, out.Subscription)
}

// testSubscription answers 200 with the ping's attempt, delivered or not.
// The request has no body.
func (h *Handler) testSubscription(w http.ResponseWriter, r *http.Request, c call) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	opts, err := writeOptions(r)
	if err != nil {
		return err
	}
	out, err := h.cfg.Webhooks.TestWebhookSubscription(r.Context(), c.caller, id, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out.Attempt)
}
