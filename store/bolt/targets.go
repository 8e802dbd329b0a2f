package bolt

import (
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Targets written in a transaction are encoded when the write's function
// returns, not one by one as they are written: encoding them is most of the
// work of a batch import inside its transaction, and done together it is
// spread over every CPU while the transaction's writer would otherwise encode
// a thousand targets on one. Until then the transaction reads them from
// written, so it always sees its own writes.

// encodeTogetherFrom is the number of written targets from which encoding
// them is spread over several goroutines.
const encodeTogetherFrom = 64

// writeTarget keeps a copy of target as written, to be put by flushTargets.
func (t *tx) writeTarget(target *store.Target) {
	if t.written == nil {
		t.written = map[int64]*store.Target{}
	}
	kept := *target
	t.written[target.ID] = &kept
}

// targetByID returns the target with this id as the transaction sees it:
// written in it, or stored. A written target is read through its encoding,
// exactly as it will be read once stored, and shares nothing with the copy
// waiting to be put.
func (t *tx) targetByID(id int64) (*store.Target, error) {
	data := t.bucket(bucketTargets).Get(idKey(id))
	if w, ok := t.written[id]; ok {
		var err error
		if data, err = json.Marshal(w, compact); err != nil {
			return nil, errors.Wrap(err, "encoding a target")
		}
	}
	if data == nil {
		return nil, connect.ErrNotFound
	}
	var target store.Target
	if err := json.Unmarshal(data, &target); err != nil {
		return nil, errors.Wrap(err, "decoding a target")
	}
	return &target, nil
}

// flushTargets encodes the targets written in the transaction and puts them
// into their bucket, in id order.
func (t *tx) flushTargets() error {
	ids := slices.Sorted(maps.Keys(t.written))
	encoded := make([][]byte, len(ids))
	errs := make([]error, len(ids))
	together(len(ids), func(i int) { encoded[i], errs[i] = json.Marshal(t.written[ids[i]], compact) })
	targets := t.bucket(bucketTargets)
	for i, id := range ids {
		if errs[i] != nil {
			return errors.Wrap(errs[i], "encoding a target")
		}
		if err := targets.Put(idKey(id), encoded[i]); err != nil {
			return errors.Wrap(err, "writing a target")
		}
	}
	t.written = nil
	return nil
}

// together calls fn for every index in [0, n), spread over GOMAXPROCS
// goroutines when n is large enough to be worth it.
func together(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+encodeTogetherFrom-1)/encodeTogetherFrom)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for start := 0; start < n; start += chunk {
		wg.Go(func() {
			for i := start; i < min(n, start+chunk); i++ {
				fn(i)
			}
		})
	}
	wg.Wait()
}
