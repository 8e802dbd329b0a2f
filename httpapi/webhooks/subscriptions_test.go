package webhooks_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

var job = []connect.EventKind{connect.EventImportJobCompleted}

// TestAddChecksTheSubscription: https is required, except http on a loopback
// host when allowed; kinds must be known; every refusal names its field.
func TestAddChecksTheSubscription(t *testing.T) {
	const (
		needsHTTPS = "url must use https (http only on a loopback host with allowInsecureLoopback, for development)"
		notAbs     = "url must be an absolute URL such as https://example.com/webhooks"
	)
	tests := []struct {
		tenant, url string
		allow       bool
		kinds       []connect.EventKind
		wantErr     string
	}{
		{"acme", "https://hooks.example.com/connect", false, job, ""},
		{"acme", "https://127.0.0.1/connect", false, job, "url host \"127.0.0.1\" is or resolves to 127.0.0.1, a loopback address; webhooks are not delivered into private networks"},
		{"acme", "https://127.0.0.1/connect", true, job, ""},
		{"acme", "http://127.0.0.1:9000/hook", true, job, ""},
		{"acme", "http://127.45.6.7/hook", true, job, ""},
		{"acme", "http://localhost:8080/hook", true, job, ""},
		{"acme", "http://LOCALHOST/hook", true, job, ""},
		{"acme", "http://[::1]:8080/hook", true, job, ""},
		{"acme", "http://hooks.example.com/connect", false, job, needsHTTPS},
		{"acme", "http://127.0.0.1:9000/hook", false, job, needsHTTPS},
		{"acme", "http://10.0.0.1/hook", true, job, `url must use https: "10.0.0.1" is not a loopback host (127.0.0.0/8, ::1, localhost), the only hosts allowInsecureLoopback allows over http`},
		{"acme", "http://localhost.example.com/hook", true, job, `url must use https: "localhost.example.com" is not a loopback host (127.0.0.0/8, ::1, localhost), the only hosts allowInsecureLoopback allows over http`},
		{"acme", "ftp://127.0.0.1/hook", true, job, needsHTTPS},
		{"acme", "/hook", true, job, notAbs},
		{"acme", "https:hook", false, job, notAbs},
		{"acme", "https://user:secret@hooks.example.com/", false, job, "url must not hold a user name or password: subscriptions are listed, so they would leak"},
		{"acme", " ", false, job, "url is required and must not be blank"},
		{"", "https://hooks.example.com/", false, job, "tenantId is required and must not be blank"},
		{"acme", "https://hooks.example.com/", false, nil, "kinds must hold at least one event kind: import_job.completed, route_suggestion.created, appointment_request.created, appointment_request.status_changed"},
		{"acme", "https://hooks.example.com/", false, []connect.EventKind{connect.EventImportJobCompleted, "import_job.complete"}, `kinds[1] is "import_job.complete", not an event kind; the kinds are import_job.completed, route_suggestion.created, appointment_request.created, appointment_request.status_changed`},
	}
	f := newFixture(t)
	for _, tc := range tests {
		_, _, err := f.subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: tc.tenant, URL: tc.url, Kinds: tc.kinds, AllowInsecureLoopback: tc.allow})
		got := ""
		if err != nil {
			got = string(connect.ErrorCodeOf(err)) + ": " + connect.AsError(err).Message
		}
		if want := tc.wantErr; want != "" && got != "InvalidRequest: "+want || want == "" && got != "" {
			t.Errorf("Add(%q, %q, allow %v, %v) = %q; want %q", tc.tenant, tc.url, tc.allow, tc.kinds, got, tc.wantErr)
		}
	}
}

// TestSubscriptionLifecycle: the secret is shown once and never listed;
// another tenant's id is NotFound; disable, enable and remove do what they
// say.
func TestSubscriptionLifecycle(t *testing.T) {
	f := newFixture(t)
	f.appendEvent("acme", t0)
	sub, secret, err := f.subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "acme", URL: "https://hooks.example.com/a",
		Kinds: []connect.EventKind{connect.EventAppointmentStatusChanged, connect.EventImportJobCompleted, connect.EventAppointmentStatusChanged}})
	if err != nil {
		t.Fatal(err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) != 32 {
		t.Errorf("secret %q is not whsec_ and the base64 of 32 bytes", secret)
	}
	if sub.ID <= 0 || !sub.Enabled || sub.Cursor != 1 || fmt.Sprint(sub.Kinds) != "[appointment_request.status_changed import_job.completed]" {
		t.Errorf("new subscription = %+v", sub)
	}
	other, _, err := f.subs.Add(t.Context(), connect.NewWebhookSubscription{TenantID: "globex", URL: "https://hooks.example.com/g", Kinds: job})
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.subs.List(t.Context(), "")
	listed, _ := json.Marshal(all)
	if err != nil || len(all) != 2 || strings.Contains(string(listed), secret) || strings.Contains(string(listed), "whsec_") {
		t.Errorf("List = %s, %v", listed, err)
	}

	ctx := t.Context()
	for name, call := range map[string]func() error{
		"Remove":       func() error { return f.subs.Remove(ctx, "acme", other.ID) },
		"RotateSecret": func() error { _, err := f.subs.RotateSecret(ctx, "acme", other.ID); return err },
		"Enable":       func() error { _, err := f.subs.Enable(ctx, "acme", other.ID); return err },
		"Disable":      func() error { _, err := f.subs.Disable(ctx, "acme", 999); return err },
	} {
		err := call()
		if e := connect.AsError(err); e == nil || e.Code != connect.CodeNotFound || !strings.HasPrefix(e.Message, `tenant "acme" has no webhook subscription `) {
			t.Errorf("%s of another tenant's or an unknown id: %v", name, err)
		}
	}

	if _, err := f.subs.Disable(ctx, "acme", sub.ID); err != nil {
		t.Fatal(err)
	}
	if s := f.subscription("acme", sub.ID); s.Enabled || s.DisabledAt == nil {
		t.Errorf("after Disable: %+v", s)
	}
	if _, err := f.subs.Enable(ctx, "acme", sub.ID); err != nil {
		t.Fatal(err)
	}
	if s := f.subscription("acme", sub.ID); !s.Enabled || s.DisabledAt != nil {
		t.Errorf("after Enable: %+v", s)
	}
	if err := f.subs.Remove(ctx, "acme", sub.ID); err != nil {
		t.Fatal(err)
	}
	if list, err := f.subs.List(ctx, "acme"); err != nil || len(list) != 0 {
		t.Errorf("after Remove: %+v, %v", list, err)
	}
}
