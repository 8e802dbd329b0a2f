package appointments_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/store"
)

var idPattern = regexp.MustCompile(`^apr_[0-9A-HJKMNP-TV-Z]{26}$`)

func TestSubmitValidated(t *testing.T) {
	f := mustOpen(t)
	req := validRequest()
	got := f.submit(req)
	if !idPattern.MatchString(got.ID) {
		t.Errorf("id %q does not match %s", got.ID, idPattern)
	}
	want := connect.AppointmentRequest{ID: got.ID, Status: connect.AppointmentValidated, NewAppointmentRequest: req, CreatedAt: t0, UpdatedAt: t0}
	want.Priority = connect.AppointmentPriorityNormal
	want.PreferredTimeWindows = []connect.AppointmentTimeWindow{}
	if a, b := mustJSON(t, got), mustJSON(t, want); a != b {
		t.Errorf("submitted\n  %s\nwant\n  %s", a, b)
	}
	if a, b := mustJSON(t, f.get(got.ID)), mustJSON(t, want); a != b {
		t.Errorf("read back\n  %s\nwant\n  %s", a, b)
	}
	st := f.status(got.ID)
	wantHistory := []connect.AppointmentStatusChange{
		{Status: connect.AppointmentSubmitted, At: t0, Note: ptr("submitted by client erp")},
		{Status: connect.AppointmentValidated, At: t0, Note: ptr("automatic checks passed")},
	}
	if changesString(st.History) != changesString(wantHistory) || st.Status != connect.AppointmentValidated || !st.UpdatedAt.Equal(t0) {
		t.Errorf("status %s updated %s history %s", st.Status, st.UpdatedAt, changesString(st.History))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSubmitWithoutCoordinatesNeedsReview(t *testing.T) {
	f := mustOpen(t)
	tests := []struct {
		name     string
		location connect.InboundTargetLocation
	}{
		{"no coordinates", connect.InboundTargetLocation{City: ptr("Berlin")}},
		{"latitude only", connect.InboundTargetLocation{Latitude: ptr(52.5)}},
		{"longitude only", connect.InboundTargetLocation{Longitude: ptr(13.4)}},
		{"empty location", connect.InboundTargetLocation{}},
	}
	for _, tc := range tests {
		req := validRequest()
		req.Location = &tc.location
		got := f.submit(req)
		st := f.status(got.ID)
		if got.Status != connect.AppointmentPendingReview || len(st.History) != 2 ||
			*st.History[1].Note != "needs review: location needs both latitude and longitude to plan a visit" {
			t.Errorf("%s: %s with history %s", tc.name, got.Status, changesString(st.History))
		}
	}
}

// TestSubmitJSONKeepsEveryField submits every field as JSON and reads the
// record back in its wire form: field names, defaults, UTC times and the
// metadata as sent (compacted, numbers untouched).
func TestSubmitJSONKeepsEveryField(t *testing.T) {
	f := mustOpen(t)
	body := `{
	  "externalReference": "SR-2001",
	  "serviceType": "heat-pump-check",
	  "priority": "urgent",
	  "customer": {"externalId": "C-1", "customerNumber": "10001", "name": "Acme GmbH", "email": "ops@acme.example"},
	  "contact": {"firstName": "Ada", "lastName": "Lovelace", "phone": "+49 30 1234567", "preferredContactMethod": "phone"},
	  "location": {"name": "Plant 2", "street": "Hauptstr. 1", "city": "Berlin", "country": "DE", "latitude": 52.52, "longitude": 13.405},
	  "preferredTimeWindows": [
	    {"startUtc": "2026-11-23T09:00:00+02:00", "endUtc": "2026-11-23T12:00:00+02:00"},
	    {"startUtc": "2026-11-24T08:00:00Z", "endUtc": "2026-11-24T10:30:00Z"}
	  ],
	  "description": "Annual check of the heat pump.",
	  "metadata": { "ticket": {"id": 12345678901234567890, "tags": ["a", "ß"]}, "score": 1.50, "ok": true, "none": null }
	}`
	out, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(body), connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := out.Request.ID
	want := `{"id":"` + id + `","status":"Validated","externalReference":"SR-2001","serviceType":"heat-pump-check","priority":"urgent",` +
		`"customer":{"externalId":"C-1","customerNumber":"10001","name":"Acme GmbH","type":null,"industry":null,"email":"ops@acme.example","phone":null,"website":null},` +
		`"contact":{"externalId":null,"firstName":"Ada","lastName":"Lovelace","displayName":null,"role":null,"department":null,"email":null,"phone":"+49 30 1234567","mobile":null,"preferredContactMethod":"phone"},` +
		`"location":{"externalId":null,"name":"Plant 2","type":null,"street":"Hauptstr. 1","postalCode":null,"city":"Berlin","region":null,"country":"DE","latitude":52.52,"longitude":13.405,"defaultEstimatedWorkMinutes":null,"defaultPriority":null,"accessNotes":null,"parkingNotes":null},` +
		`"preferredTimeWindows":[{"startUtc":"2026-11-23T07:00:00Z","endUtc":"2026-11-23T10:00:00Z"},{"startUtc":"2026-11-24T08:00:00Z","endUtc":"2026-11-24T10:30:00Z"}],` +
		`"description":"Annual check of the heat pump.",` +
		`"metadata":{"ticket":{"id":12345678901234567890,"tags":["a","ß"]},"score":1.50,"ok":true,"none":null},` +
		`"createdAt":"2026-11-21T08:00:00Z","updatedAt":"2026-11-21T08:00:00Z","cancelledAt":null,"cancelReason":null,"cancelledBy":null}`
	if got := mustJSON(t, out.Request); got != want {
		t.Errorf("submitted\n  %s\nwant\n  %s", got, want)
	}
	if got := mustJSON(t, f.get(id)); got != want {
		t.Errorf("read back\n  %s\nwant\n  %s", got, want)
	}
}

func TestSubmitValidationNamesFieldPaths(t *testing.T) {
	window := func(start, end time.Time) connect.AppointmentTimeWindow {
		return connect.AppointmentTimeWindow{StartUtc: start, EndUtc: end}
	}
	tests := []struct {
		name   string
		change func(*connect.NewAppointmentRequest)
		msg    string
	}{
		{"externalReference missing", func(r *connect.NewAppointmentRequest) { r.ExternalReference = "" },
			"externalReference is required and must not be blank"},
		{"externalReference too long", func(r *connect.NewAppointmentRequest) { r.ExternalReference = strings.Repeat("r", 201) },
			"externalReference must be at most 200 characters"},
		{"serviceType blank", func(r *connect.NewAppointmentRequest) { r.ServiceType = " \t" },
			"serviceType is required and must not be blank"},
		{"serviceType too long", func(r *connect.NewAppointmentRequest) { r.ServiceType = strings.Repeat("s", 501) },
			"serviceType must be at most 500 characters"},
		{"bad priority", func(r *connect.NewAppointmentRequest) { r.Priority = "asap" },
			"priority must be one of: low, normal, high, urgent"},
		{"location missing", func(r *connect.NewAppointmentRequest) { r.Location = nil },
			"location is required"},
		{"latitude 91", func(r *connect.NewAppointmentRequest) { r.Location.Latitude = ptr(91.0) },
			"location.latitude must be between -90 and 90"},
		{"longitude -181", func(r *connect.NewAppointmentRequest) { r.Location.Longitude = ptr(-181.0) },
			"location.longitude must be between -180 and 180"},
		{"contact email", func(r *connect.NewAppointmentRequest) { r.Contact = &connect.InboundTargetContact{Email: ptr("ada@")} },
			"contact.email must be a valid email address"},
		{"customer website", func(r *connect.NewAppointmentRequest) {
			r.Customer = &connect.InboundTargetCustomer{Website: ptr("acme.example")}
		},
			"customer.website must be an absolute URI with a scheme, like https://example.com"},
		{"11 windows", func(r *connect.NewAppointmentRequest) {
			r.PreferredTimeWindows = slices.Repeat([]connect.AppointmentTimeWindow{window(t0, t0.Add(time.Hour))}, 11)
		}, "preferredTimeWindows must have at most 10 entries"},
		{"window end equals start", func(r *connect.NewAppointmentRequest) {
			r.PreferredTimeWindows = []connect.AppointmentTimeWindow{window(t0, t0)}
		}, "preferredTimeWindows[0].endUtc must be after preferredTimeWindows[0].startUtc"},
		{"second window ends before it starts", func(r *connect.NewAppointmentRequest) {
			r.PreferredTimeWindows = []connect.AppointmentTimeWindow{window(t0, t0.Add(time.Hour)), window(t0, t0.Add(-time.Minute))}
		}, "preferredTimeWindows[1].endUtc must be after preferredTimeWindows[1].startUtc"},
		{"window without start", func(r *connect.NewAppointmentRequest) {
			r.PreferredTimeWindows = []connect.AppointmentTimeWindow{{EndUtc: t0}}
		}, "preferredTimeWindows[0].startUtc is required"},
		{"description too long", func(r *connect.NewAppointmentRequest) { r.Description = ptr(strings.Repeat("d", 10001)) },
			"description must be at most 10000 characters"},
		{"metadata an array", func(r *connect.NewAppointmentRequest) { r.Metadata = jsontext.Value(`[1,2]`) },
			"metadata must be a JSON object"},
		{"metadata a string", func(r *connect.NewAppointmentRequest) { r.Metadata = jsontext.Value(`"x"`) },
			"metadata must be a JSON object"},
		{"metadata over 16 KiB", func(r *connect.NewAppointmentRequest) { r.Metadata = bigMetadata(16<<10 + 1) },
			"metadata must be at most 16384 bytes of compact JSON"},
		{"metadata not JSON", func(r *connect.NewAppointmentRequest) { r.Metadata = jsontext.Value(`{"a":`) },
			"metadata is not valid JSON"},
		{"two problems", func(r *connect.NewAppointmentRequest) { r.ExternalReference, r.Location = "", nil },
			"externalReference is required and must not be blank; location is required"},
	}
	f := mustOpen(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := validRequest()
			tc.change(&req)
			_, err := f.svc.SubmitAppointmentRequest(t.Context(), client, req, connect.WriteOptions{})
			wantError(t, "typed", err, connect.CodeInvalidRequest, tc.msg)
			if tc.name == "metadata not JSON" {
				return // cannot be sent as JSON
			}
			body, jerr := json.Marshal(req)
			if jerr != nil {
				t.Fatal(jerr)
			}
			_, err = f.svc.SubmitAppointmentRequestJSON(t.Context(), client, body, connect.WriteOptions{})
			wantError(t, "JSON", err, connect.CodeInvalidRequest, tc.msg)
		})
	}
	assertNothingStored(t, f)
}

