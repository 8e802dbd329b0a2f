package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi"
)

const (
	aprBase    = "/connect/v1/appointment-requests"
	goodApr    = `{"externalReference":"SR-1","serviceType":"repair","priority":"high","location":{"street":"Hauptstr. 1","city":"Berlin","latitude":52.5,"longitude":13.4},"preferredTimeWindows":[{"startUtc":"2026-11-23T08:00:00Z","endUtc":"2026-11-23T12:00:00Z"}],"metadata":{"ticket":{"id":7}}}`
	goodCancel = `{"reason":"customer called back","cancelledBy":"customer"}`
)

func submitApr(t *testing.T, s *server, key string) connect.AppointmentRequest {
	t.Helper()
	resp := s.do(request{method: "POST", path: aprBase, body: goodApr, key: key})
	var apr connect.AppointmentRequest
	resp.json(t, &apr)
	if resp.status != 201 {
		t.Fatalf("submit: %d %s", resp.status, resp.body)
	}
	return apr
}

func TestAppointmentRequestsOverHTTP(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "crm", connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead)
	apr := submitApr(t, s, key)
	if !strings.HasPrefix(apr.ID, "apr_") || apr.Status != connect.AppointmentValidated || apr.Priority != "high" || apr.CancelledAt != nil {
		t.Errorf("submitted %+v", apr)
	}

	var got connect.AppointmentRequest
	s.do(request{method: "GET", path: aprBase + "/" + apr.ID, key: key}).json(t, &got)
	if got.ID != apr.ID || got.ExternalReference != "SR-1" || string(got.Metadata) != `{"ticket":{"id":7}}` {
		t.Errorf("read back %+v", got)
	}

	var status connect.AppointmentStatusResponse
	s.do(request{method: "GET", path: aprBase + "/" + apr.ID + "/status", key: key}).json(t, &status)
	if status.Status != connect.AppointmentValidated || len(status.History) != 2 || status.History[0].Status != connect.AppointmentSubmitted {
		t.Errorf("status %+v", status)
	}

	cancel := func(idem, body string) response {
		return s.do(request{method: "POST", path: aprBase + "/" + apr.ID + "/cancel", body: body, key: key, header: map[string]string{"Idempotency-Key": idem}})
	}
	first := cancel("c-1", goodCancel)
	var c1, c2 connect.CancelAppointmentResponse
	first.json(t, &c1)
	if first.status != 200 || c1.Status != "Cancelled" || c1.ID != apr.ID {
		t.Fatalf("cancel: %d %s", first.status, first.body)
	}
	// Cancelling again (new key) answers the original cancellation.
	second := cancel("c-2", `{"reason":"again"}`)
	second.json(t, &c2)
	if second.status != 200 || !c2.CancelledAt.Equal(c1.CancelledAt) || second.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("second cancel: %d %s", second.status, second.body)
	}
	if replay := cancel("c-1", goodCancel); replay.status != 200 || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replayed cancel: %d %q", replay.status, replay.header.Get("Idempotent-Replayed"))
	}
	if reused := cancel("c-1", `{"reason":"other"}`); reused.status != 409 || reused.apiError(t).Code != connect.CodeIdempotencyKeyReused {
		t.Errorf("cancel with a reused key: %d %s", reused.status, reused.body)
	}
}

