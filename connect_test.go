package connect_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
)

func TestErrorsMatchByCode(t *testing.T) {
	err := errors.Wrap(connect.Errorf(connect.CodeNotFound, "import job %d not found", 7), "loading")
	if !errors.Is(err, connect.ErrNotFound) {
		t.Error("a wrapped NotFound does not match ErrNotFound")
	}
	if errors.Is(err, connect.ErrInvalidRequest) {
		t.Error("NotFound matches ErrInvalidRequest")
	}
	if got := connect.ErrorCodeOf(err); got != connect.CodeNotFound {
		t.Errorf("ErrorCodeOf = %s", got)
	}
	if got := connect.ErrorCodeOf(errors.New("disk full")); got != connect.CodeInternalError {
		t.Errorf("ErrorCodeOf(plain error) = %s, want InternalError", got)
	}
	if connect.ErrorCodeOf(nil) != "" || connect.AsError(nil) != nil {
		t.Error("nil error has a code")
	}
	scopeErr := connect.Caller{}.RequireScope(connect.ScopeImportJobsRead)
	if e := connect.AsError(scopeErr); e == nil || e.Code != connect.CodeInsufficientScope || e.RequiredScope != connect.ScopeImportJobsRead {
		t.Errorf("RequireScope = %v", scopeErr)
	}
}

