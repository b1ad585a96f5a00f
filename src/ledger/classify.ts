/**
 * How a transaction moves the points ledger, by its resource, its embedded activity's state and rule, and the
 * signs of its points (README "The points ledger" has the table). Each transaction lands in exactly one class;
 * what nobody classified is `other`, never dropped.
 */
export const MOVEMENTS = ['earned', 'reversed', 'redeemed', 'reimbursed', 'expired', 'other'] as const;
export type Movement = (typeof MOVEMENTS)[number];

/** The class of a pending activity approved: points move from pending to approved, the total stays. */
export const APPROVAL = 'approval';

/** Activity states the ledger knows; any other state is `other` and recorded as schema drift. */
export const CLASSIFIED_ACTIVITY_STATES = ['pending', 'approved', 'void', 'declined'] as const;
/** Transaction resources the ledger knows; any other is `other` and recorded as schema drift. */
export const CLASSIFIED_RESOURCES = ['activity', 'claimed_reward', 'points_import'] as const;

const list = (values: readonly string[]): string => values.map((value) => `'${value}'`).join(', ');

/**
 * The class, as an SQL expression over a `transactions` row. The rule's name is read from `raw` only for the few
 * removals that could be expiries, so the common rows cost no JSON parsing. An expiry is an activity whose rule
 * names an expiration (the spec lists point expirations among what activities do, without naming the rule).
 */
export const MOVEMENT_SQL = `CASE
  WHEN resource = 'activity' THEN CASE
    WHEN activity_state IN ('void', 'declined') THEN 'reversed'
    WHEN activity_state = 'approved' AND points_pending < 0 AND points_approved = -points_pending THEN '${APPROVAL}'
    WHEN activity_state NOT IN ('pending', 'approved') OR activity_state IS NULL THEN 'other'
    WHEN points_approved + points_pending >= 0 THEN 'earned'
    WHEN lower(json_extract(raw, '$.activity.rule.name')) LIKE '%expir%' THEN 'expired'
    ELSE 'reversed' END
  WHEN resource = 'claimed_reward' THEN CASE WHEN points_approved + points_pending < 0 THEN 'redeemed' ELSE 'reimbursed' END
  WHEN resource = 'points_import' THEN CASE WHEN points_approved + points_pending < 0 THEN 'reversed' ELSE 'earned' END
  ELSE 'other' END`;

/** Whether a transaction row is unclassified for want of a known resource or state (the drift to record). */
export const UNCLASSIFIED_SQL = `(resource IS NULL OR resource NOT IN (${list(CLASSIFIED_RESOURCES)})
  OR (resource = 'activity' AND (activity_state IS NULL OR activity_state NOT IN (${list(CLASSIFIED_ACTIVITY_STATES)}))))`;
