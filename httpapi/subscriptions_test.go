package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
)

const (
	subsBase = "/api/v1/webhook-subscriptions"
	goodSub  = `{"url":"https://erp.example.com/hooks","events":["import_job.completed","import_job.completed","appointment_request.status_changed"]}`
)

func TestWebhookSubscriptionsOverHTTP(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeWebhooksManage)
	idem := map[string]string{"Idempotency-Key": "sub-1"}

	resp := s.do(request{method: "POST", path: subsBase, body: goodSub, key: key, header: idem})
	var created connect.WebhookSubscriptionWithSecret
	resp.json(t, &created)
	if resp.status != 201 || created.ID == 0 || !strings.HasPrefix(created.Secret, "whsec_") || !created.Enabled ||
		fmt.Sprint(created.Events) != "[import_job.completed appointment_request.status_changed]" {
		t.Fatalf("create: %d %s", resp.status, resp.body)
	}
	replay := s.do(request{method: "POST", path: subsBase, body: goodSub, key: key, header: idem})
	if replay.status != 201 || replay.header.Get("Idempotent-Replayed") != "true" || string(replay.body) != string(resp.body) {
		t.Errorf("replayed create: %d %s", replay.status, replay.body)
	}
	path := fmt.Sprintf("%s/%d", subsBase, created.ID)

	var list connect.WebhookSubscriptionList
	listed := s.do(request{method: "GET", path: subsBase, key: key})
	listed.json(t, &list)
	if listed.status != 200 || len(list.Subscriptions) != 1 || fmt.Sprint(list.Subscriptions[0]) != fmt.Sprint(created.WebhookSubscriptionInfo) || strings.Contains(string(listed.body), "whsec_") {
		t.Errorf("list: %d %s", listed.status, listed.body)
	}
	got := s.do(request{method: "GET", path: path, key: key})
	if got.status != 200 || strings.Contains(string(got.body), "secret") || !strings.Contains(string(got.body), `"url":"https://erp.example.com/hooks"`) {
		t.Errorf("get: %d %s", got.status, got.body)
	}

	rotated := s.do(request{method: "POST", path: path + "/rotate-secret", key: key, header: map[string]string{"Idempotency-Key": "rot-1"}})
	var withNew connect.WebhookSubscriptionWithSecret
	rotated.json(t, &withNew)
	if rotated.status != 200 || withNew.ID != created.ID || !strings.HasPrefix(withNew.Secret, "whsec_") || withNew.Secret == created.Secret {
		t.Errorf("rotate: %d %s", rotated.status, rotated.body)
	}
	if again := s.do(request{method: "POST", path: path + "/rotate-secret", key: key, header: map[string]string{"Idempotency-Key": "rot-1"}}); again.status != 200 || string(again.body) != string(rotated.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replayed rotation: %d %s", again.status, again.body)
	}

	if del := s.do(request{method: "DELETE", path: path, key: key}); del.status != 204 || len(del.body) != 0 {
		t.Errorf("delete: %d %s", del.status, del.body)
	}
	if gone := s.do(request{method: "GET", path: path, key: key}); gone.status != 404 || gone.apiError(t).Code != connect.CodeNotFound {
		t.Errorf("deleted subscription: %d %s", gone.status, gone.body)
	}
	if m := scrape(t, s); !strings.Contains(m, `connect_http_requests_total{method="DELETE",route="/api/v1/webhook-subscriptions/:id",status="204"} 1`) {
		t.Errorf("no request metric for the delete:\n%s", m)
	}
}

func TestWebhookSubscriptionErrors(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "erp", connect.ScopeWebhooksManage)
	other := s.key("globex", "erp", connect.ScopeWebhooksManage)
	noScope := s.key("acme", "reader", connect.ScopeImportJobsRead)
	var created connect.WebhookSubscriptionWithSecret
	s.do(request{method: "POST", path: subsBase, body: goodSub, key: key, header: map[string]string{"Idempotency-Key": "k"}}).json(t, &created)
	own := fmt.Sprintf("%s/%d", subsBase, created.ID)

	tests := []refusal{
		{"http URL", request{method: "POST", path: subsBase, body: `{"url":"http://erp.example.com/hooks","events":["import_job.completed"]}`, key: key}, 400, connect.CodeInvalidRequest, "url must use https"},
		{"relative URL", request{method: "POST", path: subsBase, body: `{"url":"/hooks","events":["import_job.completed"]}`, key: key, invalid: true}, 400, connect.CodeInvalidRequest, "url must be an absolute URL"},
		{"private address", request{method: "POST", path: subsBase, body: `{"url":"https://169.254.169.254/latest/meta-data","events":["import_job.completed"]}`, key: key}, 400, connect.CodeInvalidRequest, "link-local"},
		{"unknown event kind", request{method: "POST", path: subsBase, body: `{"url":"https://erp.example.com/hooks","events":["import_job.completed","job.done"]}`, key: key, invalid: true}, 400, connect.CodeInvalidRequest, `events[1] is "job.done"`},
		{"no event kind", request{method: "POST", path: subsBase, body: `{"url":"https://erp.example.com/hooks","events":[]}`, key: key, invalid: true}, 400, connect.CodeInvalidRequest, "events must hold at least one event kind"},
		{"unknown field", request{method: "POST", path: subsBase, body: `{"url":"https://erp.example.com/hooks","events":["import_job.completed"],"secret":"x"}`, key: key, invalid: true}, 400, connect.CodeInvalidRequest, "secret"},
		{"no key", request{method: "GET", path: subsBase}, 401, connect.CodeUnauthorized, ""},
		{"without webhooks.manage", request{method: "POST", path: subsBase, body: goodSub, key: noScope}, 403, connect.CodeInsufficientScope, "webhooks.manage"},
		{"another tenant's read", request{method: "GET", path: own, key: other}, 404, connect.CodeNotFound, ""},
		{"another tenant's delete", request{method: "DELETE", path: own, key: other}, 404, connect.CodeNotFound, ""},
		{"another tenant's rotation", request{method: "POST", path: own + "/rotate-secret", key: other}, 404, connect.CodeNotFound, ""},
		{"an id that is not an int64", request{method: "GET", path: subsBase + "/abc", key: key, invalid: true}, 404, connect.CodeNotFound, ""},
		{"key reused with another body", request{method: "POST", path: subsBase, body: `{"url":"https://other.example.com/hooks","events":["import_job.completed"]}`, key: key, header: map[string]string{"Idempotency-Key": "k"}}, 409, connect.CodeIdempotencyKeyReused, ""},
	}
	s.checkRefusals(t, tests)
	var list connect.WebhookSubscriptionList
	s.do(request{method: "GET", path: subsBase, key: other}).json(t, &list)
	if len(list.Subscriptions) != 0 {
		t.Errorf("another tenant lists %+v", list)
	}
}
