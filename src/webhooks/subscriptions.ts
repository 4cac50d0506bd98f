/**
 * Subscribing a URL to a location's events (/api/webhooks and `biogate webhook create`): the doors
 * check the URL policy and the bound per location, each wording the refusal for its caller; this
 * makes the secret and starts the subscription at the location's latest feed seq.
 */
import type { Store } from '../store/types.js';
import type { WebhookShape, WebhookSubscription } from '../store/ports/index.js';
import { newSecret } from './sign.js';

/** Subscriptions per location (bounded, like everything else). */
export const MAX_WEBHOOKS_PER_LOCATION = 20;

export interface SubscriptionInput {
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly attendance_batch: number;
  /** filter, format and headers (checked by the door: src/api/webhook-shape.ts); absent: the standard envelope of every event. */
  readonly shape?: Partial<WebhookShape>;
}

/** The stored subscription and its signing secret (shown to the caller once). */
export async function subscribe(
  store: Store,
  locationId: number,
  input: SubscriptionInput,
  now: string,
): Promise<{ subscription: WebhookSubscription; secret: string }> {
  const secret = newSecret();
  // Events from now on: the cursor starts at the location's latest feed seq.
  const cursor = (await store.cluster.latestSeqs()).get(locationId) ?? 0;
  const subscription = await store.webhooks.create(
    {
      location_id: locationId,
      url: input.url,
      events: [...input.events],
      description: input.description,
      secret,
      attendance_batch: input.attendance_batch,
      cursor,
      ...input.shape,
    },
    now,
  );
  return { subscription, secret };
}
