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

/** The classes an SQL expression of MOVEMENT_SQL gives, by their number there; `other` has none (see MOVEMENT_SQL). */
export const MOVEMENT_CODES: ReadonlyArray<Exclude<Movement, 'other'> | typeof APPROVAL> = ['earned', 'reversed', 'redeemed', 'reimbursed', 'expired', APPROVAL];
const code = (movement: (typeof MOVEMENT_CODES)[number]): number => MOVEMENT_CODES.indexOf(movement);

/** A transaction's points as the sums count them: a field the API left out adds nothing, and decides no sign. */
const APPROVED = 'coalesce(points_approved, 0)';
const PENDING = 'coalesce(points_pending, 0)';
const TOTAL = `(${APPROVED} + ${PENDING})`;

/**
 * The class of a `transactions` row as an SQL expression: its number in MOVEMENT_CODES, or, for a row of a
 * resource or activity state the ledger does not classify (`other`, exactly the rows UNCLASSIFIED_SQL names), a JSON
 * array of that resource and state for the schema drift. A number costs a build less to hand to JavaScript than
 * text, and the drift needs no test of its own this way. The rule's name is read from `raw` only for the few
 * removals that could be expiries, so the common rows cost no JSON parsing. An expiry is an activity whose rule
 * names an expiration (the spec lists point expirations among what activities do, without naming the rule).
 * A voided or declined activity has one transaction that added points and one that removed them (the spec), and
 * the spec does not say whether the activity a transaction embeds is as it was then or as it is now: so the
 * state alone cannot tell them apart, and the signs do (the one that added points is an earning, whenever it was
 * read). An approval moves points from pending to approved whatever state its activity shows: `pending` too, when the
 * transaction embeds the activity as it was the moment before the approval took effect.
 */
export const MOVEMENT_SQL = `CASE
  WHEN resource = 'activity' THEN CASE
    WHEN activity_state NOT IN (${list(CLASSIFIED_ACTIVITY_STATES)}) OR activity_state IS NULL THEN json_array(resource, activity_state)
    WHEN ${PENDING} < 0 AND ${APPROVED} = -${PENDING} THEN ${code(APPROVAL)}
    WHEN ${TOTAL} >= 0 THEN ${code('earned')}
    WHEN activity_state IN ('void', 'declined') THEN ${code('reversed')}
    WHEN lower(json_extract(raw, '$.activity.rule.name')) LIKE '%expir%' THEN ${code('expired')}
    ELSE ${code('reversed')} END
  WHEN resource = 'claimed_reward' THEN CASE WHEN ${TOTAL} < 0 THEN ${code('redeemed')} ELSE ${code('reimbursed')} END
  WHEN resource = 'points_import' THEN CASE WHEN ${TOTAL} < 0 THEN ${code('reversed')} ELSE ${code('earned')} END
  ELSE json_array(resource, activity_state) END`;

/** Whether a transaction row is unclassified for want of a known resource or state (the drift to record). */
export const UNCLASSIFIED_SQL = `(resource IS NULL OR resource NOT IN (${list(CLASSIFIED_RESOURCES)})
  OR (resource = 'activity' AND (activity_state IS NULL OR activity_state NOT IN (${list(CLASSIFIED_ACTIVITY_STATES)}))))`;
