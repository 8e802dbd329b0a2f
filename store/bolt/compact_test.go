package bolt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

// TestCompactAfterRetention: once half the jobs are deleted, the compacted
// copy of a store of jobs is smaller by about half, while the original file
// keeps its size (bbolt never shrinks a file). The copy holds the jobs that
// remain, and ids go on after the last one.
func TestCompactAfterRetention(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, bolt.FileName)
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	const jobs = 400
	for start := 0; start < jobs; start += 100 {
		err := s.Update(t.Context(), func(tx store.Tx) error {
			for i := start; i < start+100; i++ {
				if err := tx.CreateJob(jobWithItems(i, t0.Add(time.Duration(i)*time.Minute))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	full, original := compactedSize(t, path), fileSizeOf(t, path)

	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for deleted := 0; deleted < jobs/2; {
		err := s.Update(t.Context(), func(tx store.Tx) error {
			n, err := tx.DeleteJobsCreatedBefore(t0.Add(jobs/2*time.Minute), 100)
			deleted += n
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	half := compactedSize(t, path)
	if after := fileSizeOf(t, path); after != original {
		t.Errorf("the file went from %d to %d bytes; bbolt files never shrink", original, after)
	}
	if share := float64(half) / float64(full); share < 0.4 || share > 0.6 {
		t.Errorf("compacted after deleting half the jobs: %d bytes, %.2f of the %d bytes before; want about half", half, share, full)
	}

	copyDir := t.TempDir()
	if err := bolt.Compact(path, filepath.Join(copyDir, bolt.FileName)); err != nil {
		t.Fatal(err)
	}
	c, err := bolt.OpenDir(copyDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Update(t.Context(), func(tx store.Tx) error {
		if _, total, err := tx.Jobs("t1", store.JobFilter{}, 0, 1); err != nil || total != jobs/2 {
			t.Errorf("jobs in the compacted copy: %d, %v; want %d", total, err, jobs/2)
		}
		next := jobWithItems(jobs, t0)
		if err := tx.CreateJob(next); err != nil || next.ID != jobs+1 {
			t.Errorf("next job id in the compacted copy: %d, %v; want %d", next.ID, err, jobs+1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jobWithItems is a job of 100 items, as varied as real results.
func jobWithItems(n int, created time.Time) *store.Job {
	j := &store.Job{TenantID: "t1", ClientID: "c1"}
	j.SourceSystem, j.Status, j.CreatedAtUtc = "erp", connect.JobPartiallyAccepted, created
	for i := range 100 {
		id := int64(n*1000 + i*7919%1000)
		message := fmt.Sprintf("planning.estimatedWorkMinutes must be between 5 and 480, not %d", n*31+i*17)
		code := connect.CodeValidationFailed
		j.Items = append(j.Items, connect.InboundImportItemResult{ExternalID: fmt.Sprintf("WO-%d-%d", n*7+3, i*13), Status: connect.ItemRejected, TargetID: &id, ErrorCode: &code, ErrorMessage: &message})
	}
	j.ImportCounters = connect.CountItems(j.Items)
	return j
}

// compactedSize compacts the file at path into a new one and returns its size.
func compactedSize(t *testing.T, path string) int64 {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "compacted.db")
	if err := bolt.Compact(path, dst); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func fileSizeOf(t *testing.T, path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
