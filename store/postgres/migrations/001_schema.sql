-- The schema of Integration Connect's PostgreSQL store, version 1.
--
-- Every record is kept whole as json (doc) exactly as the bbolt store encodes
-- it; the other columns are the keys the store contract looks records up,
-- orders or filters by. Text keys compare byte-wise (COLLATE "C"), as the
-- contract orders them. json, not jsonb, keeps documents byte-identical.

CREATE TABLE clients (
    tenant_id text COLLATE "C" NOT NULL,
    client_id text COLLATE "C" NOT NULL,
    key_hash  bytea NOT NULL UNIQUE,
    doc       json NOT NULL,
    PRIMARY KEY (tenant_id, client_id)
);

-- Target ids are handed out in blocks of 1000 (see ids.go).
CREATE SEQUENCE targets_id_seq INCREMENT BY 1000;

CREATE TABLE targets (
    id            bigint PRIMARY KEY,
    tenant_id     text COLLATE "C" NOT NULL,
    source_system text COLLATE "C" NOT NULL,
    external_id   text COLLATE "C" NOT NULL,
    doc           json NOT NULL,
    UNIQUE (tenant_id, source_system, external_id)
);

CREATE SEQUENCE jobs_id_seq;

-- status_key and source_key are the folded (lower-case) status and source
-- system that the job list filters by exactly.
CREATE TABLE jobs (
    id         bigint PRIMARY KEY,
    tenant_id  text COLLATE "C" NOT NULL,
    status_key text COLLATE "C" NOT NULL,
    source_key text COLLATE "C" NOT NULL,
    doc        json NOT NULL,
    items      json NOT NULL
);
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, id DESC);
CREATE INDEX jobs_by_status ON jobs (tenant_id, status_key, id DESC);
CREATE INDEX jobs_by_source ON jobs (tenant_id, source_key, id DESC);
CREATE INDEX jobs_by_status_source ON jobs (tenant_id, status_key, source_key, id DESC);

-- job_counts keeps the total of every job list filter, so a list's total is
-- a few rows read whatever the number of jobs. filter is 'all', 'status',
-- 'source' or 'status+source'; the keys it does not use are ''. Each total
-- is striped over up to 16 rows (slot), each transaction adding to a random
-- one, so concurrent imports of one tenant do not queue for one row lock.
CREATE TABLE job_counts (
    tenant_id  text COLLATE "C" NOT NULL,
    filter     text COLLATE "C" NOT NULL,
    status_key text COLLATE "C" NOT NULL,
    source_key text COLLATE "C" NOT NULL,
    slot       smallint NOT NULL,
    n          bigint NOT NULL,
    PRIMARY KEY (tenant_id, filter, status_key, source_key, slot)
);

-- expires_ns is the record's expiry (IdempotencyRecord.Expiry) in Unix
-- nanoseconds: timestamptz keeps only microseconds.
CREATE TABLE idempotency_records (
    tenant_id  text COLLATE "C" NOT NULL,
    client_id  text COLLATE "C" NOT NULL,
    key        text COLLATE "C" NOT NULL,
    expires_ns bigint NOT NULL,
    doc        json NOT NULL,
    PRIMARY KEY (tenant_id, client_id, key)
);
CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_ns);

-- Events are inserted without a number (seq NULL) and numbered after their
-- transaction committed, by a short transaction holding an advisory lock
-- (see outbox.go), so numbers follow commit order. pending_id is only the
-- order in which waiting events are numbered.
CREATE SEQUENCE events_seq;

CREATE TABLE events (
    pending_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seq        bigint UNIQUE,
    tenant_id  text COLLATE "C" NOT NULL,
    kind       text COLLATE "C" NOT NULL,
    created_ns bigint NOT NULL,
    doc        json NOT NULL
);
CREATE INDEX events_by_kind ON events (tenant_id, kind, seq);
CREATE INDEX events_unnumbered ON events (pending_id) WHERE seq IS NULL;

CREATE SEQUENCE subscriptions_id_seq;

CREATE TABLE subscriptions (
    id        bigint PRIMARY KEY,
    tenant_id text COLLATE "C" NOT NULL,
    doc       json NOT NULL
);

