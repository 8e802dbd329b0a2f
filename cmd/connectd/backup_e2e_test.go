package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/importer/importertest"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/storetest"
)

// acknowledged is an idempotent batch import the server answered.
type acknowledged struct {
	key, body string
	answer    []byte
	jobID     int64
}

// TestBackupWhileServing: with the real binary, backup runs in the serving
// process through the admin socket while batches are imported, from a
// relative --out; serving the copy answers every job acknowledged before the
// backup began, and their idempotency keys replay the original answers byte
// for byte.
func TestBackupWhileServing(t *testing.T) {
	boltOnly(t)
	bin := buildBinary(t)
	data, work := dataDir(t), t.TempDir()
	created := cli(t, bin, "keys", "create", "--tenant", "acme", "--client", "erp", "--source-system", "erp",
		"--scopes", "inbound.targets.batch.write,import_jobs.read", "--data", data)
	lines := strings.Split(strings.TrimSpace(created.stdout), "\n")
	key := lines[len(lines)-1]
	d := startDaemon(t, bin, "--data", data)

	var mu sync.Mutex
	var acks []acknowledged
	stop, loaded := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var loadedOnce sync.Once
	wg.Go(func() {
		defer loadedOnce.Do(func() { close(loaded) }) // also when the load fails early
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			a := acknowledged{key: fmt.Sprintf("load-%d", i), body: string(importertest.PlanningBatch(fmt.Sprintf("L%d", i), 50))}
			status, answer, _ := post(t, d.url+"/inbound/targets/batch", key, a.key, a.body)
			if status != 200 {
				t.Errorf("import %d: %d %s", i, status, answer)
				return
			}
			var r connect.InboundImportResult
			if err := json.Unmarshal(answer, &r); err != nil {
				t.Errorf("import %d: %v", i, err)
				return
			}
			a.answer, a.jobID = answer, r.ImportJobID
			mu.Lock()
			acks = append(acks, a)
			mu.Unlock()
			if i == 5 {
				loadedOnce.Do(func() { close(loaded) })
			}
		}
	})
	storetest.Receive(t, loaded, "five acknowledged imports")
	mu.Lock()
	before := len(acks) // acknowledged before the backup began
	mu.Unlock()
	if before == 0 {
		t.Fatal("no import was acknowledged")
	}
	cmd := exec.Command(bin, "backup", "--out", "backup.db", "--data", data)
	cmd.Dir = work // the server's working directory is another
	out, err := cmd.CombinedOutput()
	close(stop)
	wg.Wait()
	if err != nil || !strings.Contains(string(out), filepath.Join(work, "backup.db")) {
		t.Fatalf("backup while serving: %v\n%s", err, out)
	}
	if !strings.Contains(d.stderr.String(), `msg="admin command" command=backup exitStatus=0`) {
		t.Errorf("the backup did not run in the server:\n%s", d.stderr)
	}
	if code := d.stop(t); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, d.stderr)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if err := os.MkdirAll(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(work, "backup.db"), filepath.Join(restored, bolt.FileName)); err != nil {
		t.Fatal(err)
	}
	d = startDaemon(t, bin, "--data", restored)
	for _, a := range acks[:before] {
		if status, body := call(t, "GET", fmt.Sprintf("%s/import-jobs/%d", d.url, a.jobID), key, ""); status != 200 {
			t.Errorf("job %d of %s in the restored copy: %d %s", a.jobID, a.key, status, body)
		}
		status, answer, replayed := post(t, d.url+"/inbound/targets/batch", key, a.key, a.body)
		if status != 200 || !replayed || string(answer) != string(a.answer) {
			t.Errorf("replay of %s from the restored copy: %d, replayed %v, same answer %v", a.key, status, replayed, string(answer) == string(a.answer))
		}
	}
	d.stop(t)
}

// post sends an idempotent POST and returns the status, the body and
// whether it was replayed.
func post(t *testing.T, url, key, idempotencyKey, body string) (int, []byte, bool) {
	status, b, header, err := send(testClient, "POST", url, key, body, "Idempotency-Key", idempotencyKey)
	if err != nil {
		t.Error(err)
		return 0, nil, false
	}
	return status, b, header.Get("Idempotent-Replayed") == "true"
}
