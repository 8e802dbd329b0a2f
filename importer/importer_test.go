package importer_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// TestOperations covers every operation on a missing, an existing and a
// cancelled target (DECISIONS.md "Imports").
func TestOperations(t *testing.T) {
	tests := []struct {
		state      string // missing, existing, cancelled
		operation  string // "" means absent
		wantStatus connect.ItemStatus
		wantCode   connect.ErrorCode
		wantWarn   string
		wantStored store.TargetStatus // "" means no target stored
		wantTitle  string
	}{
		{"missing", "create", connect.ItemImported, "", "", store.TargetActive, "new"},
		{"missing", "update", connect.ItemRejected, connect.CodeTargetNotFound, "", "", ""},
		{"missing", "upsert", connect.ItemImported, "", "", store.TargetActive, "new"},
		{"missing", "", connect.ItemImported, "", "", store.TargetActive, "new"},
		{"missing", "cancel", connect.ItemRejected, connect.CodeTargetNotFound, "", "", ""},
		{"existing", "create", connect.ItemRejected, connect.CodeTargetAlreadyExists, "", store.TargetActive, "old"},
		{"existing", "update", connect.ItemUpdated, "", "", store.TargetActive, "new"},
		{"existing", "upsert", connect.ItemUpdated, "", "", store.TargetActive, "new"},
		{"existing", "", connect.ItemUpdated, "", "", store.TargetActive, "new"},
		{"existing", "cancel", connect.ItemCancelled, "", "", store.TargetCancelled, "old"},
		{"cancelled", "create", connect.ItemRejected, connect.CodeTargetAlreadyExists, "", store.TargetCancelled, "old"},
		{"cancelled", "update", connect.ItemRejected, connect.CodeTargetCancelled, "", store.TargetCancelled, "old"},
		{"cancelled", "upsert", connect.ItemUpdated, "", "", store.TargetActive, "new"},
		{"cancelled", "", connect.ItemUpdated, "", "", store.TargetActive, "new"},
		{"cancelled", "cancel", connect.ItemCancelled, "", "AlreadyCancelled", store.TargetCancelled, "old"},
	}
	for _, tc := range tests {
		t.Run(tc.state+"/"+tc.operation, func(t *testing.T) {
			e := newEnv(t)
			var existingID int64
			if tc.state != "missing" {
				existingID = *e.single(t, `{"externalId":"T1","title":"old","address":{"latitude":1,"longitude":2}}`).Result.Items[0].TargetID
			}
			if tc.state == "cancelled" {
				e.single(t, `{"externalId":"T1","title":"ignored","operation":"cancel"}`)
			}
			op := ""
			if tc.operation != "" {
				op = fmt.Sprintf(`,"operation":%q`, tc.operation)
			}
			out := e.single(t, `{"externalId":"T1","title":"new","address":{"latitude":1,"longitude":2}`+op+`}`)
			it := out.Result.Items[0]
			if it.Status != tc.wantStatus || errorCode(it) != tc.wantCode || warningCodes(it.Warnings) != tc.wantWarn {
				t.Fatalf("item = status %s, code %q, warnings %q; want %s, %q, %q (message %q)",
					it.Status, errorCode(it), warningCodes(it.Warnings), tc.wantStatus, tc.wantCode, tc.wantWarn, errorMessage(it))
			}
			if out.Created != (tc.wantStatus == connect.ItemImported) {
				t.Errorf("Created = %v for status %s", out.Created, it.Status)
			}
			if tc.wantStored == "" {
				if it.TargetID != nil {
					t.Errorf("targetId = %d, want null", *it.TargetID)
				}
				return
			}
			stored := e.target(t, "erp", "T1")
			if stored.Status != tc.wantStored || stored.Data.Title != tc.wantTitle {
				t.Errorf("stored target: status %s, title %q; want %s, %q", stored.Status, stored.Data.Title, tc.wantStored, tc.wantTitle)
			}
			if it.TargetID == nil || *it.TargetID != stored.ID || (existingID != 0 && stored.ID != existingID) {
				t.Errorf("targetId %v, stored id %d, existing id %d: the id must be kept", it.TargetID, stored.ID, existingID)
			}
		})
	}
}

