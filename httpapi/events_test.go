package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
)

const eventsBase = "/api/v1/events"

// importEvents imports n targets of tenant, each making one
// import_job.completed event, and returns the feed's ids of them in order.
func (s *server) importEvents(tenant string, n int) []string {
	s.t.Helper()
	writer := s.key(tenant, fmt.Sprintf("writer-%d", n), connect.ScopeTargetsWrite)
	for i := range n {
		if resp := s.do(request{method: "POST", path: "/api/v1/inbound/targets", key: writer, body: fmt.Sprintf(`{"externalId":"E-%d","title":"t"}`, i)}); resp.status != 201 {
			s.t.Fatalf("import: %d %s", resp.status, resp.body)
		}
	}
	reader := s.key(tenant, fmt.Sprintf("reader-%d", n), connect.ScopeEventsRead)
	var page struct {
		Events []struct {
			ID string `json:"id"`
		} `json:"events"`
	}
	s.do(request{method: "GET", path: eventsBase + "?limit=200", key: reader}).json(s.t, &page)
	var ids []string
	for _, e := range page.Events {
		ids = append(ids, e.ID)
	}
	return ids
}

func TestEventsFeedOverHTTP(t *testing.T) {
	s := newServer(t)
	ids := s.importEvents("acme", 5)
	s.importEvents("globex", 2)
	if len(ids) != 5 {
		t.Fatalf("acme's feed holds %d events, want 5", len(ids))
	}
	key := s.key("acme", "feed", connect.ScopeEventsRead)
	page := func(query string) ([]string, string) {
		t.Helper()
		resp := s.do(request{method: "GET", path: eventsBase + query, key: key})
		var p struct {
			Events []jsontext.Value `json:"events"`
			Next   string           `json:"next"`
		}
		resp.json(t, &p)
		if resp.status != 200 {
			t.Fatalf("GET %s: %d %s", query, resp.status, resp.body)
		}
		var got []string
		for _, raw := range p.Events {
			var e connect.WebhookEvent
			if err := json.Unmarshal(raw, &e); err != nil || e.SchemaVersion != connect.EventSchemaVersion || e.Type != connect.EventImportJobCompleted {
				t.Errorf("event %s: %+v %v", raw, e, err)
			}
			got = append(got, e.ID)
			one := s.do(request{method: "GET", path: eventsBase + "/" + e.ID, key: key})
			if one.status != 200 || string(one.body) != string(raw) {
				t.Errorf("GET /events/%s = %d %s, want the listed bytes %s", e.ID, one.status, one.body, raw)
			}
		}
		return got, p.Next
	}
	first, next := page("?limit=2")
	if fmt.Sprint(first) != fmt.Sprint(ids[:2]) || next != ids[1] {
		t.Errorf("first page %v next %q, want %v next %q", first, next, ids[:2], ids[1])
	}
	rest, next := page("?after=" + next)
	if fmt.Sprint(rest) != fmt.Sprint(ids[2:]) || next != "" {
		t.Errorf("next page %v next %q, want %v and no next", rest, next, ids[2:])
	}
	if got, _ := page("?type=appointment_request.created,route_suggestion.created"); len(got) != 0 {
		t.Errorf("filtered by other types: %v", got)
	}
	if got, _ := page("?type=import_job.completed&since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z"); fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Errorf("within a wide time range: %v", got)
	}
	if got, _ := page("?since=2100-01-01T00:00:00Z"); len(got) != 0 {
		t.Errorf("since the future: %v", got)
	}
}

