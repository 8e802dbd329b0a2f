package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// TestTargetLookupPlan: the plan PostgreSQL keeps for the import's target
// lookup, made while the table is small, is one index probe per key, never
// a scan that would read the whole table once it has grown. Without table
// scans off (planKept) the plan kept is a sequential scan (measured in
// BenchmarkImportSingleParallel: 3,400 buffers per lookup at 20,000 targets).
func TestTargetLookupPlan(t *testing.T) {
	s, err := Open(t.Context(), pgtest.URL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO targets (id, tenant_id, source_system, external_id, doc)
		SELECT g, 't1', 'erp', 'T' || g, '{}' FROM generate_series(1, 3) g`); err != nil {
		t.Fatal(err)
	}
	// As autovacuum does once a new table has its first rows.
	if _, err := s.pool.Exec(t.Context(), "ANALYZE targets"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		p     planning
		want  string
		never []string
	}{
		{"kept", planKept, "Seq Scan on targets", nil},
		{"probe", planProbe, "Index Scan using targets_tenant_id_source_system_external_id_key on targets",
			[]string{"Seq Scan", "Bitmap", "Hash"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var plan []string
			err := pgx.BeginFunc(t.Context(), s.pool, func(tx pgx.Tx) error {
				set := planSettings[c.p]
				if _, err := tx.Exec(t.Context(), setPlanning, set[0], set[1], set[2]); err != nil {
					return err
				}
				if _, err := tx.Exec(t.Context(), "PREPARE lookup(text, text[], text[]) AS "+targetsByKeySQL(" FOR UPDATE")); err != nil {
					return err
				}
				rows, err := tx.Query(t.Context(), "EXPLAIN EXECUTE lookup('t1', '{erp}', '{T1}')", pgx.QueryExecModeSimpleProtocol)
				if err != nil {
					return err
				}
				plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					return err
				}
				_, err = tx.Exec(t.Context(), "DEALLOCATE lookup")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			if !strings.Contains(text, c.want) {
				t.Errorf("plan without %q:\n%s", c.want, text)
			}
			for _, never := range c.never {
				if strings.Contains(text, never) {
					t.Errorf("plan with %q:\n%s", never, text)
				}
			}
		})
	}
}