// TestValidation covers the bounds and formats of DECISIONS.md "Imports": each
// bad value rejects the item with ValidationFailed and a message naming the
// field path; each good boundary value is accepted.
func TestValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name    string
		extra   string // members added to a valid target
		wantMsg string // "" means accepted
	}{
		{"minutes 4", `"planning":{"estimatedWorkMinutes":4}`, "planning.estimatedWorkMinutes must be between 5 and 480"},
		{"minutes 5", `"planning":{"estimatedWorkMinutes":5}`, ""},
		{"minutes 480", `"planning":{"estimatedWorkMinutes":480}`, ""},
		{"minutes 481", `"planning":{"estimatedWorkMinutes":481}`, "planning.estimatedWorkMinutes must be between 5 and 480"},
		{"default minutes 4", `"location":{"defaultEstimatedWorkMinutes":4}`, "location.defaultEstimatedWorkMinutes must be between 5 and 480"},
		{"default minutes 5", `"location":{"defaultEstimatedWorkMinutes":5}`, ""},
		{"default minutes 480", `"location":{"defaultEstimatedWorkMinutes":480}`, ""},
		{"default minutes 481", `"location":{"defaultEstimatedWorkMinutes":481}`, "location.defaultEstimatedWorkMinutes must be between 5 and 480"},
		{"minutes not an integer", `"planning":{"estimatedWorkMinutes":45.5}`, "planning.estimatedWorkMinutes must be an integer, not 45.5"},
		{"minutes a string", `"planning":{"estimatedWorkMinutes":"45"}`, "planning.estimatedWorkMinutes must be an integer, not a string"},
		{"customer email", `"customer":{"email":"not-an-email"}`, "customer.email must be a valid email address"},
		{"contact email", `"contact":{"email":"a@"}`, "contact.email must be a valid email address"},
		{"good email", `"contact":{"email":"anna@example.com"}`, ""},
		{"website without scheme", `"customer":{"website":"example.com"}`, "customer.website must be an absolute URI"},
		{"good website", `"customer":{"website":"https://example.com/x"}`, ""},
		{"route date", `"planning":{"routeDate":"2026-13-01"}`, "planning.routeDate must be a date such as 2026-11-21"},
		{"route date with time", `"planning":{"routeDate":"2026-11-21T08:00:00Z"}`, "planning.routeDate must be a date such as 2026-11-21"},
		{"due date-time", `"planning":{"dueAtUtc":"tomorrow"}`, "planning.dueAtUtc must be an RFC 3339 date-time"},
		{"window start not a date-time", `"planning":{"timeWindowStartUtc":"2026-11-21"}`, "planning.timeWindowStartUtc must be an RFC 3339 date-time"},
		{"latitude 91", `"address":{"latitude":91,"longitude":0}`, "address.latitude must be between -90 and 90"},
		{"latitude -90", `"address":{"latitude":-90,"longitude":0}`, ""},
		{"location longitude 181", `"location":{"latitude":0,"longitude":181}`, "location.longitude must be between -180 and 180"},
		{"window start equals end", `"planning":{"timeWindowStartUtc":"2026-11-21T10:00:00Z","timeWindowEndUtc":"2026-11-21T10:00:00Z"}`, "planning.timeWindowEndUtc must be after planning.timeWindowStartUtc"},
		{"window start after end", `"planning":{"timeWindowStartUtc":"2026-11-21T11:00:00Z","timeWindowEndUtc":"2026-11-21T10:00:00Z"}`, "planning.timeWindowEndUtc must be after planning.timeWindowStartUtc"},
		{"window with offsets", `"planning":{"timeWindowStartUtc":"2026-11-21T11:00:00+02:00","timeWindowEndUtc":"2026-11-21T10:00:00Z"}`, ""},
		{"close probability", `"businessValue":{"closeProbability":1.5}`, "businessValue.closeProbability must be between 0 and 1"},
		{"operation", `"operation":"delete"`, "operation must be one of: create, update, upsert, cancel"},
		{"description too long", `"description":"` + long(10001) + `"`, "description must be at most 10000 characters"},
		{"description at limit", `"description":"` + long(10000) + `"`, ""},
		{"other string too long", `"customer":{"name":"` + long(501) + `"}`, "customer.name must be at most 500 characters"},
		{"source system too long", `"sourceSystem":"` + long(201) + `"`, "sourceSystem must be at most 200 characters"},
		{"source system blank", `"sourceSystem":"  "`, "sourceSystem is required and must not be blank"},
		{"custom field key too long", `"customFields":{"` + long(101) + `":"v"}`, "a member name of customFields must be at most 100 characters"},
		{"custom field value too long", `"customFields":{"k":"` + long(2001) + `"}`, "customFields.k must be at most 2000 characters"},
		{"custom field odd key, value too long", `"customFields":{"a b":"` + long(2001) + `"}`, `customFields."a b" must be at most 2000 characters`},
		{"custom field digit key, value too long", `"customFields":{"7":"` + long(2001) + `"}`, "customFields[7] must be at most 2000 characters"},
		{"custom field blank key", `"customFields":{" ":"v"}`, "a member name of customFields must not be blank"},
		{"custom field null value", `"customFields":{"k":null}`, ""},
		{"custom field number value", `"customFields":{"k":5}`, "customFields.k must be a string, not a number"},
		{"custom field empty key", `"customFields":{"":"v"}`, "a member name of customFields must not be blank"},
		{"nested wrong type", `"planning":"soon"`, "planning must be an object, not a string"},
		{"duplicate member", `"title":"again"`, "title is given twice"},
		// DECISIONS.md "Bounded cost of every request": checked while reading.
		{"duplicate member in a nested object", `"planning":{"priority":"high","priority":"low"}`, "planning.priority is given twice"},
		{"escaped duplicate", `"\u0074itle":"again"`, "title is given twice"},
		{"invalid UTF-8", "\"note\":[\"\xff\"]", "note[0] must be valid UTF-8"},
		{"NUL character", `"description":"a\u0000b"`, `description must not contain the NUL character (\u0000)`},
		{"escaped backslash before u0000 is text", `"description":"a\\u0000b"`, ""},
		{"101 custom fields", `"customFields":{` + customFields(101) + `}`, "customFields must have at most 100 entries"},
		{"string longer than any field", `"description":"` + long(70000) + `"`, "description is longer than 65536 bytes, more than any field holds"},
		{"object of 1,001 members", `"x":{` + customFields(1001) + `}`, "x has more than 1000 members"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			it := e.single(t, `{"externalId":"V1","title":"Valid",`+tc.extra+`}`).Result.Items[0]
			if tc.wantMsg == "" {
				if it.Status != connect.ItemImported {
					t.Fatalf("status %s (%s), want Imported", it.Status, errorMessage(it))
				}
				return
			}
			if it.Status != connect.ItemRejected || errorCode(it) != connect.CodeValidationFailed || !strings.Contains(errorMessage(it), tc.wantMsg) {
				t.Fatalf("got %s %q %q; want Rejected ValidationFailed containing %q", it.Status, errorCode(it), errorMessage(it), tc.wantMsg)
			}
			if it.ExternalID != "V1" {
				t.Errorf("externalId %q, want V1 even for a rejected item", it.ExternalID)
			}
		})
	}
}

