-- The events feed and delivery attempts (issue 21). Events are read by id
-- (GET /events/{id}, the after cursor) and pruned by age, whether or not a
-- subscription received them.
CREATE INDEX events_by_id ON events (tenant_id, (doc->>'id'));
CREATE INDEX events_by_age ON events (created_ns);

-- Delivery attempts of a subscription, listed newest first and pruned by
-- age; they go with their subscription.
CREATE SEQUENCE attempts_id_seq;

CREATE TABLE attempts (
    id              bigint PRIMARY KEY,
    subscription_id bigint NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    at_ns           bigint NOT NULL,
    doc             json NOT NULL
);
CREATE INDEX attempts_by_subscription ON attempts (subscription_id, id);
CREATE INDEX attempts_by_age ON attempts (at_ns);