// bigMetadata is a compact JSON object of exactly n bytes.
func bigMetadata(n int) jsontext.Value {
	return jsontext.Value(`{"x":"` + strings.Repeat("m", n-8) + `"}`)
}

func TestMetadataLimitIsInclusive(t *testing.T) {
	f := mustOpen(t)
	req := validRequest()
	req.Metadata = bigMetadata(16 << 10)
	if got := f.submit(req); len(got.Metadata) != 16<<10 {
		t.Errorf("metadata of exactly 16 KiB stored as %d bytes", len(got.Metadata))
	}
	// White space does not count: the limit is on compact JSON.
	req.Metadata = jsontext.Value("{\n   " + string(bigMetadata(16 << 10)[1:]))
	if _, err := f.svc.SubmitAppointmentRequest(t.Context(), client, req, connect.WriteOptions{}); err != nil {
		t.Errorf("16 KiB of metadata with white space: %v", err)
	}
	req.Metadata = jsontext.Value("null")
	if got := f.submit(req); got.Metadata != nil {
		t.Errorf("null metadata stored as %s", got.Metadata)
	}
}

func TestSubmitJSONDecodingNamesFieldPaths(t *testing.T) {
	valid := `"externalReference":"SR-1","serviceType":"visit","location":{"latitude":1,"longitude":2}`
	tests := []struct {
		name string
		body string
		msg  string
	}{
		{"unknown top-level field", `{` + valid + `,"externalRef":"x"}`,
			"externalRef is not a field of the appointment request (field names are case-sensitive)"},
		{"wrong case", `{` + valid + `,"Priority":"low"}`,
			"Priority is not a field of the appointment request (field names are case-sensitive)"},
		{"server field", `{` + valid + `,"status":"Accepted"}`,
			"status is not a field of the appointment request (field names are case-sensitive)"},
		{"unknown nested field", `{"externalReference":"SR-1","serviceType":"visit","location":{"lat":1}}`,
			"location.lat is not a field of the appointment request (field names are case-sensitive)"},
		{"unknown field in a window", `{` + valid + `,"preferredTimeWindows":[{"start":"2026-11-23T09:00:00Z"}]}`,
			"preferredTimeWindows[0].start is not a field of the appointment request (field names are case-sensitive)"},
		{"number for a string", `{"externalReference":"SR-1","serviceType":5}`, "serviceType must be a string, not a number"},
		{"string for a number", `{"externalReference":"SR-1","serviceType":"visit","location":{"latitude":"52.5"}}`,
			"location.latitude must be a number, not a string"},
		{"object for an array", `{` + valid + `,"preferredTimeWindows":{}}`, "preferredTimeWindows must be an array, not an object"},
		{"bad date-time", `{` + valid + `,"preferredTimeWindows":[{"startUtc":"tomorrow","endUtc":"2026-11-23T09:00:00Z"}]}`,
			"preferredTimeWindows[0].startUtc must be an RFC 3339 date-time such as 2026-11-21T08:00:00Z"},
		{"string for an object", `{` + valid + `,"customer":"Acme"}`, "customer must be an object, not a string"},
		{"metadata a number", `{` + valid + `,"metadata":42}`, "metadata must be a JSON object"},
		{"duplicate field", `{` + valid + `,"serviceType":"pickup"}`, "serviceType is given twice"},
		{"duplicate field in a nested object", `{` + valid + `,"customer":{"name":"a","name":"b"}}`, "customer.name is given twice"},
		{"duplicate field in metadata", `{` + valid + `,"metadata":{"a":{"b":1,"b":2}}}`, "metadata.a.b is given twice"},
		{"invalid UTF-8", `{` + valid + ",\"description\":\"\xff\"}", "description must be valid UTF-8"},
		{"string longer than any field", `{` + valid + `,"description":"` + strings.Repeat("d", 70000) + `"}`, "description is longer than 65536 bytes, more than any field holds"},
		{"invalid UTF-8 in metadata", `{` + valid + ",\"metadata\":{\"k\":[\"\xc3\"]}}", "metadata.k[0] must be valid UTF-8"},
		{"11 time windows", `{` + valid + `,"preferredTimeWindows":[` + strings.Repeat(`{},`, 10) + `{}]}`,
			"preferredTimeWindows must have at most 10 entries"},
		// The 11th window stops reading: what follows it is never looked at.
		{"11 time windows, then garbage", `{` + valid + `,"preferredTimeWindows":[` + strings.Repeat(`{},`, 11) + `!!!`,
			"preferredTimeWindows must have at most 10 entries"},
		{"array body", `[{` + valid + `}]`, "the appointment request must be a JSON object"},
		{"null body", `null`, "the appointment request must be a JSON object"},
		{"not JSON", `serviceType=visit`, "the appointment request is not valid JSON: invalid character 's' at start of value"},
		{"truncated", `{"serviceType":`, "serviceType is not valid JSON: unexpected EOF"},
	}
	f := mustOpen(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(tc.body), connect.WriteOptions{})
			wantError(t, tc.name, err, connect.CodeInvalidRequest, tc.msg)
		})
	}
	assertNothingStored(t, f)
}