func TestRequiredFields(t *testing.T) {
	tests := []struct {
		body, wantMsg string
	}{
		{`{"title":"x"}`, "externalId is required and must not be blank"},
		{`{"externalId":"  ","title":"x"}`, "externalId is required and must not be blank"},
		{`{"externalId":"R1"}`, "title is required and must not be blank"},
		{`{"externalId":"R1","title":""}`, "title is required and must not be blank"},
		{`{"externalId":"` + strings.Repeat("e", 201) + `","title":"x"}`, "externalId must be at most 200 characters"},
		{`{"externalId":"R1","title":"` + strings.Repeat("t", 501) + `"}`, "title must be at most 500 characters"},
		{`{}`, "externalId is required and must not be blank; title is required and must not be blank"},
	}
	for _, tc := range tests {
		e := newEnv(t)
		it := e.single(t, tc.body).Result.Items[0]
		if it.Status != connect.ItemRejected || errorMessage(it) != tc.wantMsg {
			t.Errorf("%s: got %s %q, want Rejected %q", tc.body, it.Status, errorMessage(it), tc.wantMsg)
		}
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name, body, wantWarnings, wantMsgPart string
	}{
		{"unknown field", routable("W1", `"titel":"typo"`), "UnknownField", "titel is not a field"},
		{"unknown nested field", routable("W1", `"planning":{"priorty":"high"}`), "UnknownField", "planning.priorty is not a field"},
		{"field names are case-sensitive", routable("W1", `"Title":"other"`), "UnknownField", "Title is not a field"},
		{"free custom fields are not checked", routable("W1", `"customFields":{"anything":"goes"}`), "", ""},
		{"no coordinates", `{"externalId":"W1","title":"x","address":{"latitude":1}}`, "MissingCoordinates", "cannot be routed"},
		{"location coordinates count", `{"externalId":"W1","title":"x","location":{"latitude":1,"longitude":2}}`, "", ""},
		{"window on another day", routable("W1", `"planning":{"routeDate":"2026-11-23","timeWindowStartUtc":"2026-11-25T08:00:00Z","timeWindowEndUtc":"2026-11-25T10:00:00Z"}`), "TimeWindowOutsideRouteDate", "2026-11-23"},
		{"window on the day in some time zone", routable("W1", `"planning":{"routeDate":"2026-11-23","timeWindowStartUtc":"2026-11-22T22:00:00Z","timeWindowEndUtc":"2026-11-22T23:00:00Z"}`), "", ""},
		{"two warnings", `{"externalId":"W1","title":"x","colour":"red"}`, "UnknownField,MissingCoordinates", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.single(t, tc.body).Result
			it := r.Items[0]
			if it.Status != connect.ItemImported || warningCodes(it.Warnings) != tc.wantWarnings {
				t.Fatalf("got %s with warnings %q (%v), want Imported with %q", it.Status, warningCodes(it.Warnings), it.Warnings, tc.wantWarnings)
			}
			if tc.wantMsgPart != "" && !strings.Contains(it.Warnings[0].Message, tc.wantMsgPart) {
				t.Errorf("warning message %q does not contain %q", it.Warnings[0].Message, tc.wantMsgPart)
			}
			if wantCount := min(len(it.Warnings), 1); r.WarningItems != wantCount {
				t.Errorf("warningItems = %d, want %d", r.WarningItems, wantCount)
			}
		})
	}
}

