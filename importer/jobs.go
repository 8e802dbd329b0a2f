package importer

import (
	"context"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// ListJobs returns one page of the caller's tenant's import jobs, newest first.
// See connect.JobStore.
func (s *Service) ListJobs(ctx context.Context, caller connect.Caller, q connect.JobQuery) (connect.ImportJobList, error) {
	if err := caller.RequireScope(connect.Required.ReadJobs); err != nil {
		return connect.ImportJobList{}, err
	}
	list := connect.ImportJobList{}
	list.Skip, list.Take = q.Page()
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		filter := store.JobFilter{Status: q.Status, SourceSystem: q.SourceSystem}
		list.Jobs, list.Total, err = tx.Jobs(caller.TenantID, filter, list.Skip, list.Take)
		return err
	})
	return list, err
}

// GetJob returns one import job of the caller's tenant with all item results.
// Another tenant's job is NotFound. See connect.JobStore.
func (s *Service) GetJob(ctx context.Context, caller connect.Caller, id int64) (connect.ImportJobDetails, error) {
	if err := caller.RequireScope(connect.Required.ReadJobs); err != nil {
		return connect.ImportJobDetails{}, err
	}
	var job *store.Job
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		job, err = tx.Job(caller.TenantID, id)
		return err
	})
	if errors.Is(err, connect.ErrNotFound) {
		return connect.ImportJobDetails{}, connect.Errorf(connect.CodeNotFound, "import job %d not found", id)
	}
	if err != nil {
		return connect.ImportJobDetails{}, err
	}
	return job.ImportJobDetails, nil
}
