package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer"
)

// TestDeletedJobAnswers404: once the retention deleted a job, it answers 404
// and leaves the list, a route suggestion made from it is still readable
// with its map, and its targets stay (a new import of them updates them).
func TestDeletedJobAnswers404(t *testing.T) {
	s := newServer(t)
	key := s.key("acme", "planner", connect.ScopeRouteSuggestionsCreate, connect.ScopeImportJobsRead, connect.ScopeTargetsBatchWrite)
	jobID := seedJob(t, s)
	created := s.do(request{method: "POST", path: fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID), body: `{"routeDate":"2026-11-23"}`, key: key})
	var suggestion connect.CreateRouteSuggestionResponse
	created.json(t, &suggestion)
	if created.status != 200 {
		t.Fatalf("route suggestion: %d %s", created.status, created.body)
	}

	r, err := importer.NewRetention(importer.RetentionConfig{Store: s.store, Now: func() time.Time { return time.Now().Add(91 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.DeleteExpired(t.Context()); err != nil || n != 1 {
		t.Fatalf("DeleteExpired = %d, %v; want the one job", n, err)
	}

	if job := s.do(request{method: "GET", path: fmt.Sprintf("%s/import-jobs/%d", base, jobID), key: key}); job.status != 404 || job.apiError(t).Code != connect.CodeNotFound {
		t.Errorf("deleted job: %d %s", job.status, job.body)
	}
	var list connect.ImportJobList
	listed := s.do(request{method: "GET", path: base + "/import-jobs", key: key})
	listed.json(t, &list)
	if listed.status != 200 || list.Total != 0 || len(list.Jobs) != 0 {
		t.Errorf("job list after the deletion: %d %s", listed.status, listed.body)
	}
	self := fmt.Sprintf("%s/route-suggestions/%d", base, suggestion.RouteSuggestionID)
	for _, path := range []string{self, self + "/map.svg"} {
		if got := s.do(request{method: "GET", path: path, key: key}); got.status != 200 {
			t.Errorf("GET %s of a deleted job: %d %s", path, got.status, got.body)
		}
	}
	again := s.do(request{method: "POST", path: fmt.Sprintf("%s/import-jobs/%d/route-suggestion", base, jobID), body: `{"routeDate":"2026-11-23"}`, key: key})
	if again.status != 404 || again.apiError(t).Code != connect.CodeNotFound {
		t.Errorf("a new suggestion from the deleted job: %d %s", again.status, again.body)
	}
	var result connect.InboundImportResult
	reimport := s.do(request{method: "POST", path: base + "/inbound/targets/batch", body: `{"targets":[{"externalId":"B1","title":"again"}]}`, key: key})
	reimport.json(t, &result)
	if reimport.status != 200 || result.UpdatedItems != 1 {
		t.Errorf("re-import of a target of the deleted job: %d %s", reimport.status, reimport.body)
	}
}