// TestUnknownFieldOnRejectedItem: the request warning is kept on a rejected
// item and counted, since it is often the reason for the rejection.
func TestUnknownFieldOnRejectedItem(t *testing.T) {
	e := newEnv(t)
	r := e.single(t, `{"externalId":"W1","Title":"typo in the name"}`).Result
	it := r.Items[0]
	if it.Status != connect.ItemRejected || warningCodes(it.Warnings) != "UnknownField" || r.WarningItems != 1 || r.RejectedItems != 1 {
		t.Errorf("got %+v", r)
	}
	if r.Status != connect.JobRejected {
		t.Errorf("job status %s, want Rejected", r.Status)
	}
}

// TestBatchWithOneMalformedTarget: a wrong JSON type inside one target of three
// rejects only that one.
func TestBatchWithOneMalformedTarget(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, `{"targets":[`+routable("B1", "")+`,
		{"externalId":"B2","title":"x","planning":{"estimatedWorkMinutes":"forty"}},
		`+routable("B3", "")+`]}`)
	checkCounters(t, r)
	if r.CreatedItems != 2 || r.RejectedItems != 1 || r.Status != connect.JobPartiallyAccepted {
		t.Fatalf("result %+v, want 2 created, 1 rejected, PartiallyAccepted", r.ImportCounters)
	}
	bad := r.Items[1]
	if bad.ExternalID != "B2" || errorCode(bad) != connect.CodeValidationFailed || errorMessage(bad) != "planning.estimatedWorkMinutes must be an integer, not a string" {
		t.Errorf("rejected item %+v (message %q)", bad, errorMessage(bad))
	}
	for _, i := range []int{0, 2} {
		if r.Items[i].Status != connect.ItemImported {
			t.Errorf("item %d: %s", i, r.Items[i].Status)
		}
	}
}

// TestBatchOfBrokenTargets: targets that are not objects, duplicate names or
// bad UTF-8 reject only themselves.
func TestBatchOfBrokenTargets(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, "{\"targets\":[42, null, \"x\", {\"externalId\":\"D1\",\"title\":\"a\",\"title\":\"b\"}, {\"externalId\":\"U1\",\"title\":\"\xff\"}, "+routable("OK", "")+"]}")
	checkCounters(t, r)
	if r.RejectedItems != 5 || r.CreatedItems != 1 {
		t.Fatalf("counters %+v, want 5 rejected and 1 created", r.ImportCounters)
	}
	for i, wantID := range []string{"", "", "", "D1", "U1"} {
		it := r.Items[i]
		if it.ExternalID != wantID || errorCode(it) != connect.CodeValidationFailed || errorMessage(it) == "" {
			t.Errorf("item %d = %+v (%q)", i, it, errorMessage(it))
		}
	}
}

func TestCountersAddUp(t *testing.T) {
	e := newEnv(t)
	e.single(t, routable("existing", ""))
	r := e.batch(t, `{"targets":[
		`+routable("new", "")+`,
		`+routable("existing", "")+`,
		{"externalId":"existing","title":"x","operation":"cancel"},
		{"externalId":"existing","title":"x","operation":"cancel"},
		{"externalId":"missing","title":"x","operation":"update"},
		{"externalId":"nocoords","title":"x"},
		{"externalId":"bad","title":"x","planning":{"estimatedWorkMinutes":1},"unknownThing":1}
	]}`)
	checkCounters(t, r)
	want := connect.ImportCounters{TotalItems: 7, CreatedItems: 2, UpdatedItems: 1, CancelledItems: 2, RejectedItems: 2, WarningItems: 3}
	if r.ImportCounters != want {
		t.Errorf("counters %+v, want %+v", r.ImportCounters, want)
	}
	job, err := e.svc.GetJob(bg, caller, r.ImportJobID)
	if err != nil || job.ImportCounters != want || len(job.Items) != 7 || job.Status != connect.JobPartiallyAccepted {
		t.Errorf("stored job %+v, %v", job.ImportJobSummary, err)
	}
}

