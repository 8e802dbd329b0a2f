-- Route plans (store.RouteTx.CreateRoutePlan): a team's day, whose drafts
-- are route suggestions stored in the same transaction.
CREATE SEQUENCE route_plans_id_seq;

CREATE TABLE route_plans (
    id        bigint PRIMARY KEY,
    tenant_id text COLLATE "C" NOT NULL,
    doc       json NOT NULL
);