func assertNothingStored(t *testing.T, f *fixture) {
	t.Helper()
	page, err := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, "", "", 10)
	if err != nil || len(page.Requests) != 0 {
		t.Errorf("invalid requests were stored: %d, %v", len(page.Requests), err)
	}
}

func TestSubmitIdempotency(t *testing.T) {
	f := mustOpen(t)
	key := connect.WriteOptions{IdempotencyKey: "submit-1"}
	body := `{"externalReference":"SR-1","serviceType":"visit","location":{"latitude":1,"longitude":2}}`
	first, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(body), key)
	if err != nil || first.Replayed {
		t.Fatalf("first submit = %+v, %v", first, err)
	}
	f.clock.Advance(time.Minute)
	again, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(`{ "location": {"longitude": 2, "latitude": 1}, "serviceType": "visit", "externalReference": "SR-1" }`), key)
	if err != nil || !again.Replayed || mustJSON(t, again.Request) != mustJSON(t, first.Request) {
		t.Errorf("replay = %+v, %v; want the first request, replayed", again, err)
	}
	_, err = f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(`{"externalReference":"SR-2","serviceType":"visit","location":{}}`), key)
	wantError(t, "same key, other body", err, connect.CodeIdempotencyKeyReused, "")
	// The same key of another client is another key.
	otherClient := client
	otherClient.ClientID = "erp-2"
	if out, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), otherClient, []byte(body), key); err != nil || out.Replayed {
		t.Errorf("other client's key: %+v, %v", out, err)
	}
	page, err := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, "", "", 10)
	if err != nil || len(page.Requests) != 2 || page.Requests[0].ID != first.Request.ID {
		t.Errorf("stored %d requests (%v), want the first one and the other client's", len(page.Requests), err)
	}
	// An invalid body is answered the same way again, replayed.
	bad := connect.WriteOptions{IdempotencyKey: "submit-bad"}
	_, err = f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(`{"serviceType":"visit"}`), bad)
	wantError(t, "invalid body", err, connect.CodeInvalidRequest, "externalReference is required and must not be blank; location is required")
	out, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, []byte(`{"serviceType":"visit"}`), bad)
	wantError(t, "invalid body again", err, connect.CodeInvalidRequest, "externalReference is required and must not be blank; location is required")
	if !out.Replayed {
		t.Error("the repeated invalid body was not replayed")
	}
}

