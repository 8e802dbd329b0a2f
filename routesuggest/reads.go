package routesuggest

import (
	"context"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// GetRouteSuggestion returns a suggestion of the caller's tenant (scope
// import_jobs.read). See connect.RouteSuggester.
func (s *Service) GetRouteSuggestion(ctx context.Context, caller connect.Caller, id int64) (connect.RouteSuggestion, error) {
	if err := caller.RequireScope(connect.Required.ReadRouteSuggestions); err != nil {
		return connect.RouteSuggestion{}, err
	}
	var r *store.RouteSuggestion
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		r, err = suggestion(tx, caller.TenantID, id)
		return err
	})
	if err != nil {
		return connect.RouteSuggestion{}, err
	}
	return r.RouteSuggestion, nil
}

// RouteSuggestionsForJob lists a job's suggestions, oldest first, for the host
// application. See connect.RouteSuggester.
func (s *Service) RouteSuggestionsForJob(ctx context.Context, tenantID string, jobID int64) ([]connect.RouteSuggestion, error) {
	list := []connect.RouteSuggestion{}
	err := s.cfg.Store.View(ctx, func(tx store.Tx) error {
		recs, err := tx.RouteSuggestionsForJob(tenantID, jobID)
		for _, r := range recs {
			list = append(list, withTravelModel(r).RouteSuggestion)
		}
		return err
	})
	return list, err
}

// PublishRouteSuggestion marks a Draft as Published: the manager accepted it.
// See connect.RouteSuggester.
func (s *Service) PublishRouteSuggestion(ctx context.Context, tenantID string, id int64) (connect.RouteSuggestion, error) {
	return s.end(ctx, tenantID, id, connect.RoutePublished)
}

// DiscardRouteSuggestion marks a Draft as Discarded. See connect.RouteSuggester.
func (s *Service) DiscardRouteSuggestion(ctx context.Context, tenantID string, id int64) (connect.RouteSuggestion, error) {
	return s.end(ctx, tenantID, id, connect.RouteDiscarded)
}

// end moves a Draft to a final status; anything else is InvalidStateTransition.
func (s *Service) end(ctx context.Context, tenantID string, id int64, to connect.RouteSuggestionStatus) (connect.RouteSuggestion, error) {
	var r *store.RouteSuggestion
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) (err error) {
		if r, err = suggestion(tx, tenantID, id); err != nil {
			return err
		}
		if r.Status != connect.RouteDraft {
			return connect.Errorf(connect.CodeInvalidStateTransition, "route suggestion %d is %s; only a Draft can become %s", id, r.Status, to)
		}
		r.Status = to
		return tx.PutRouteSuggestion(r)
	})
	if err != nil {
		return connect.RouteSuggestion{}, err
	}
	return r.RouteSuggestion, nil
}

func suggestion(tx store.Tx, tenantID string, id int64) (*store.RouteSuggestion, error) {
	r, err := tx.RouteSuggestion(tenantID, id)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, connect.Errorf(connect.CodeNotFound, "route suggestion %d not found", id)
	}
	if err != nil {
		return nil, err
	}
	*r = withTravelModel(*r)
	return r, nil
}

// withTravelModel gives a suggestion stored before suggestions said what
// their times came from the model they were planned with: great-circle, the
// only one there was.
func withTravelModel(r store.RouteSuggestion) store.RouteSuggestion {
	if r.TravelModel == "" {
		r.TravelModel = connect.TravelGreatCircle
	}
	return r
}
