package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// testDeleteOldJobs: jobs created before the cutoff are deleted oldest first,
// at most limit at a time, from every tenant; they leave every list and total
// and answer NotFound, while their targets and the route suggestions made
// from them stay.
func testDeleteOldJobs(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	specs := []struct {
		tenant, source string
		status         connect.JobStatus
	}{
		{"t1", "erp", connect.JobAccepted},          // t0
		{"t2", "erp", connect.JobAccepted},          // t0+1h
		{"t1", "crm", connect.JobRejected},          // t0+2h
		{"t1", "erp", connect.JobAccepted},          // t0+3h
		{"t1", "erp", connect.JobPartiallyAccepted}, // t0+4h
	}
	ids := make([]int64, len(specs))
	target := newTarget("t1", "erp", "kept")
	suggestion := &store.RouteSuggestion{TenantID: "t1"}
	update(t, s, func(tx store.Tx) error {
		for i, sp := range specs {
			j := newJob(sp.tenant, sp.source, sp.status, 2)
			j.CreatedAtUtc = t0.Add(time.Duration(i) * time.Hour)
			if err := tx.CreateJob(j); err != nil {
				return err
			}
			ids[i] = j.ID
		}
		suggestion.ImportJobID, suggestion.RouteDate = ids[0], connect.Date{Year: 2026, Month: 11, Day: 21}
		if err := tx.CreateRouteSuggestion(suggestion); err != nil {
			return err
		}
		return tx.CreateTarget(target)
	})
	steps := []struct {
		cutoff      time.Time
		limit       int
		wantDeleted int
		wantT1      []int64 // t1's jobs listed afterwards, newest first
	}{
		{t0, 10, 0, []int64{ids[4], ids[3], ids[2], ids[0]}},           // created at the cutoff: kept
		{t0.Add(3 * time.Hour), 2, 2, []int64{ids[4], ids[3], ids[2]}}, // the oldest two, of both tenants
		{t0.Add(3 * time.Hour), 10, 1, []int64{ids[4], ids[3]}},        // the rest before the cutoff
		{t0.Add(3 * time.Hour), 10, 0, []int64{ids[4], ids[3]}},        // nothing left to delete
		{t0.Add(24 * time.Hour), 0, 0, []int64{ids[4], ids[3]}},        // limit 0 deletes nothing
		{t0.Add(24 * time.Hour), 10, 2, []int64{}},                     // everything
	}
	for _, st := range steps {
		var deleted int
		update(t, s, func(tx store.Tx) (err error) {
			deleted, err = tx.DeleteJobsCreatedBefore(st.cutoff, st.limit)
			return err
		})
		if deleted != st.wantDeleted {
			t.Errorf("DeleteJobsCreatedBefore(t0+%v, %d) = %d, want %d", st.cutoff.Sub(t0), st.limit, deleted, st.wantDeleted)
		}
		view(t, s, func(tx store.Tx) error {
			list, total, err := tx.Jobs("t1", store.JobFilter{}, 0, 10)
			got := []int64{}
			for _, j := range list {
				got = append(got, j.ID)
			}
			if err != nil || total != len(st.wantT1) || !slices.Equal(got, st.wantT1) {
				t.Errorf("after deleting before t0+%v: t1 lists %v of %d (%v), want %v", st.cutoff.Sub(t0), got, total, err, st.wantT1)
			}
			return nil
		})
	}
	view(t, s, func(tx store.Tx) error {
		_, err := tx.Job("t1", ids[0])
		wantNotFound(t, "a deleted job", err)
		for _, f := range []store.JobFilter{{Status: "Accepted"}, {SourceSystem: "erp"}, {Status: "Rejected", SourceSystem: "crm"}} {
			if list, total, err := tx.Jobs("t1", f, 0, 10); err != nil || total != 0 || len(list) != 0 {
				t.Errorf("filter %+v after every job was deleted: %d jobs of %d, %v", f, len(list), total, err)
			}
		}
		if got, err := tx.RouteSuggestion("t1", suggestion.ID); err != nil || got.ImportJobID != ids[0] {
			t.Errorf("route suggestion of a deleted job = %+v, %v", got, err)
		}
		if got, err := tx.TargetByExternalID("t1", "erp", "kept"); err != nil || got.ID != target.ID {
			t.Errorf("target after its job was deleted = %+v, %v", got, err)
		}
		return nil
	})
	// A job created after the deletions is counted from zero again.
	update(t, s, func(tx store.Tx) error { return tx.CreateJob(newJob("t1", "erp", connect.JobAccepted, 1)) })
	view(t, s, func(tx store.Tx) error {
		if _, total, err := tx.Jobs("t1", store.JobFilter{Status: "accepted", SourceSystem: "ERP"}, 0, 10); err != nil || total != 1 {
			t.Errorf("total of a new job after the deletions = %d, %v; want 1", total, err)
		}
		return nil
	})
}