// TestInOrderProcessing: a later item sees what earlier ones did.
func TestInOrderProcessing(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, `{"targets":[
		{"externalId":"X","title":"one","operation":"create","location":{"latitude":1,"longitude":1}},
		{"externalId":"X","title":"two","operation":"cancel"},
		{"externalId":"X","title":"three","operation":"update"},
		{"externalId":"X","title":"four","location":{"latitude":1,"longitude":1}}
	]}`)
	got := []connect.ItemStatus{}
	for _, it := range r.Items {
		got = append(got, it.Status)
	}
	if fmt.Sprint(got) != "[Imported Cancelled Rejected Updated]" {
		t.Errorf("statuses %v", got)
	}
	if code := errorCode(r.Items[2]); code != connect.CodeTargetCancelled {
		t.Errorf("update of the cancelled target: %s", code)
	}
	if stored := e.target(t, "erp", "X"); stored.Status != store.TargetActive || stored.Data.Title != "four" {
		t.Errorf("stored %+v", stored)
	}
}

// TestCancelAppliesOnlyTheStatus: the other fields of a cancel are ignored.
func TestCancelAppliesOnlyTheStatus(t *testing.T) {
	e := newEnv(t)
	e.single(t, routable("C1", ""))
	e.single(t, `{"externalId":"C1","title":"changed by cancel","operation":"cancel"}`)
	if stored := e.target(t, "erp", "C1"); stored.Data.Title != "Service C1" || stored.Status != store.TargetCancelled {
		t.Errorf("stored %+v", stored)
	}
}

// TestUpdateReplacesTheWholeRecord: an absent field becomes empty.
func TestUpdateReplacesTheWholeRecord(t *testing.T) {
	e := newEnv(t)
	e.single(t, routable("U1", `"description":"first","planning":{"priority":"high"}`))
	e.single(t, routable("U1", ""))
	stored := e.target(t, "erp", "U1")
	if stored.Data.Description != nil || stored.Data.Planning != nil {
		t.Errorf("fields absent from the update were kept: %+v", stored.Data)
	}
}

func TestCustomerNumberNeverStoredOnTheTarget(t *testing.T) {
	e := newEnv(t)
	r := e.single(t, routable("N1", `"customer":{"externalId":"C-9","customerNumber":"K-10042","name":"Müller GmbH"}`)).Result
	if r.Items[0].Status != connect.ItemImported {
		t.Fatalf("item %+v", r.Items[0])
	}
	stored := e.target(t, "erp", "N1")
	if stored.Data.Customer == nil || stored.Data.Customer.CustomerNumber != nil || *stored.Data.Customer.Name != "Müller GmbH" {
		t.Errorf("stored customer %+v", stored.Data.Customer)
	}
	// Nor in the stored job.
	job, _ := e.svc.GetJob(bg, caller, r.ImportJobID)
	if strings.Contains(fmt.Sprintf("%+v", job), "K-10042") {
		t.Error("the customer number is in the job")
	}
}

func TestSourceSystemResolution(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, `{"sourceSystem":"crm","targets":[
		`+routable("S1", `"sourceSystem":"shop"`)+`,
		`+routable("S2", "")+`]}`)
	if e.target(t, "shop", "S1").ID != *r.Items[0].TargetID || e.target(t, "crm", "S2").ID != *r.Items[1].TargetID {
		t.Error("targets not stored under their resolved source systems")
	}
	single := e.single(t, routable("S3", "")).Result
	if e.target(t, "erp", "S3").ID != *single.Items[0].TargetID {
		t.Error("a single target without source system is not stored under the client's")
	}
	// The same externalId in two source systems is two targets.
	again := e.single(t, routable("S1", `"sourceSystem":"crm"`)).Result
	if again.Items[0].Status != connect.ItemImported {
		t.Errorf("S1 of crm: %s, want a new target", again.Items[0].Status)
	}
	jobs, _ := e.svc.ListJobs(bg, caller, connect.JobQuery{})
	sources := []string{}
	for _, j := range jobs.Jobs {
		sources = append(sources, j.SourceSystem)
	}
	if fmt.Sprint(sources) != "[crm erp crm]" {
		t.Errorf("job source systems (newest first) %v, want [crm erp crm]", sources)
	}
}

func TestBatchOperationDefault(t *testing.T) {
	e := newEnv(t)
	e.batch(t, `{"targets":[`+routable("O1", "")+`,`+routable("O2", "")+`]}`)
	r := e.batch(t, `{"operation":"cancel","targets":[{"externalId":"O1","title":"x"},{"externalId":"O2","title":"x","operation":"update"}]}`)
	if r.Items[0].Status != connect.ItemCancelled || r.Items[1].Status != connect.ItemUpdated {
		t.Errorf("statuses %s %s: the batch operation is the default, the target's own wins", r.Items[0].Status, r.Items[1].Status)
	}
}

// customFields is n distinct members "k0":"v", "k1":"v", …
func customFields(n int) string {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(members, ",")
}

// unknownMembers is n distinct envelope members that are not in the schema.
func unknownMembers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `"u%d":0,`, i)
	}
	return b.String()
}

