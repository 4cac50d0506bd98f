/** Bounds on webhook subscriptions, shared by /api/webhooks and `biogate webhook`. */

/** Subscriptions per location (bounded, like everything else). */
export const MAX_WEBHOOKS_PER_LOCATION = 20;