func TestScopes(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentValidated)
	readOnly := client
	readOnly.Scopes = []connect.Scope{connect.ScopeAppointmentRequestsRead, connect.ScopeTargetsWrite}
	writeOnly := client
	writeOnly.Scopes = []connect.Scope{connect.ScopeAppointmentRequestsWrite}
	body := []byte(`{"reason":"r"}`)
	ctx := t.Context()
	tests := []struct {
		name  string
		call  func() error
		scope connect.Scope
	}{
		{"submit", func() error {
			_, err := f.svc.SubmitAppointmentRequest(ctx, readOnly, validRequest(), connect.WriteOptions{})
			return err
		}, connect.ScopeAppointmentRequestsWrite},
		{"submit JSON", func() error {
			_, err := f.svc.SubmitAppointmentRequestJSON(ctx, readOnly, []byte(`{}`), connect.WriteOptions{IdempotencyKey: "k"})
			return err
		}, connect.ScopeAppointmentRequestsWrite},
		{"cancel", func() error {
			_, err := f.svc.CancelAppointmentRequest(ctx, readOnly, id, connect.CancelAppointmentRequest{Reason: "r"}, connect.WriteOptions{})
			return err
		}, connect.ScopeAppointmentRequestsWrite},
		{"cancel JSON", func() error {
			_, err := f.svc.CancelAppointmentRequestJSON(ctx, readOnly, id, body, connect.WriteOptions{})
			return err
		}, connect.ScopeAppointmentRequestsWrite},
		{"get", func() error { _, err := f.svc.GetAppointmentRequest(ctx, writeOnly, id); return err }, connect.ScopeAppointmentRequestsRead},
		{"status", func() error { _, err := f.svc.AppointmentRequestStatus(ctx, writeOnly, id); return err }, connect.ScopeAppointmentRequestsRead},
		{"get of an unknown id", func() error { _, err := f.svc.GetAppointmentRequest(ctx, writeOnly, "apr_x"); return err }, connect.ScopeAppointmentRequestsRead},
	}
	for _, tc := range tests {
		err := tc.call()
		e := connect.AsError(err)
		if e == nil || e.Code != connect.CodeInsufficientScope || e.RequiredScope != tc.scope || e.Message != "the API key lacks the scope "+string(tc.scope) {
			t.Errorf("%s: got %#v, want InsufficientScope requiring %s", tc.name, e, tc.scope)
		}
	}
	if st := f.status(id); st.Status != connect.AppointmentValidated {
		t.Errorf("a refused call changed the request: %s", st.Status)
	}
}

