package importer_test

import (
	"fmt"
	"testing"

	"github.com/integration-connect/connect"
)

func ptr(i int) *int { return &i }

func TestListJobs(t *testing.T) {
	e := newEnv(t)
	e.batch(t, `{"sourceSystem":"ERP","targets":[`+routable("A", "")+`]}`)    // 1 Accepted ERP
	e.batch(t, `{"sourceSystem":"crm","targets":[{"externalId":"B"}]}`)       // 2 Rejected crm
	e.batch(t, `{"sourceSystem":"erp","targets":[`+routable("C", "")+`,{}]}`) // 3 PartiallyAccepted erp
	e.batch(t, `{"sourceSystem":"erp","targets":[`+routable("D", "")+`]}`)    // 4 Accepted erp
	other := caller
	other.TenantID = "globex"
	if _, err := e.svc.ImportTargetJSON(bg, other, []byte(routable("A", "")), connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name               string
		q                  connect.JobQuery
		wantSkip, wantTake int
		wantTotal          int
		wantIDs            string
	}{
		{"defaults, newest first", connect.JobQuery{}, 0, 50, 4, "[4 3 2 1]"},
		{"status filter any case", connect.JobQuery{Status: "accepted"}, 0, 50, 2, "[4 1]"},
		{"source filter any case", connect.JobQuery{SourceSystem: "Erp"}, 0, 50, 3, "[4 3 1]"},
		{"both filters", connect.JobQuery{Status: "PARTIALLYACCEPTED", SourceSystem: "erp"}, 0, 50, 1, "[3]"},
		{"unknown status matches nothing", connect.JobQuery{Status: "Done"}, 0, 50, 0, "[]"},
		{"page", connect.JobQuery{Skip: ptr(1), Take: ptr(2)}, 1, 2, 4, "[3 2]"},
		{"take 0 becomes 1", connect.JobQuery{Take: ptr(0)}, 0, 1, 4, "[4]"},
		{"take 201 becomes 200", connect.JobQuery{Take: ptr(201)}, 0, 200, 4, "[4 3 2 1]"},
		{"negative skip becomes 0", connect.JobQuery{Skip: ptr(-5), Take: ptr(1)}, 0, 1, 4, "[4]"},
		{"skip past the end", connect.JobQuery{Skip: ptr(10)}, 10, 50, 4, "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list, err := e.svc.ListJobs(bg, caller, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			ids := []int64{}
			for _, j := range list.Jobs {
				ids = append(ids, j.ID)
			}
			if list.Skip != tc.wantSkip || list.Take != tc.wantTake || list.Total != tc.wantTotal || fmt.Sprint(ids) != tc.wantIDs {
				t.Errorf("got skip %d take %d total %d ids %v; want %d %d %d %s", list.Skip, list.Take, list.Total, ids, tc.wantSkip, tc.wantTake, tc.wantTotal, tc.wantIDs)
			}
		})
	}
}

func TestGetJob(t *testing.T) {
	e := newEnv(t)
	r := e.batch(t, `{"batchId":"b-1","targets":[`+routable("A", "")+`,{"externalId":"B"}]}`)
	job, err := e.svc.GetJob(bg, caller, r.ImportJobID)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != r.ImportJobID || *job.BatchID != "b-1" || job.SourceSystem != "erp" || len(job.Items) != 2 ||
		job.Items[1].ExternalID != "B" || job.ProcessedAtUtc == nil || !job.CreatedAtUtc.Equal(clock) {
		t.Errorf("job %+v", job)
	}
	other := caller
	other.TenantID = "globex"
	for _, c := range []struct {
		who connect.Caller
		id  int64
	}{{other, r.ImportJobID}, {caller, r.ImportJobID + 1}, {caller, -1}} {
		_, err := e.svc.GetJob(bg, c.who, c.id)
		if connect.ErrorCodeOf(err) != connect.CodeNotFound {
			t.Errorf("GetJob(%s, %d) = %v, want NotFound", c.who.TenantID, c.id, err)
		}
	}
	if list, _ := e.svc.ListJobs(bg, other, connect.JobQuery{}); list.Total != 0 || len(list.Jobs) != 0 {
		t.Errorf("another tenant lists %d jobs", list.Total)
	}
}
