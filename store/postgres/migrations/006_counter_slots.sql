-- Every pooled connection of every replica takes the row of the striped
-- counters (job_counts, customer_counts) it adds to from this sequence when
-- it connects: slots are dealt in turn across all replicas, so concurrent
-- writers do not wait for each other's counter rows until more than 64
-- connections write at once (issue 22).
CREATE SEQUENCE counter_slots MINVALUE 0 MAXVALUE 63 START 0 CYCLE;
