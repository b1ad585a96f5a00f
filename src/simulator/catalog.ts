import type { Flow, Rule, Tier } from './model.js';

/** Names mix plain ASCII with accents, scripts, quotes, commas and apostrophes so that exports are tested on them. */
export const FIRST_NAMES = ['Ava', 'Zoë', 'José', 'Åsa', 'Björn', 'Chloé', 'Liam', 'Noah', 'Mia', 'Sofía', 'Łukasz', 'Ngozi', 'Hiroshi', '美咲', 'Olivia', 'Renée', 'Mateo', 'Aaliyah', "D'Andre", 'François'];
export const LAST_NAMES = ["O'Brien", 'Smith', 'Müller', 'García', 'Nguyễn', 'Kowalski', 'Smith-Jones', 'Van der Berg', 'Dubois', '田中', 'Okafor', 'Johansson', 'Rossi', 'Ødegård', 'Brown, Jr.', 'Lee'];
/** Guaranteed on the first customer, so even a tiny data set holds every awkward character at once. */
export const AWKWARD_DISPLAY_NAME = 'Zoë "Zee" O\'Brien, Jr.';
export const NOTES = ['Prefers email,\nnot SMS', 'VIP since "launch day"', 'Ask for José; speaks español', 'Allergic to latex, ships to P.O. box', 'Tab\tseparated\tnote', '🎁 gift buyer'];
const REASONS = [
  'Goodwill credit, order #1042 arrived late',
  'Compensation for "damaged" parcel',
  'Birthday bonus 🎂',
  'Migrated from legacy program\nbalance carried over',
  "Customer service: Zoë's complaint",
  'Correction, duplicate credit',
];
export const REVIEW_TEXTS = [
  'Great fit, would buy again.',
  'Colour was "off-white", not white, but still nice.',
  'Très bien ! Livraison rapide.',
  'Broke after a week,\nsupport was helpful though.',
  'Five stars — comfy, warm, and cheap.',
];
export const GATEWAYS = ['shopify_payments', 'paypal', 'gift_card', 'manual, cash'];
export const FULFILLMENT_STATUSES: readonly (string | null)[] = ['fulfilled', 'fulfilled', 'fulfilled', 'unfulfilled', 'partial', null];
export const SOURCE_NAMES = ['web', 'pos', 'shopify_draft_order', 'iphone'];
/** 'At Risk' is the spec's one given value; the rest play the part of the values it does not show. */
export const INSIGHT_SEGMENTS = ['At Risk', 'At Risk', 'Champions', 'New Customers'];

export const RULES = {
  order: { id: 101, name: 'placed an order', title: 'Place an order' },
  enrollment: { id: 102, name: 'enrolled in program', title: 'Join our program' },
  review: { id: 103, name: 'submitted a review', title: 'Write a review' },
  birthday: { id: 104, name: 'celebrated a birthday', title: 'Birthday reward' },
  manual: { id: 105, name: 'manual adjustment', title: 'Manual adjustment' },
  expiration: { id: 106, name: 'points expiration', title: 'Points expired' },
} satisfies Record<string, Rule>;

export const FLOWS: readonly Flow[] = [
  { id: 7001, journey_id: 301, name: 'Welcome journey', block_id: 'blk_welcome_01' },
  { id: 7002, journey_id: 302, name: 'Post-purchase, "thank you" flow', block_id: 'blk_thanks_02' },
  { id: 7003, journey_id: 303, name: 'Reviews → points', block_id: 'blk_reviews_03' },
];

export const TIERS: readonly Tier[] = [
  { id: 11, name: 'Bronze', number: 1, default: true, hidden: false, lower_bound: '0', upper_bound: '499', position: 0 },
  { id: 12, name: 'Silver', number: 2, default: false, hidden: false, lower_bound: '500', upper_bound: '1999', position: 1 },
  { id: 13, name: 'Gold', number: 3, default: false, hidden: false, lower_bound: '2000', upper_bound: '', position: 2 },
  { id: 14, name: 'Staff & Friends', number: 4, default: false, hidden: true, lower_bound: '0', upper_bound: '', position: 3 },
];

export const REWARD_TEMPLATES = [
  { title: '$5 off', description: 'Five dollars off, any order', discount: 5, minimumSpend: 0 },
  { title: 'Free shipping', description: 'Free standard shipping, "any" size', discount: 0, minimumSpend: 20 },
  { title: '$10 off', description: 'Ten dollars off orders over $50', discount: 10, minimumSpend: 50 },
  { title: 'Tote bag «Classic»', description: 'A canvas tote,\nwhile stocks last', discount: 0, minimumSpend: 0 },
  { title: '15% off', description: 'Fifteen percent off your next order', discount: 15, minimumSpend: 0 },
];

export const PROGRAM_ID = 4242;
export const ACCOUNT_ID = 1717;
export const SITE_ID = 88;
/** A partner platform the simulated program supports but which holds no reviews: requests to it are valid and find nothing. */
export const EMPTY_PARTNER_PLATFORM = 'judgeme';
export const CUSTOM_PLATFORM = 'custom';

/** Manual adjustments show their reason as the rule title; one shared rule per reason keeps a million rows cheap. */
export const MANUAL_RULES: readonly Rule[] = REASONS.map((title) => ({ ...RULES.manual, title }));