func TestDate(t *testing.T) {
	var v struct {
		D  connect.Date  `json:"d"`
		DP *connect.Date `json:"dp"`
	}
	if err := json.Unmarshal([]byte(`{"d":"2026-11-21","dp":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.D != (connect.Date{Year: 2026, Month: time.November, Day: 21}) || v.DP != nil {
		t.Errorf("decoded %+v", v)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"d":"2026-11-21","dp":null}` {
		t.Errorf("encoded %s", out)
	}
	for _, bad := range []string{`"2026-11-31"`, `"21.11.2026"`, `"2026-11-21T00:00:00Z"`, `20261121`} {
		if err := json.Unmarshal([]byte(`{"d":`+bad+`}`), &v); err == nil {
			t.Errorf("%s decoded as a date", bad)
		}
	}
	if got := (connect.Date{Year: 2026, Month: 3, Day: 29}).In(time.UTC); !got.Equal(time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("In = %v", got)
	}
}

func TestParseScopes(t *testing.T) {
	got, err := connect.ParseScopes(" import_jobs.read, customers.map ")
	if err != nil || len(got) != 2 || got[0] != connect.ScopeImportJobsRead || got[1] != connect.ScopeCustomersMap {
		t.Errorf("ParseScopes = %v, %v", got, err)
	}
	for _, bad := range []string{"", " , ", "import_jobs.write", "IMPORT_JOBS.READ"} {
		if _, err := connect.ParseScopes(bad); connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
			t.Errorf("ParseScopes(%q) = %v, want InvalidRequest", bad, err)
		}
	}
}

func TestValidateNamesFieldPaths(t *testing.T) {
	minutes, lat := 481, 91.0
	email, start := "nope", time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	target := connect.InboundTarget{
		ExternalID: "x", Title: " ",
		Contact:  &connect.InboundTargetContact{Email: &email},
		Address:  &connect.InboundTargetAddress{Latitude: &lat},
		Planning: &connect.InboundTargetPlanning{EstimatedWorkMinutes: &minutes, TimeWindowStartUtc: &start, TimeWindowEndUtc: &start},
	}
	err := connect.Validate(&target)
	want := []string{
		"title is required and must not be blank",
		"contact.email must be a valid email address",
		"address.latitude must be between -90 and 90",
		"planning.estimatedWorkMinutes must be between 5 and 480",
		"planning.timeWindowEndUtc must be after planning.timeWindowStartUtc",
	}
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Fatalf("Validate = %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	if err := connect.Validate(&connect.InboundTarget{ExternalID: "x", Title: "y"}); err != nil {
		t.Errorf("a minimal target is invalid: %v", err)
	}
}

func TestJobQueryPage(t *testing.T) {
	p := func(i int) *int { return &i }
	tests := []struct {
		q                  connect.JobQuery
		wantSkip, wantTake int
	}{
		{connect.JobQuery{}, 0, 50},
		{connect.JobQuery{Skip: p(-1), Take: p(0)}, 0, 1},
		{connect.JobQuery{Skip: p(7), Take: p(200)}, 7, 200},
		{connect.JobQuery{Take: p(201)}, 0, 200},
		{connect.JobQuery{Take: p(-3)}, 0, 1},
	}
	for _, tc := range tests {
		if skip, take := tc.q.Page(); skip != tc.wantSkip || take != tc.wantTake {
			t.Errorf("Page() = %d, %d; want %d, %d", skip, take, tc.wantSkip, tc.wantTake)
		}
	}
}

func TestCountersAndStatus(t *testing.T) {
	items := []connect.InboundImportItemResult{
		{Status: connect.ItemImported}, {Status: connect.ItemUpdated, Warnings: []connect.InboundImportWarning{{Code: "X"}}},
		{Status: connect.ItemCancelled}, {Status: connect.ItemRejected, Warnings: []connect.InboundImportWarning{{Code: "Y"}}},
	}
	c := connect.CountItems(items)
	if c != (connect.ImportCounters{TotalItems: 4, CreatedItems: 1, UpdatedItems: 1, CancelledItems: 1, RejectedItems: 1, WarningItems: 2}) {
		t.Errorf("CountItems = %+v", c)
	}
	for _, tc := range []struct {
		rejected, total int
		want            connect.JobStatus
	}{{0, 3, connect.JobAccepted}, {1, 3, connect.JobPartiallyAccepted}, {3, 3, connect.JobRejected}} {
		if got := (connect.ImportCounters{TotalItems: tc.total, RejectedItems: tc.rejected}).Status(); got != tc.want {
			t.Errorf("%d of %d rejected: %s, want %s", tc.rejected, tc.total, got, tc.want)
		}
	}
}

func TestParseEventKinds(t *testing.T) {
	tests := []struct {
		list, want, wantErr string
	}{
		{"import_job.completed", "import_job.completed", ""},
		{" appointment_request.created , import_job.completed,appointment_request.created,", "appointment_request.created import_job.completed", ""},
		{"import_job.complete", "", `unknown event kind "import_job.complete"; the kinds are import_job.completed,route_suggestion.created,appointment_request.created,appointment_request.status_changed`},
		{" , ", "", "at least one event kind is required; the kinds are import_job.completed,route_suggestion.created,appointment_request.created,appointment_request.status_changed"},
	}
	for _, tc := range tests {
		kinds, err := connect.ParseEventKinds(tc.list)
		var got []string
		for _, k := range kinds {
			got = append(got, string(k))
		}
		gotErr := ""
		if err != nil {
			gotErr = connect.AsError(err).Message
		}
		if strings.Join(got, " ") != tc.want || gotErr != tc.wantErr {
			t.Errorf("ParseEventKinds(%q) = %v, %v; want %q, %q", tc.list, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestWebhookEnvelope pins the envelope's JSON: the Standard Webhooks names
// with the event id and the schema version, the timestamp in RFC 3339 and
// the data kept as given.
func TestWebhookEnvelope(t *testing.T) {
	at := time.Date(2026, 11, 21, 8, 30, 0, 123e6, time.UTC)
	data, err := json.Marshal(connect.AppointmentStatusChangedEvent{ID: "apr_1", From: connect.AppointmentSubmitted, To: connect.AppointmentValidated, At: at})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(connect.WebhookEvent{ID: "evt_1", Type: connect.EventAppointmentStatusChanged, Timestamp: at, SchemaVersion: connect.EventSchemaVersion, Data: data})
	want := `{"id":"evt_1","type":"appointment_request.status_changed","timestamp":"2026-11-21T08:30:00.123Z","schemaVersion":1,"data":{"id":"apr_1","from":"Submitted","to":"Validated","at":"2026-11-21T08:30:00.123Z","note":null}}`
	if err != nil || string(out) != want {
		t.Errorf("envelope = %s, %v\nwant %s", out, err, want)
	}
}

// TestEncodeRequest: a typed request whose values JSON cannot hold is an
// InvalidRequest naming the field.
func TestEncodeRequest(t *testing.T) {
	bad, nan, inf := "caf\xe9", math.NaN(), math.Inf(-1)
	tests := []struct {
		name    string
		request any
		want    string
	}{
		{"invalid UTF-8", connect.InboundTarget{ExternalID: "x", Title: bad}, "title must be valid UTF-8"},
		{"nested", connect.InboundTarget{ExternalID: "x", Title: "t", Customer: &connect.InboundTargetCustomer{Name: &bad}}, "customer.name must be valid UTF-8"},
		{"map value", connect.InboundTarget{ExternalID: "x", Title: "t", CustomFields: map[string]*string{"k": &bad}}, "customFields.k must be valid UTF-8"},
		{"map key", connect.InboundTarget{ExternalID: "x", Title: "t", CustomFields: map[string]*string{bad: nil}}, "customFields must be valid UTF-8"},
		{"in a batch", connect.InboundTargetBatch{Targets: []connect.InboundTarget{{}, {Title: bad}}}, "targets[1].title must be valid UTF-8"},
		{"NaN", connect.InboundTarget{ExternalID: "x", Title: "t", Address: &connect.InboundTargetAddress{Latitude: &nan}}, "address.latitude must be a finite number"},
		{"infinity", connect.InboundTarget{ExternalID: "x", Title: "t", BusinessValue: &connect.InboundTargetBusinessValue{ExpectedRevenue: &inf}}, "businessValue.expectedRevenue must be a finite number"},
		{"raw JSON", connect.NewAppointmentRequest{Metadata: jsontext.Value(`{"a":`)}, "metadata is not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := connect.EncodeRequest(tc.request)
			if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || connect.AsError(err).Message != tc.want {
				t.Errorf("got %v, want InvalidRequest %q", err, tc.want)
			}
		})
	}
	body, err := connect.EncodeRequest(connect.CancelAppointmentRequest{Reason: "a\x00b"})
	if err != nil || string(body) != `{"reason":"a\u0000b"}` {
		t.Errorf("NUL is JSON, refused where the JSON is read: %s, %v", body, err)
	}
}

// TestCut: a sent value in a message or a rejected item is cut to 200
// characters (not bytes) followed by "…", and made valid UTF-8.
func TestCut(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short", "WO-1", "WO-1"},
		{"exactly 200", strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{"201", strings.Repeat("a", 201), strings.Repeat("a", 200) + "…"},
		{"a megabyte", strings.Repeat("x", 1<<20), strings.Repeat("x", 200) + "…"},
		{"characters, not bytes", strings.Repeat("ä", 250), strings.Repeat("ä", 200) + "…"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	}
	for _, tc := range tests {
		if got := connect.Cut(tc.in); got != tc.want {
			t.Errorf("%s: Cut = %q (%d bytes), want %q", tc.name, got[:min(len(got), 40)], len(got), tc.want[:min(len(tc.want), 40)])
		}
	}
	if got := connect.Quote(strings.Repeat("\"", 300)); got != `"`+strings.Repeat(`\"`, 200)+`…"` {
		t.Errorf("Quote = %s", got)
	}
}