func TestTenantIsolation(t *testing.T) {
	f := mustOpen(t)
	id := f.reach(connect.AppointmentValidated)
	notFound := fmt.Sprintf("appointment request %q not found", id)
	ctx := t.Context()
	_, err := f.svc.GetAppointmentRequest(ctx, stranger, id)
	wantError(t, "get", err, connect.CodeNotFound, notFound)
	_, err = f.svc.AppointmentRequestStatus(ctx, stranger, id)
	wantError(t, "status", err, connect.CodeNotFound, notFound)
	_, err = f.svc.CancelAppointmentRequest(ctx, stranger, id, connect.CancelAppointmentRequest{Reason: "r"}, connect.WriteOptions{})
	wantError(t, "cancel", err, connect.CodeNotFound, notFound)
	_, err = f.svc.CancelAppointmentRequestJSON(ctx, stranger, id, []byte(`{"reason":"r"}`), connect.WriteOptions{IdempotencyKey: "k"})
	wantError(t, "cancel JSON", err, connect.CodeNotFound, notFound)
	_, err = f.svc.TransitionAppointmentRequest(ctx, stranger.TenantID, id, connect.AppointmentActionAccept, "")
	wantError(t, "transition", err, connect.CodeNotFound, notFound)
	page, err := f.svc.ListAppointmentRequests(ctx, stranger.TenantID, "", "", 10)
	if err != nil || len(page.Requests) != 0 {
		t.Errorf("the other tenant lists %d requests, %v", len(page.Requests), err)
	}
	// An unknown id of one's own tenant answers exactly the same.
	_, err = f.svc.GetAppointmentRequest(ctx, client, "apr_unknown")
	wantError(t, "unknown id", err, connect.CodeNotFound, `appointment request "apr_unknown" not found`)
	if st := f.status(id); st.Status != connect.AppointmentValidated || len(st.History) != 2 {
		t.Errorf("the other tenant changed the request: %s", historyString(st.History))
	}
}

