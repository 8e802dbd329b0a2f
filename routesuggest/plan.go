package routesuggest

import (
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/routesuggest/solver"
	"github.com/integration-connect/connect/store"
)

// plan is one route suggestion being worked out: the day, the technician, the
// candidates and the job items that cannot be candidates.
type plan struct {
	req      connect.CreateImportJobRouteSuggestionRequest
	job      *store.Job
	profile  store.OptimizationProfile
	employee *store.Employee
	// dayStart is local midnight of the route date; solver times are seconds
	// after it.
	dayStart time.Time
	// candidates are the distinct routable targets, in job order.
	candidates []*store.Target
	// verdicts maps each job item (by index) to its exclusion, or to the
	// target it stands for ("" reason).
	verdicts []verdict
	// noRoad[i] is true when the road network does not reach candidate i
	// (markNoRoadAccess); such a candidate is no solver stop.
	noRoad []bool
	// stopCandidate maps each solver stop to its candidate.
	stopCandidate []int
}

// verdict is what became of one job item.
type verdict struct {
	target *store.Target
	reason connect.ExclusionReason
}

// sort decides for every item of the job whether its target is a candidate for
// the day or why not (DECISIONS.md "Route suggestions").
func (p *plan) sort(tx store.Tx) error {
	seen := map[int64]bool{}
	p.verdicts = make([]verdict, len(p.job.Items))
	for i, item := range p.job.Items {
		v, err := p.judge(tx, item)
		if err != nil {
			return err
		}
		p.verdicts[i] = v
		if v.reason == "" && !seen[v.target.ID] {
			seen[v.target.ID] = true
			p.candidates = append(p.candidates, v.target)
		}
	}
	return nil
}

func (p *plan) judge(tx store.Tx, item connect.InboundImportItemResult) (verdict, error) {
	if item.Status == connect.ItemRejected || item.TargetID == nil {
		return verdict{reason: connect.ExcludedRejected}, nil
	}
	t, err := tx.Target(p.job.TenantID, *item.TargetID)
	if err != nil {
		return verdict{}, errors.Wrapf(err, "target %d of job %d", *item.TargetID, p.job.ID)
	}
	v := verdict{target: t}
	switch {
	case t.Status == store.TargetCancelled:
		v.reason = connect.ExcludedCancelled
	case !t.Effective.HasCoordinates():
		v.reason = connect.ExcludedMissingCoordinates
	case !p.onTheDay(t):
		v.reason = connect.ExcludedOtherRouteDate
	}
	return v, nil
}

// onTheDay reports whether a target may be visited on the route date: its own
// route date, when set, is that date, and its time window and due time, when
// set, touch that day in the profile's time zone.
func (p *plan) onTheDay(t *store.Target) bool {
	return touchesDay(t, p.req.RouteDate, p.dayStart, p.dayStart.AddDate(0, 0, 1))
}

// touchesDay reports whether a target may be visited on date, the day
// [from, to): its own route date, when set, is that date, and its time
// window and due time, when set, touch the day.
func touchesDay(t *store.Target, date connect.Date, from, to time.Time) bool {
	pl := t.Data.Planning
	if pl == nil {
		return true
	}
	if pl.RouteDate != nil && *pl.RouteDate != date {
		return false
	}
	switch {
	case pl.TimeWindowStartUtc != nil && !pl.TimeWindowStartUtc.Before(to):
		return false
	case pl.TimeWindowEndUtc != nil && pl.TimeWindowEndUtc.Before(from):
		return false
	case pl.DueAtUtc != nil && pl.DueAtUtc.Before(from):
		return false
	}
	return true
}

// seconds is t as solver time: seconds after local midnight of the route date.
func (p *plan) seconds(t time.Time) int64 { return int64(t.Sub(p.dayStart) / time.Second) }

// at is solver time as UTC.
func (p *plan) at(seconds int64) time.Time {
	return p.dayStart.Add(time.Duration(seconds) * time.Second).UTC()
}

// shift is the working day in solver time: the employee's hours, else the
// profile's, on the route date in the profile's time zone.
func (p *plan) shift() (start, end int64) {
	from, to := p.profile.ShiftStart, p.profile.ShiftEnd
	if e := p.employee; e != nil && e.ShiftStart != nil {
		from = *e.ShiftStart
	}
	if e := p.employee; e != nil && e.ShiftEnd != nil {
		to = *e.ShiftEnd
	}
	return p.clock(from), p.clock(to)
}

