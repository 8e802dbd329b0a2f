-- Job retention (store.JobTx.DeleteJobsCreatedBefore) deletes the jobs
-- created before a cutoff, oldest first: created_ns is a job's createdAtUtc
-- in Unix nanoseconds, indexed, so finding them reads only the expired rows.
ALTER TABLE jobs ADD COLUMN created_ns bigint;
UPDATE jobs SET created_ns = (extract(epoch FROM (doc->>'createdAtUtc')::timestamptz) * 1000000)::bigint * 1000;
ALTER TABLE jobs ALTER COLUMN created_ns SET NOT NULL;
CREATE INDEX jobs_by_creation ON jobs (created_ns);