func TestListByStatusPages(t *testing.T) {
	f := mustOpen(t)
	var validated []string
	for i := range 7 {
		if i%3 == 1 {
			f.submit(needsReview())
			continue
		}
		validated = append(validated, f.submit(validRequest()).ID)
	}
	if _, err := f.svc.SubmitAppointmentRequest(t.Context(), stranger, validRequest(), connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	list := func(status connect.AppointmentStatus, after string, limit int) connect.AppointmentRequestPage {
		t.Helper()
		page, err := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, status, after, limit)
		if err != nil {
			t.Fatalf("List(%s, %q, %d): %v", status, after, limit, err)
		}
		for _, r := range page.Requests {
			if status != "" && r.Status != status {
				t.Errorf("List(%s) returned %s in %s", status, r.ID, r.Status)
			}
		}
		return page
	}
	// Page through Validated two at a time.
	var got []string
	pages := 0
	for after := ""; ; pages++ {
		page := list(connect.AppointmentValidated, after, 2)
		for _, r := range page.Requests {
			got = append(got, r.ID)
		}
		if page.Next == "" {
			break
		}
		if page.Next != got[len(got)-1] {
			t.Fatalf("next cursor %q is not the last id of the page %q", page.Next, got[len(got)-1])
		}
		after = page.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(validated) || pages != 2 {
		t.Errorf("paged through %v in %d pages, want %v in 3 pages (2+2+1)", got, pages+1, validated)
	}
	if n := len(list(connect.AppointmentPendingReview, "", 0).Requests); n != 2 {
		t.Errorf("%d PendingReview requests listed, want 2", n)
	}
	if page := list("", "", 0); len(page.Requests) != 7 || page.Next != "" {
		t.Errorf("every status: %d requests, next %q; want 7 and no next page", len(page.Requests), page.Next)
	}
	// A status change moves the request from one list to the other.
	if _, err := f.svc.TransitionAppointmentRequest(t.Context(), client.TenantID, validated[1], connect.AppointmentActionAccept, ""); err != nil {
		t.Fatal(err)
	}
	if page := list(connect.AppointmentValidated, validated[0], 1); len(page.Requests) != 1 || page.Requests[0].ID != validated[2] {
		t.Errorf("after accepting %s, the Validated page after %s is %+v", validated[1], validated[0], page)
	}
	if page := list(connect.AppointmentAccepted, "", 10); len(page.Requests) != 1 || page.Requests[0].ID != validated[1] {
		t.Errorf("Accepted lists %d requests", len(page.Requests))
	}
	if page := list(connect.AppointmentCompleted, "", 10); page.Requests == nil || len(page.Requests) != 0 {
		t.Errorf("an empty page must hold an empty list, not %#v", page.Requests)
	}
	_, err := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, "validated", "", 10)
	wantError(t, "unknown status", err, connect.CodeInvalidRequest,
		`unknown status "validated"; the statuses are Submitted, Validated, PendingReview, Accepted, Rejected, Scheduled, Assigned, InProgress, Completed, Cancelled, Failed`)
}

