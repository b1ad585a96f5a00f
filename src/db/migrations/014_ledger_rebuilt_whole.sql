-- The ledger's definitions changed (issue 32 review): a voided or declined activity's transactions are classified
-- by their signs, a points field a record leaves out counts 0 in the signs, no timestamp before 1970 has a day,
-- active_members_30d counts a member from their enrolment day, and program_metrics_daily's days start at the first
-- transaction, order or enrolment. Rows an earlier version wrote keep the old definitions until a full build, and
-- an update rebuilds only the days it touches: forgetting the last build makes the next sync build the tables whole.
DELETE FROM ledger_state;
