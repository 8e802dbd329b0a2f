package postgres

import "github.com/jackc/pgx/v5"

// planning is how PostgreSQL plans the statements a transaction sends from
// here on. Left to itself it plans a prepared statement again at each of its
// first five executions, then keeps a generic plan per connection when that
// looks no dearer, until the table's statistics change. Most statements
// need otherwise, so connections start with planProbe (see Open), the
// setting of nearly every statement of an import, and a transaction changes
// it (one set_config statement in the same batch) only in front of a
// statement that needs another.
type planning int

const (
	// planProbe keeps one plan per connection (force_generic_plan) made
	// with table scans off. It serves lookups by unique keys written so that
	// each key reaches its index on its own (a LATERAL subquery with LIMIT
	// 1): no plan is left but one index probe per key, so a lookup costs
	// what its keys cost, never what the table holds. Left to itself
	// PostgreSQL planned the import's target lookup at every execution
	// (83 µs per single import, three times the lookup itself), and a plan
	// it did keep, made while a tenant had few targets, went on scanning all
	// of them once it had many (3,400 buffers and 30 ms per lookup at 20,000
	// targets, until autovacuum analysed the table). It serves the
	// statements of planKept as well.
	planProbe planning = iota
	// planKept keeps one plan per connection, for the statements that have
	// one plan whatever the data: rows from unnest, locked or inserted.
	// Left to itself PostgreSQL plans each again at every execution, since
	// for an array argument it assumes ten rows and a plan for the actual
	// one looks cheaper.
	planKept
	// planDefault is PostgreSQL's own choice, for reads whose best plan
	// depends on their arguments.
	planDefault
)

// planSettings are plan_cache_mode, enable_seqscan and enable_bitmapscan
// under each planning.
var planSettings = [...][3]string{
	planProbe:   {"force_generic_plan", "off", "off"},
	planKept:    {"force_generic_plan", "on", "on"},
	planDefault: {"auto", "on", "on"},
}

// setPlanning puts the planSettings $1 to $3 in effect for the rest of the
// transaction.
const setPlanning = `SELECT set_config('plan_cache_mode', $1, true),
	set_config('enable_seqscan', $2, true), set_config('enable_bitmapscan', $3, true)`

// startPlanning makes planProbe the setting connections start with.
func startPlanning(params map[string]string) {
	s := planSettings[planProbe]
	params["plan_cache_mode"], params["enable_seqscan"], params["enable_bitmapscan"] = s[0], s[1], s[2]
}

// plan queues in b the planning the statements queued after it need, unless
// it is in effect: a probe's planning serves the statements of planKept too.
func (t *tx) plan(b *pgx.Batch, p planning) {
	if t.planning == p || p == planKept && t.planning == planProbe {
		return
	}
	s := planSettings[p]
	b.Queue(setPlanning, s[0], s[1], s[2])
	t.planning = p
}