// TestIDsSortByCreation: ids made in one millisecond, or after the clock went
// back, still sort in creation order, so listings are in creation order.
func TestIDsSortByCreation(t *testing.T) {
	f := mustOpen(t)
	var ids []string
	for i := range 5 {
		if i == 3 {
			f.clock.Set(t0.Add(-time.Hour))
		}
		id := f.submit(validRequest()).ID
		if !idPattern.MatchString(id) {
			t.Errorf("id %q does not match %s", id, idPattern)
		}
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("ids not strictly increasing: %v", ids)
	}
	// The first 10 characters after the prefix are the creation millisecond.
	if got, want := ids[0][4:14], "01M7YHX300"; got != want {
		t.Errorf("time part of an id made at %s is %s, want %s", t0, got, want)
	}
}

func TestCustomerCheck(t *testing.T) {
	var calls int
	check := func(ctx context.Context, tx store.Tx, caller connect.Caller, req *connect.AppointmentRequest) ([]string, error) {
		calls++
		if req.Customer == nil {
			return nil, nil
		}
		if *req.Customer.ExternalID == "broken" {
			return nil, errors.New("customer records unavailable")
		}
		return []string{fmt.Sprintf("customer %q is not known", *req.Customer.ExternalID)}, nil
	}
	f := mustOpenWith(t, appointments.Config{CustomerCheck: check})
	mapper := client
	mapper.Scopes = append(slices.Clone(allScopes), connect.ScopeCustomersMap)
	submit := func(caller connect.Caller, req connect.NewAppointmentRequest) (connect.AppointmentRequest, error) {
		out, err := f.svc.SubmitAppointmentRequest(t.Context(), caller, req, connect.WriteOptions{})
		return out.Request, err
	}

	withCustomer := needsReview()
	withCustomer.Customer = &connect.InboundTargetCustomer{ExternalID: ptr("C-404")}
	got, err := submit(mapper, withCustomer)
	if err != nil {
		t.Fatal(err)
	}
	st := f.status(got.ID)
	if got.Status != connect.AppointmentPendingReview ||
		*st.History[1].Note != `needs review: location needs both latitude and longitude to plan a visit; customer "C-404" is not known` {
		t.Errorf("with customers.map: %s, history %s", got.Status, changesString(st.History))
	}
	// Without customers.map the customer is not looked at.
	calls = 0
	withCustomer.Location = validRequest().Location
	if got, err := submit(client, withCustomer); err != nil || got.Status != connect.AppointmentValidated || calls != 0 {
		t.Errorf("without customers.map: %s, %v, %d checks", got.Status, err, calls)
	}
	// A failing check fails the submit and stores nothing.
	withCustomer.Customer.ExternalID = ptr("broken")
	if _, err := submit(mapper, withCustomer); err == nil || connect.ErrorCodeOf(err) != connect.CodeInternalError {
		t.Errorf("failing check: %v, want an internal error", err)
	}
	if page, _ := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, "", "", 10); len(page.Requests) != 2 {
		t.Errorf("%d requests stored, want 2", len(page.Requests))
	}
}

