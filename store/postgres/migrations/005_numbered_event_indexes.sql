-- Events are read (by number, kind, id) and pruned only once numbered, so
-- only numbered events are indexed for it. An event was indexed twice
-- before: at its insert with seq NULL, and again when its numbering wrote
-- the row anew (seq is indexed, so that update cannot be HOT). Now its
-- insert writes two index entries (events_pkey, events_unnumbered) instead
-- of six, and parses no JSON for events_by_id (issue 22).
ALTER TABLE events DROP CONSTRAINT events_seq_key;
CREATE UNIQUE INDEX events_by_seq ON events (seq) WHERE seq IS NOT NULL;

DROP INDEX events_by_kind;
CREATE INDEX events_by_kind ON events (tenant_id, kind, seq) WHERE seq IS NOT NULL;

DROP INDEX events_by_id;
CREATE INDEX events_by_id ON events (tenant_id, (doc->>'id')) WHERE seq IS NOT NULL;

DROP INDEX events_by_age;
CREATE INDEX events_by_age ON events (created_ns) WHERE seq IS NOT NULL;