CREATE TABLE appointment_requests (
    tenant_id text COLLATE "C" NOT NULL,
    id        text COLLATE "C" NOT NULL,
    status    text COLLATE "C" NOT NULL,
    doc       json NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX appointment_requests_by_status ON appointment_requests (tenant_id, status, id);

CREATE SEQUENCE customers_id_seq;

CREATE TABLE customers (
    id              bigint PRIMARY KEY,
    tenant_id       text COLLATE "C" NOT NULL,
    source_system   text COLLATE "C" NOT NULL,
    external_id     text COLLATE "C",
    customer_number text COLLATE "C",
    doc             json NOT NULL,
    UNIQUE (tenant_id, source_system, external_id)
);
CREATE INDEX customers_by_tenant ON customers (tenant_id, id);
CREATE INDEX customers_by_number ON customers (tenant_id, customer_number, id);

-- customer_counts is striped like job_counts.
CREATE TABLE customer_counts (
    tenant_id text COLLATE "C" NOT NULL,
    slot      smallint NOT NULL,
    n         bigint NOT NULL,
    PRIMARY KEY (tenant_id, slot)
);

CREATE SEQUENCE customer_locations_id_seq;

-- address_key is CustomerLocation.AddressKey(), '' when it has none.
CREATE TABLE customer_locations (
    id          bigint PRIMARY KEY,
    tenant_id   text COLLATE "C" NOT NULL,
    customer_id bigint NOT NULL,
    external_id text COLLATE "C",
    address_key text COLLATE "C" NOT NULL,
    doc         json NOT NULL,
    UNIQUE (tenant_id, customer_id, external_id)
);
CREATE INDEX customer_locations_by_customer ON customer_locations (tenant_id, customer_id, id);
CREATE INDEX customer_locations_by_address ON customer_locations (tenant_id, customer_id, address_key, id);

CREATE SEQUENCE customer_contacts_id_seq;

-- email_key is store.EmailKey of the contact's e-mail, '' when it has none.
CREATE TABLE customer_contacts (
    id          bigint PRIMARY KEY,
    tenant_id   text COLLATE "C" NOT NULL,
    customer_id bigint NOT NULL,
    external_id text COLLATE "C",
    email_key   text COLLATE "C" NOT NULL,
    doc         json NOT NULL,
    UNIQUE (tenant_id, customer_id, external_id)
);
CREATE INDEX customer_contacts_by_customer ON customer_contacts (tenant_id, customer_id, id);
CREATE INDEX customer_contacts_by_email ON customer_contacts (tenant_id, customer_id, email_key, id);

CREATE TABLE mapping_settings (
    tenant_id text COLLATE "C" PRIMARY KEY,
    doc       json NOT NULL
);

CREATE SEQUENCE route_suggestions_id_seq;

CREATE TABLE route_suggestions (
    id        bigint PRIMARY KEY,
    tenant_id text COLLATE "C" NOT NULL,
    job_id    bigint NOT NULL,
    doc       json NOT NULL
);
CREATE INDEX route_suggestions_by_job ON route_suggestions (tenant_id, job_id, id);

CREATE SEQUENCE optimization_profiles_id_seq;

CREATE TABLE optimization_profiles (
    id        bigint PRIMARY KEY,
    tenant_id text COLLATE "C" NOT NULL,
    doc       json NOT NULL
);
CREATE INDEX optimization_profiles_by_tenant ON optimization_profiles (tenant_id, id);

CREATE TABLE employees (
    tenant_id text COLLATE "C" NOT NULL,
    id        text COLLATE "C" NOT NULL,
    doc       json NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

-- Leases (Store.Claim) and rate limit buckets are worth nothing after a
-- crash: UNLOGGED spares their writes the WAL. Their names are bytea because
-- callers build them with NUL separators, which text cannot hold.
CREATE UNLOGGED TABLE leases (
    name       bytea PRIMARY KEY,
    owner      text NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE UNLOGGED TABLE rate_limits (
    key bytea PRIMARY KEY,
    tat timestamptz NOT NULL
);

-- rate_limit_allow is GCRA (the generic cell rate algorithm) in one call: a
-- request is allowed when the bucket's theoretical arrival time (tat) is at
-- most tolerance_us ahead of now, and then moves tat on by interval_us. A
-- denied request learns how long until one would be allowed.
CREATE FUNCTION rate_limit_allow(p_key bytea, p_interval_us bigint, p_tolerance_us bigint,
                                 OUT allowed boolean, OUT retry_after_us bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_now       timestamptz := clock_timestamp();
    v_interval  interval := p_interval_us * interval '1 microsecond';
    v_tolerance interval := p_tolerance_us * interval '1 microsecond';
    v_tat       timestamptz;
BEGIN
    INSERT INTO rate_limits AS r (key, tat) VALUES (p_key, v_now + v_interval)
    ON CONFLICT (key) DO UPDATE SET tat = greatest(r.tat, v_now) + v_interval
        WHERE greatest(r.tat, v_now) - v_now <= v_tolerance
    RETURNING r.tat INTO v_tat;
    IF FOUND THEN
        allowed := true;
        retry_after_us := 0;
        RETURN;
    END IF;
    SELECT r.tat INTO v_tat FROM rate_limits r WHERE r.key = p_key;
    allowed := false;
    retry_after_us := greatest(ceil(extract(epoch FROM (v_tat - v_now - v_tolerance)) * 1000000), 1)::bigint;
END
$$;