func TestAppointmentErrors(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "crm", connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead)
	other := s.key("globex", "crm", connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead)
	apr := submitApr(t, s, key)

	tests := []struct {
		name, body, want string
	}{
		{"no location", `{"externalReference":"x","serviceType":"visit"}`, "location is required"},
		{"bad window", `{"externalReference":"x","serviceType":"visit","location":{},"preferredTimeWindows":[{"startUtc":"2026-11-23T12:00:00Z","endUtc":"2026-11-23T08:00:00Z"}]}`, "preferredTimeWindows[0].endUtc must be after preferredTimeWindows[0].startUtc"},
		{"latitude", `{"externalReference":"x","serviceType":"visit","location":{"latitude":91}}`, "location.latitude must be between -90 and 90"},
		{"unknown field", `{"externalReference":"x","serviceType":"visit","location":{},"prio":"high"}`, "prio is not a field"},
		{"not JSON", `{`, "not valid JSON"},
	}
	for _, tc := range tests {
		resp := s.do(request{method: "POST", path: aprBase, body: tc.body, key: key, invalid: true})
		if e := resp.apiError(t); resp.status != 400 || e.Code != connect.CodeInvalidRequest || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %d %s; want 400 naming %q", tc.name, resp.status, resp.body, tc.want)
		}
	}
	if resp := s.do(request{method: "POST", path: aprBase + "/" + apr.ID + "/cancel", body: `{"cancelledBy":"robot"}`, key: key, invalid: true}); resp.status != 400 {
		t.Errorf("bad cancel body: %d %s", resp.status, resp.body)
	}
	for _, path := range []string{aprBase + "/" + apr.ID, aprBase + "/" + apr.ID + "/status", aprBase + "/apr_nope"} {
		who := other
		if strings.HasSuffix(path, "nope") {
			who = key
		}
		if resp := s.do(request{method: "GET", path: path, key: who}); resp.status != 404 || resp.apiError(t).Code != connect.CodeNotFound {
			t.Errorf("GET %s: %d %s", path, resp.status, resp.body)
		}
	}
	if resp := s.do(request{method: "POST", path: aprBase + "/" + apr.ID + "/cancel", body: goodCancel, key: other}); resp.status != 404 {
		t.Errorf("cancelling another tenant's request: %d", resp.status)
	}

	// InProgress cannot be cancelled.
	for _, action := range []connect.AppointmentAction{"accept", "schedule", "assign", "start"} {
		if _, err := s.appointments.TransitionAppointmentRequest(t.Context(), "acme", apr.ID, action, "by the host"); err != nil {
			t.Fatal(err)
		}
	}
	resp := s.do(request{method: "POST", path: aprBase + "/" + apr.ID + "/cancel", body: goodCancel, key: key})
	if resp.status != 409 || resp.apiError(t).Code != connect.CodeInvalidStateTransition {
		t.Errorf("cancel InProgress: %d %s", resp.status, resp.body)
	}
}

func TestAppointmentScopesAndRateLimit(t *testing.T) {
	s := newServer(t, func(c *httpapi.Config) { c.RateLimit = rate.Every(time.Minute); c.RateBurst = 3 })
	owner := s.key("acme", "owner", connect.ScopeAppointmentRequestsWrite, connect.ScopeAppointmentRequestsRead)
	apr := submitApr(t, s, owner)
	ops := []struct {
		method, path, body string
		scope              connect.Scope
	}{
		{"POST", aprBase, goodApr, connect.ScopeAppointmentRequestsWrite},
		{"GET", aprBase + "/" + apr.ID, "", connect.ScopeAppointmentRequestsRead},
		{"GET", aprBase + "/" + apr.ID + "/status", "", connect.ScopeAppointmentRequestsRead},
		{"POST", aprBase + "/" + apr.ID + "/cancel", goodCancel, connect.ScopeAppointmentRequestsWrite},
	}
	for i, op := range ops {
		for _, scope := range connect.AllScopes {
			key := s.key("acme", fmt.Sprintf("k%d-%s", i, scope), scope)
			resp := s.do(request{method: op.method, path: op.path, body: op.body, key: key})
			switch {
			case scope == op.scope && resp.status == 403:
				t.Errorf("%s %s with %s: 403", op.method, op.path, scope)
			case scope != op.scope && (resp.status != 403 || *resp.apiError(t).RequiredScope != op.scope):
				t.Errorf("%s %s with %s: %d %s", op.method, op.path, scope, resp.status, resp.body)
			}
		}
	}
	// Writes are rate limited (owner used one of its three tokens); reads are not.
	for i, want := range []int{201, 201, 429} {
		resp := s.do(request{method: "POST", path: aprBase, body: goodApr, key: owner})
		if resp.status != want {
			t.Errorf("submit %d: %d", i, resp.status)
		}
	}
	if resp := s.do(request{method: "POST", path: aprBase + "/" + apr.ID + "/cancel", body: goodCancel, key: owner}); resp.status != 429 {
		t.Errorf("cancel past the limit: %d", resp.status)
	}
	for range 3 {
		if resp := s.do(request{method: "GET", path: aprBase + "/" + apr.ID, key: owner}); resp.status != 200 {
			t.Errorf("read limited: %d", resp.status)
		}
	}
}