func TestBatchEnvelopeErrors(t *testing.T) {
	tests := []struct {
		name, body string
		wantCode   connect.ErrorCode
		wantMsg    string
	}{
		{"not JSON", `{"targets":[`, connect.CodeInvalidRequest, "not valid JSON"},
		{"not an object", `[{"externalId":"a","title":"b"}]`, connect.CodeInvalidRequest, "must be a JSON object"},
		{"targets missing", `{"sourceSystem":"x"}`, connect.CodeInvalidRequest, "targets is required"},
		{"targets null", `{"targets":null}`, connect.CodeInvalidRequest, "targets is required"},
		{"targets empty", `{"targets":[]}`, connect.CodeInvalidRequest, "at least one target"},
		{"targets not an array", `{"targets":{"externalId":"a"}}`, connect.CodeInvalidRequest, "targets must be an array"},
		{"unknown operation", `{"operation":"merge","targets":[{}]}`, connect.CodeInvalidRequest, "operation must be one of: create, update, upsert, cancel"},
		{"batchId wrong type", `{"batchId":7,"targets":[{}]}`, connect.CodeInvalidRequest, "batchId must be a string"},
		{"too many targets", `{"targets":[` + strings.Repeat(`{},`, 1000) + `{}]}`, connect.CodePayloadTooLarge, "targets must have at most 1000 entries"},
		// The 1,001st target stops reading: what follows is never looked at.
		{"too many targets, broken after", `{"targets":[` + strings.Repeat(`0,`, 1001) + `!!!`, connect.CodePayloadTooLarge, "targets must have at most 1000 entries"},
		// DECISIONS.md "Bounded cost of every request": the envelope is strict.
		{"operation twice", `{"operation":"create","operation":"cancel","targets":[{}]}`, connect.CodeInvalidRequest, "operation is given twice"},
		{"targets twice", `{"targets":[{}],"targets":[{}]}`, connect.CodeInvalidRequest, "targets is given twice"},
		{"unknown member twice", `{"x":1,"x":2,"targets":[{}]}`, connect.CodeInvalidRequest, "x is given twice"},
		{"invalid UTF-8 in sourceSystem", "{\"sourceSystem\":\"erp\xff\",\"targets\":[{}]}", connect.CodeInvalidRequest, "sourceSystem must be valid UTF-8"},
		{"NUL in sourceSystem", `{"sourceSystem":"erp\u0000","targets":[{}]}`, connect.CodeInvalidRequest, `sourceSystem must not contain the NUL character (\u0000)`},
		{"invalid UTF-8 in batchId", "{\"batchId\":\"\xc3\",\"targets\":[{}]}", connect.CodeInvalidRequest, "batchId must be valid UTF-8"},
		{"invalid UTF-8 in an unknown member", "{\"note\":[\"\xff\"],\"targets\":[{}]}", connect.CodeInvalidRequest, "note[0] must be valid UTF-8"},
		{"invalid UTF-8 in a member name", "{\"\xff\":1,\"targets\":[{}]}", connect.CodeInvalidRequest, "a member name of the batch is not valid UTF-8"},
		{"duplicate names inside an unknown member", `{"note":{"a":1,"a":2},"targets":[{}]}`, connect.CodeInvalidRequest, "note.a is given twice"},
		{"too many unknown members", `{` + unknownMembers(1001) + `"targets":[{}]}`, connect.CodeInvalidRequest, "the batch has more than 1000 members"},
		{"a long duplicate name is cut", `{"` + strings.Repeat("n", 300) + `":1,"` + strings.Repeat("n", 300) + `":1,"targets":[{}]}`, connect.CodeInvalidRequest, strings.Repeat("n", 200) + "… is given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.svc.ImportBatchJSON(bg, caller, []byte(tc.body), connect.WriteOptions{})
			if connect.ErrorCodeOf(err) != tc.wantCode || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("got %v, want %s containing %q", err, tc.wantCode, tc.wantMsg)
			}
			if n := e.jobCount(t); n != 0 {
				t.Errorf("%d jobs recorded for a refused request", n)
			}
		})
	}
}