// TestTypedAndJSONSubmitAgree: a Go caller and an HTTP body with the same
// content get the same record.
func TestTypedAndJSONSubmitAgree(t *testing.T) {
	f := mustOpen(t)
	req := validRequest()
	req.PreferredTimeWindows = []connect.AppointmentTimeWindow{{
		StartUtc: time.Date(2026, 11, 23, 9, 0, 0, 0, time.FixedZone("CET", 3600)),
		EndUtc:   time.Date(2026, 11, 23, 11, 0, 0, 0, time.FixedZone("CET", 3600)),
	}}
	req.Metadata = jsontext.Value(`{ "a" : 1 }`)
	typed := f.submit(req)
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.svc.SubmitAppointmentRequestJSON(t.Context(), client, body, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromJSON := out.Request
	fromJSON.ID = typed.ID
	if a, b := mustJSON(t, typed), mustJSON(t, fromJSON); a != b {
		t.Errorf("typed\n  %s\nJSON\n  %s", a, b)
	}
	if w := typed.PreferredTimeWindows[0]; w.StartUtc.Location() != time.UTC || !w.StartUtc.Equal(time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("window start %s, want 08:00 UTC", w.StartUtc)
	}
	if string(typed.Metadata) != `{"a":1}` || string(req.Metadata) != `{ "a" : 1 }` {
		t.Errorf("metadata stored as %s; the caller's value became %s", typed.Metadata, req.Metadata)
	}
}

// TestTypedRequestsJSONCannotHold: a Go caller's value that JSON cannot carry
// is a request error naming the field, not an internal fault, with and
// without an Idempotency-Key; nothing is written.
func TestTypedRequestsJSONCannotHold(t *testing.T) {
	bad, nan := "caf\xe9", math.NaN()
	tests := []struct {
		name string
		call func(f *fixture, opts connect.WriteOptions) error
		want string
	}{
		{"submit, invalid UTF-8", func(f *fixture, opts connect.WriteOptions) error {
			req := validRequest()
			req.Description = &bad
			_, err := f.svc.SubmitAppointmentRequest(t.Context(), client, req, opts)
			return err
		}, "description must be valid UTF-8"},
		{"submit, NaN latitude", func(f *fixture, opts connect.WriteOptions) error {
			req := validRequest()
			req.Location.Latitude = &nan
			_, err := f.svc.SubmitAppointmentRequest(t.Context(), client, req, opts)
			return err
		}, "location.latitude must be a finite number"},
		{"submit, metadata not JSON", func(f *fixture, opts connect.WriteOptions) error {
			req := validRequest()
			req.Metadata = jsontext.Value(`{"a":`)
			_, err := f.svc.SubmitAppointmentRequest(t.Context(), client, req, opts)
			return err
		}, "metadata is not valid JSON"},
		{"cancel, invalid UTF-8", func(f *fixture, opts connect.WriteOptions) error {
			_, err := f.svc.CancelAppointmentRequest(t.Context(), client, "apr_1", connect.CancelAppointmentRequest{Reason: bad}, opts)
			return err
		}, "reason must be valid UTF-8"},
	}
	for _, tc := range tests {
		for _, key := range []string{"", "key-1"} {
			t.Run(fmt.Sprintf("%s, key %q", tc.name, key), func(t *testing.T) {
				f := mustOpen(t)
				err := tc.call(f, connect.WriteOptions{IdempotencyKey: key})
				if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || connect.AsError(err).Message != tc.want {
					t.Fatalf("got %v, want InvalidRequest %q", err, tc.want)
				}
				page, err := f.svc.ListAppointmentRequests(t.Context(), client.TenantID, "", "", 0)
				if err != nil || len(page.Requests) != 0 {
					t.Errorf("stored %d requests, %v", len(page.Requests), err)
				}
			})
		}
	}
}
