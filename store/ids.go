package store

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
)

// crockford is the base32 alphabet of ULIDs: no I, L, O or U, and in ASCII
// order, so encoded ids sort like the numbers they encode.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// IDs makes the ids that services choose for their records (appointment
// requests, webhook events): a prefix saying what the id names, then 26
// characters of a ULID-like value, 48 bits of Unix milliseconds followed by 80
// bits that are random for the first id of a millisecond and incremented for
// the following ones. Ids of one IDs therefore sort by creation time, also
// within one millisecond and when the clock steps back, which keeps listings
// in creation order. The zero value is ready to use and safe for concurrent
// use.
type IDs struct {
	mu     sync.Mutex
	ms     uint64
	hi, lo uint64 // the 80 bits: 16 in hi, 64 in lo
}

// Next returns a new id made at now, starting with prefix.
func (g *IDs) Next(prefix string, now time.Time) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := uint64(max(now.UnixMilli(), 0))
	if ms > g.ms {
		var rnd [10]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return "", errors.Wrapf(err, "reading random bytes for a %s id", prefix)
		}
		g.ms = ms
		g.hi, g.lo = uint64(binary.BigEndian.Uint16(rnd[:2])), binary.BigEndian.Uint64(rnd[2:])
	} else if g.lo++; g.lo == 0 {
		if g.hi++; g.hi == 1<<16 {
			g.ms, g.hi = g.ms+1, 0 // 2^80 ids in one millisecond: borrow the next one
		}
	}
	return prefix + encodeID(g.ms<<16|g.hi, g.lo), nil
}

// encodeID writes 128 bits as 26 base32 digits (the top two bits are zero).
func encodeID(hi, lo uint64) string {
	var out [26]byte
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