// TestBatchEnvelopeFieldsConcernEveryItem: an unknown envelope member (a typo
// such as "operaton") is warned about on every item, and an envelope field
// beyond its bounds rejects every item; neither fails the request.
func TestBatchEnvelopeFieldsConcernEveryItem(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, `{"operaton":"cancel","targets":[`+routable("E1", "")+`,`+routable("E2", `"colour":"red"`)+`]}`)
	if r.CreatedItems != 2 || warningCodes(r.Items[0].Warnings) != "UnknownField" || warningCodes(r.Items[1].Warnings) != "UnknownField,UnknownField" ||
		r.Items[0].Warnings[0].Message != "operaton is not a field of InboundTargetBatch and was ignored (field names are case-sensitive)" || r.WarningItems != 2 {
		t.Errorf("unknown envelope member: %+v", r)
	}
	long := strings.Repeat("s", 201)
	r = e.batch(t, `{"sourceSystem":"`+long+`","targets":[`+routable("E3", "")+`,{"externalId":"E4"}]}`)
	checkCounters(t, r)
	want := "the batch's sourceSystem must be at most 200 characters"
	if r.Status != connect.JobRejected || errorMessage(r.Items[0]) != want || errorMessage(r.Items[1]) != want {
		t.Errorf("long batch source system: %s, %q, %q", r.Status, errorMessage(r.Items[0]), errorMessage(r.Items[1]))
	}
}

func TestBatchLimitIsConfigurable(t *testing.T) {
	e := newEnvWith(t, importerConfig(2))
	_, err := e.svc.ImportBatchJSON(bg, caller, []byte(`{"targets":[{},{},{}]}`), connect.WriteOptions{})
	if connect.ErrorCodeOf(err) != connect.CodePayloadTooLarge {
		t.Errorf("got %v, want PayloadTooLarge", err)
	}
}

func TestSingleBodyErrors(t *testing.T) {
	for _, body := range []string{``, `nope`, `[]`, `"text"`, `{"externalId":"x"`} {
		e := newEnv(t)
		_, err := e.svc.ImportTargetJSON(bg, caller, []byte(body), connect.WriteOptions{})
		if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
			t.Errorf("body %q: got %v, want InvalidRequest", body, err)
		}
	}
}

// TestSingleRejectedItemIsRecorded: a rejected single import answers normally
// (HTTP 200) and is recorded as a job.
func TestSingleRejectedItemIsRecorded(t *testing.T) {
	e := newEnv(t)
	out := e.single(t, `{"externalId":"R1"}`)
	if out.Created || out.Result.Status != connect.JobRejected || out.Result.ImportJobID == 0 {
		t.Errorf("outcome %+v", out)
	}
	if n := e.jobCount(t); n != 1 {
		t.Errorf("%d jobs, want 1", n)
	}
}

// TestCreatedIsForSingleImports: ImportOutcome.Created says a single import
// created its target (HTTP 201); a batch is never "created", even of one
// target that is new.
func TestCreatedIsForSingleImports(t *testing.T) {
	e := newEnv(t)
	out, err := e.svc.ImportBatchJSON(bg, caller, []byte(`{"targets":[{"externalId":"B1","title":"new"}]}`), connect.WriteOptions{})
	if err != nil || out.Created || out.Result.CreatedItems != 1 {
		t.Errorf("batch of one new target: created %v, %+v, %v", out.Created, out.Result.ImportCounters, err)
	}
	if out := e.single(t, `{"externalId":"S1","title":"new"}`); !out.Created {
		t.Errorf("single import of a new target: created %v", out.Created)
	}
}

// TestTypedAndJSONAgree: Go values and JSON share one validation and one set of
// semantics.
func TestTypedAndJSONAgree(t *testing.T) {
	minutes, lat, lon := 481, 52.5, 13.4
	typed := connect.InboundTarget{
		ExternalID: "TY1", Title: "typed",
		Address:  &connect.InboundTargetAddress{Latitude: &lat, Longitude: &lon},
		Planning: &connect.InboundTargetPlanning{EstimatedWorkMinutes: &minutes},
	}
	e := newEnv(t)
	fromGo, err := e.svc.ImportTarget(bg, caller, typed, connect.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromJSON := e.single(t, `{"externalId":"TY1","title":"typed","address":{"latitude":52.5,"longitude":13.4},"planning":{"estimatedWorkMinutes":481}}`)
	a, b := fromGo.Result.Items[0], fromJSON.Result.Items[0]
	if a.Status != b.Status || errorMessage(a) != errorMessage(b) || errorMessage(a) != "planning.estimatedWorkMinutes must be between 5 and 480" {
		t.Errorf("typed %s %q, JSON %s %q", a.Status, errorMessage(a), b.Status, errorMessage(b))
	}
	batch, err := e.svc.ImportBatch(bg, caller, connect.InboundTargetBatch{Operation: "bogus", Targets: []connect.InboundTarget{typed}}, connect.WriteOptions{})
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Errorf("typed batch with a bad operation: %+v, %v", batch, err)
	}
	typed.Planning = nil
	ok, err := e.svc.ImportBatch(bg, caller, connect.InboundTargetBatch{Targets: []connect.InboundTarget{typed}}, connect.WriteOptions{})
	if err != nil || ok.Result.CreatedItems != 1 {
		t.Errorf("typed batch: %+v, %v", ok.Result.ImportCounters, err)
	}
}

