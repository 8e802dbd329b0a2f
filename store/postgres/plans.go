package postgres

import "github.com/jackc/pgx/v5"

// planning is how PostgreSQL plans the statements a transaction sends from
// here on. Left to itself it plans a prepared statement again at each of its
// first five executions, then keeps a generic plan per connection when that
// looks no dearer, until the table's statistics change. Two kinds of
// statement need otherwise, so a transaction changes the setting in front of
// them (one set_config statement in the same batch), and back only when a
// statement that needs the default follows.
type planning int

const (
	// planDefault is PostgreSQL's own choice, for reads whose best plan
	// depends on their arguments.
	planDefault planning = iota
	// planKept keeps one plan per connection (force_generic_plan), for the
	// statements that have one plan whatever the data: rows from unnest,
	// locked or inserted. Left to itself PostgreSQL plans each again at
	// every execution, since for an array argument it assumes ten rows and
	// a plan for the actual one looks cheaper.
	planKept
	// planProbe is planKept with table scans off, for lookups by unique keys
	// written so that each key reaches its index on its own (a LATERAL
	// subquery with LIMIT 1): no plan is left but one index probe per key,
	// so a lookup costs what its keys cost, never what the table holds.
	// Left to itself PostgreSQL planned the import's target lookup at every
	// execution (83 µs per single import, three times the lookup itself),
	// and a plan it did keep, made while a tenant had few targets, went on
	// scanning all of them once it had many (3,400 buffers and 30 ms per
	// lookup at 20,000 targets, until autovacuum analysed the table).
	planProbe
)

// planSettings are the statements that put each planning in effect, for the
// rest of the transaction.
var planSettings = [...]string{
	planDefault: `SELECT set_config('plan_cache_mode', 'auto', true),
		set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'on', true)`,
	planKept: `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
		set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'on', true)`,
	planProbe: `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
		set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
}

// plan queues in b the planning the statements queued after it need, unless
// it is in effect: a probe's planning serves the statements of planKept too.
func (t *tx) plan(b *pgx.Batch, p planning) {
	if t.planning == p || p == planKept && t.planning == planProbe {
		return
	}
	b.Queue(planSettings[p])
	t.planning = p
}