// breakRule is the daily pause an employee takes: their own, else their
// profile's; nil for none.
func breakRule(e *store.Employee, profile store.OptimizationProfile) *store.BreakRule {
	if e != nil && e.Break != nil {
		return e.Break
	}
	return profile.Break
}

// breakOf is a break rule on the day, clock turning its times of day into
// solver time.
func breakOf(rule *store.BreakRule, clock func(hhmm string) int64) *solver.Break {
	if rule == nil {
		return nil
	}
	return &solver.Break{Duration: int64(rule.Minutes) * 60, Open: clock(rule.Earliest), Close: clock(rule.Latest)}
}

// clock turns "HH:MM" on the route date into solver time, honouring daylight
// saving changes on that day.
func (p *plan) clock(hhmm string) int64 {
	minutes, _ := connect.ParseClock(hhmm) // validated when stored
	local := time.Date(p.dayStart.Year(), p.dayStart.Month(), p.dayStart.Day(), minutes/60, minutes%60, 0, 0, p.dayStart.Location())
	return p.seconds(local)
}

// stop turns a candidate into a solver stop at matrix node i.
func (p *plan) stop(i int, t *store.Target) solver.Stop {
	s := targetStop(i, t, p.seconds, p.dayStart)
	s.Value = value(t, p.profile)
	return s
}

// targetStop is a target as a solver stop at matrix node i, without its value:
// its work time, and its window of service start (service starts within the
// time window, exactly at its start when fixedTime, and ends by dueAtUtc).
// seconds turns a time into solver time; dayStart is local midnight of the
// day, whose day before and day after bound an open-ended window.
func targetStop(i int, t *store.Target, seconds func(time.Time) int64, dayStart time.Time) solver.Stop {
	service := int64(t.Effective.EstimatedWorkMinutes) * 60
	s := solver.Stop{Node: i, Service: service}
	pl := t.Data.Planning
	if pl == nil || (pl.TimeWindowStartUtc == nil && pl.TimeWindowEndUtc == nil && pl.DueAtUtc == nil) {
		return s
	}
	open, close := seconds(dayStart.AddDate(0, 0, -1)), seconds(dayStart.AddDate(0, 0, 2))
	if pl.TimeWindowStartUtc != nil {
		open = seconds(*pl.TimeWindowStartUtc)
	}
	if pl.TimeWindowEndUtc != nil {
		close = seconds(*pl.TimeWindowEndUtc)
	}
	if pl.FixedTime != nil && *pl.FixedTime && pl.TimeWindowStartUtc != nil {
		s.Fixed, close = true, open
	}
	if pl.DueAtUtc != nil {
		close = min(close, seconds(*pl.DueAtUtc)-service)
	}
	if close < open {
		// No start time works: a window the day before, which the solver
		// reports as outside the shift.
		open = seconds(dayStart.AddDate(0, 0, -1))
		close = open
	}
	s.Windows = []solver.Window{{Open: open, Close: close}}
	return s
}

// value is what visiting a target is worth, so that when not every target fits
// the day the route keeps the most valuable ones:
//
//	value = priorityFactor × (100 + businessPoints) × weight
//
// priorityFactor comes from the profile (default low 1, normal 2, high 4,
// urgent 8; unknown or no priority counts as normal); businessPoints =
// (expectedRevenue × closeProbability (1 when absent) + customerValue) ÷
// revenuePerPoint, between 0 and 10,000; weight is businessValue.weight
// between 1 and 100 (1 when absent). Priority dominates: a normal target is
// worth two low ones of the same business value.
func value(t *store.Target, profile store.OptimizationProfile) int64 {
	factor := priorityFactor(t.Effective.Priority, profile)
	points, weight := 0.0, int64(1)
	if bv := t.Data.BusinessValue; bv != nil {
		probability := 1.0
		if bv.CloseProbability != nil {
			probability = *bv.CloseProbability
		}
		points = (deref(bv.ExpectedRevenue)*probability + deref(bv.CustomerValue)) / profile.RevenuePerPoint
		if bv.Weight != nil {
			weight = int64(min(max(*bv.Weight, 1), 100))
		}
	}
	return factor * (100 + int64(min(max(points, 0), 10000))) * weight
}

func priorityFactor(priority *string, profile store.OptimizationProfile) int64 {
	if priority != nil {
		if f, ok := profile.PriorityFactors[strings.ToLower(strings.TrimSpace(*priority))]; ok {
			return f
		}
	}
	if f, ok := profile.PriorityFactors["normal"]; ok {
		return f
	}
	return 1
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