func TestTimesAreStoredInUTC(t *testing.T) {
	e := newEnv(t)
	e.single(t, routable("Z1", `"planning":{"dueAtUtc":"2026-11-21T18:00:00+02:00"}`))
	due := e.target(t, "erp", "Z1").Data.Planning.DueAtUtc
	if due.Location().String() != "UTC" || due.Hour() != 16 {
		t.Errorf("stored due time %v, want 16:00 UTC", due)
	}
}

func TestScopes(t *testing.T) {
	e := newEnv(t)
	none := connect.Caller{TenantID: "acme", ClientID: "c", SourceSystem: "erp", Scopes: []connect.Scope{connect.ScopeHealthRead}}
	calls := []struct {
		scope connect.Scope
		call  func() error
	}{
		{connect.ScopeTargetsWrite, func() error {
			_, err := e.svc.ImportTargetJSON(bg, none, []byte(`{}`), connect.WriteOptions{})
			return err
		}},
		{connect.ScopeTargetsWrite, func() error {
			_, err := e.svc.ImportTarget(bg, none, connect.InboundTarget{}, connect.WriteOptions{})
			return err
		}},
		{connect.ScopeTargetsBatchWrite, func() error {
			_, err := e.svc.ImportBatchJSON(bg, none, []byte(`{}`), connect.WriteOptions{})
			return err
		}},
		{connect.ScopeTargetsBatchWrite, func() error {
			_, err := e.svc.ImportBatch(bg, none, connect.InboundTargetBatch{}, connect.WriteOptions{})
			return err
		}},
		{connect.ScopeImportJobsRead, func() error { _, err := e.svc.ListJobs(bg, none, connect.JobQuery{}); return err }},
		{connect.ScopeImportJobsRead, func() error { _, err := e.svc.GetJob(bg, none, 1); return err }},
	}
	for i, c := range calls {
		err := c.call()
		cerr := connect.AsError(err)
		if cerr == nil || cerr.Code != connect.CodeInsufficientScope || cerr.RequiredScope != c.scope {
			t.Errorf("call %d: got %v, want InsufficientScope naming %s", i, err, c.scope)
		}
	}
}

// TestTypedRequestsJSONCannotHold: a Go caller can put values into a typed
// request that JSON cannot carry. The request is refused as invalid, naming
// the field, with and without an Idempotency-Key, and nothing is imported.
func TestTypedRequestsJSONCannotHold(t *testing.T) {
	bad, nan := "caf\xe9", math.NaN()
	tests := []struct {
		name string
		call func(e *env, opts connect.WriteOptions) (connect.ImportOutcome, error)
		want string
	}{
		{"single, invalid UTF-8", func(e *env, opts connect.WriteOptions) (connect.ImportOutcome, error) {
			return e.svc.ImportTarget(bg, caller, connect.InboundTarget{ExternalID: "T1", Title: bad}, opts)
		}, "title must be valid UTF-8"},
		{"single, NaN latitude", func(e *env, opts connect.WriteOptions) (connect.ImportOutcome, error) {
			return e.svc.ImportTarget(bg, caller, connect.InboundTarget{ExternalID: "T1", Title: "t", Address: &connect.InboundTargetAddress{Latitude: &nan}}, opts)
		}, "address.latitude must be a finite number"},
		{"batch, invalid UTF-8", func(e *env, opts connect.WriteOptions) (connect.ImportOutcome, error) {
			return e.svc.ImportBatch(bg, caller, connect.InboundTargetBatch{Targets: []connect.InboundTarget{
				{ExternalID: "GOOD", Title: "fine"}, {ExternalID: "BAD", Title: "fine", CustomFields: map[string]*string{"k": &bad}},
			}}, opts)
		}, "targets[1].customFields.k must be valid UTF-8"},
		{"batch, NaN latitude", func(e *env, opts connect.WriteOptions) (connect.ImportOutcome, error) {
			return e.svc.ImportBatch(bg, caller, connect.InboundTargetBatch{Targets: []connect.InboundTarget{
				{ExternalID: "BAD", Title: "fine", Location: &connect.InboundTargetLocation{Latitude: &nan}},
			}}, opts)
		}, "targets[0].location.latitude must be a finite number"},
	}
	for _, tc := range tests {
		for _, key := range []string{"", "key-1"} {
			t.Run(fmt.Sprintf("%s, key %q", tc.name, key), func(t *testing.T) {
				e := newEnv(t)
				out, err := tc.call(e, connect.WriteOptions{IdempotencyKey: key})
				if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || connect.AsError(err).Message != tc.want {
					t.Fatalf("got %+v, %v; want InvalidRequest %q", out, err, tc.want)
				}
				if n := e.jobCount(t); n != 0 {
					t.Errorf("%d jobs were recorded", n)
				}
			})
		}
	}
}