func TestEventsFeedErrors(t *testing.T) {
	s := newServer(t)
	ids := s.importEvents("acme", 1)
	globex := s.importEvents("globex", 1)
	key := s.key("acme", "feed", connect.ScopeEventsRead)
	noScope := s.key("acme", "hooks", connect.ScopeWebhooksManage)
	tests := []refusal{
		{"no key", request{method: "GET", path: eventsBase}, 401, connect.CodeUnauthorized, ""},
		{"without events.read", request{method: "GET", path: eventsBase, key: noScope}, 403, connect.CodeInsufficientScope, "events.read"},
		{"limit 0", request{method: "GET", path: eventsBase + "?limit=0", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "limit must be given once, as a whole number between 1 and 200"},
		{"limit 201", request{method: "GET", path: eventsBase + "?limit=201", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "limit"},
		{"limit not a number", request{method: "GET", path: eventsBase + "?limit=ten", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "limit"},
		{"unknown type", request{method: "GET", path: eventsBase + "?type=job.done", key: key, invalid: true}, 400, connect.CodeInvalidRequest, `type[0] is "job.done"`},
		{"since not a date-time", request{method: "GET", path: eventsBase + "?since=yesterday", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "since must be given once, as an RFC 3339 date-time"},
		{"since after until", request{method: "GET", path: eventsBase + "?since=2026-11-25T00:00:00Z&until=2026-11-24T00:00:00Z", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "since must be before until"},
		{"after an unknown event", request{method: "GET", path: eventsBase + "?after=evt_nope", key: key}, 404, connect.CodeNotFound, `after "evt_nope" names no event`},
		{"after another tenant's event", request{method: "GET", path: eventsBase + "?after=" + globex[0], key: key}, 404, connect.CodeNotFound, "names no event"},
		{"an unknown event", request{method: "GET", path: eventsBase + "/evt_nope", key: key}, 404, connect.CodeNotFound, "has no event"},
		{"another tenant's event", request{method: "GET", path: eventsBase + "/" + globex[0], key: key}, 404, connect.CodeNotFound, "has no event"},
		{"an event without events.read", request{method: "GET", path: eventsBase + "/" + ids[0], key: noScope}, 403, connect.CodeInsufficientScope, "events.read"},
	}
	s.checkRefusals(t, tests)
}

// TestSubscriptionRecoveryOverHTTP: health, disable and enable, attempts,
// replay, resend and test, with every status they answer.
func TestSubscriptionRecoveryOverHTTP(t *testing.T) {
	s := newServer(t)
	ids := s.importEvents("acme", 2)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	subs := &webhooks.Subscriptions{Store: s.store}
	sub, _, err := subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: receiver.URL, Kinds: []connect.EventKind{connect.EventImportJobCompleted}, AllowInsecureLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: receiver.URL, Kinds: []connect.EventKind{connect.EventAppointmentRequestCreated}, AllowInsecureLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	key := s.key("acme", "hooks", connect.ScopeWebhooksManage)
	globex := s.key("globex", "hooks", connect.ScopeWebhooksManage)
	reader := s.key("acme", "reader", connect.ScopeEventsRead)
	path := fmt.Sprintf("%s/%d", subsBase, sub.ID)
	idem := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }

	var info connect.WebhookSubscriptionInfo
	resp := s.do(request{method: "POST", path: path + "/disable", key: key})
	resp.json(t, &info)
	if resp.status != 200 || info.Status != connect.SubscriptionDisabled || info.Enabled {
		t.Errorf("disable: %d %s", resp.status, resp.body)
	}
	resp = s.do(request{method: "POST", path: path + "/enable", key: key})
	resp.json(t, &info)
	if resp.status != 200 || info.Status != connect.SubscriptionEnabled || !info.Enabled {
		t.Errorf("enable: %d %s", resp.status, resp.body)
	}
	resp = s.do(request{method: "POST", path: path + "/replay", key: key, body: `{"since":"2000-01-01T00:00:00Z"}`, header: idem("r1")})
	resp.json(t, &info)
	if resp.status != 202 || info.PendingReplays != 1 { // the two events from before the subscription
		t.Errorf("replay: %d %s", resp.status, resp.body)
	}
	resp = s.do(request{method: "POST", path: path + "/resend", key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[0]), header: idem("s1")})
	resp.json(t, &info)
	if resp.status != 202 || info.PendingReplays != 2 {
		t.Errorf("resend: %d %s", resp.status, resp.body)
	}
	if again := s.do(request{method: "POST", path: path + "/resend", key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[0]), header: idem("s1")}); again.status != 202 || again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(resp.body) {
		t.Errorf("resend again under its key: %d %s", again.status, again.body)
	}
	var attempt connect.DeliveryAttempt
	resp = s.do(request{method: "POST", path: path + "/test", key: key, header: idem("t1")})
	resp.json(t, &attempt)
	if resp.status != 200 || attempt.Outcome != "delivered" || attempt.ResponseStatus == nil || *attempt.ResponseStatus != 204 || attempt.Trigger != "test" {
		t.Errorf("test: %d %s", resp.status, resp.body)
	}
	var attempts connect.DeliveryAttemptPage
	resp = s.do(request{method: "GET", path: path + "/attempts?limit=1", key: key})
	resp.json(t, &attempts)
	if resp.status != 200 || len(attempts.Attempts) != 1 || attempts.Attempts[0].ID != attempt.ID || attempts.Next != fmt.Sprint(attempt.ID) {
		t.Errorf("attempts: %d %s", resp.status, resp.body)
	}
	if older := s.do(request{method: "GET", path: path + "/attempts?before=" + attempts.Next, key: key}); older.status != 200 || !strings.Contains(string(older.body), `"attempts":[]`) {
		t.Errorf("attempts before the ping: %d %s", older.status, older.body)
	}

	for i := range 18 { // 2 pending: 18 more fill the queue
		if r := s.do(request{method: "POST", path: path + "/resend", key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[1]), header: idem(fmt.Sprint("fill-", i))}); r.status != 202 {
			t.Fatalf("resend %d: %d %s", i, r.status, r.body)
		}
	}
	tests := []refusal{
		{"no key", request{method: "POST", path: path + "/enable"}, 401, connect.CodeUnauthorized, ""},
		{"without webhooks.manage", request{method: "POST", path: path + "/test", key: reader}, 403, connect.CodeInsufficientScope, "webhooks.manage"},
		{"another tenant's enable", request{method: "POST", path: path + "/enable", key: globex}, 404, connect.CodeNotFound, ""},
		{"another tenant's disable", request{method: "POST", path: path + "/disable", key: globex}, 404, connect.CodeNotFound, ""},
		{"another tenant's attempts", request{method: "GET", path: path + "/attempts", key: globex}, 404, connect.CodeNotFound, ""},
		{"another tenant's test", request{method: "POST", path: path + "/test", key: globex}, 404, connect.CodeNotFound, ""},
		{"another tenant's replay", request{method: "POST", path: path + "/replay", key: globex, body: `{"since":"2000-01-01T00:00:00Z"}`}, 404, connect.CodeNotFound, ""},
		{"attempts limit 0", request{method: "GET", path: path + "/attempts?limit=0", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "limit"},
		{"attempts before not a number", request{method: "GET", path: path + "/attempts?before=x", key: key, invalid: true}, 400, connect.CodeInvalidRequest, "before"},
		{"replay without a start", request{method: "POST", path: path + "/replay", key: key, body: `{}`}, 400, connect.CodeInvalidRequest, "exactly one of since and afterEventId"},
		{"replay with both starts", request{method: "POST", path: path + "/replay", key: key, body: fmt.Sprintf(`{"since":"2000-01-01T00:00:00Z","afterEventId":%q}`, ids[0])}, 400, connect.CodeInvalidRequest, "exactly one of"},
		{"replay with an unknown field", request{method: "POST", path: path + "/replay", key: key, body: `{"from":"2000-01-01T00:00:00Z"}`, invalid: true}, 400, connect.CodeInvalidRequest, "from"},
		{"replay after an unknown event", request{method: "POST", path: path + "/replay", key: key, body: `{"afterEventId":"evt_nope"}`}, 404, connect.CodeNotFound, `afterEventId "evt_nope" names no event`},
		{"resend of an unknown event", request{method: "POST", path: path + "/resend", key: key, body: `{"eventId":"evt_nope"}`}, 404, connect.CodeNotFound, "eventId"},
		{"resend of a type the subscription does not receive", request{method: "POST", path: fmt.Sprintf("%s/%d/resend", subsBase, other.ID), key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[0])}, 400, connect.CodeInvalidRequest, "does not receive"},
		{"resend without an event", request{method: "POST", path: path + "/resend", key: key, body: `{}`, invalid: true}, 400, connect.CodeInvalidRequest, "eventId is required"},
		{"too many replays pending", request{method: "POST", path: path + "/resend", key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[0])}, 429, connect.CodeRateLimited, "20 replays and resends pending"},
		{"key reused with another body", request{method: "POST", path: path + "/resend", key: key, body: fmt.Sprintf(`{"eventId":%q}`, ids[1]), header: idem("s1")}, 409, connect.CodeIdempotencyKeyReused, ""},
	}
	s.checkRefusals(t, tests)
}
