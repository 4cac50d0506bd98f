/**
 * Who may touch which topic on the embedded broker: pure rules, no I/O, so the
 * broker hooks (embedded.ts) stay thin and the rules are tested on their own.
 *
 * A location client lives under `<base>/<its location id>/`. It may subscribe there, to the
 * bridge state and to the Home Assistant discovery tree (forwarding then filters discovery
 * messages to its own terminals). Everything else under its prefix is BioGate's output, so the
 * only topic a client may publish to is `request/command`; anything else is dropped, or a client
 * could forge a terminal's availability for the other dashboards of its location.
 */
/** Who is logged in: the admin (every location) or one location, with its token's scope. */
export type Identity =
  | { readonly kind: 'admin' }
  | { readonly kind: 'location'; readonly locationId: number; readonly tokenId: number; readonly scope: string; readonly token: string };

export const REQUEST_COMMAND = 'request/command';
export const RESPONSE_COMMAND = 'response/command';
/** Home Assistant's default discovery prefix; HA subscribes to `homeassistant/#`. */
export const HA_PREFIX = 'homeassistant';

export interface Topics {
  readonly base: string;
  /** `<base>/<loc>/<relative>` */
  location(locationId: number, relative: string): string;
  readonly bridgeState: string;
  /** `<base>/<loc>/request/command` → loc; otherwise undefined. */
  requestLocation(topic: string): number | undefined;
  /** The location of a topic under `<base>/<loc>/` or of a discovery topic BioGate wrote; undefined for others. */
  locationOf(topic: string): number | undefined;
}

const LOCATION_ID = /^[1-9][0-9]{0,15}$/;
/** Discovery node ids are `biogate_<loc>_<sn>` (ha-discovery.ts). */
const HA_NODE = /^homeassistant\/[^/]+\/biogate_([1-9][0-9]{0,15})_[^/]+\//;

export function topicsFor(base: string): Topics {
  const depth = base.split('/').length;
  const locationAt = (topic: string): number | undefined => {
    const parts = topic.split('/');
    if (parts.length <= depth + 1 || parts.slice(0, depth).join('/') !== base) return undefined;
    const id = parts[depth] as string;
    return LOCATION_ID.test(id) ? Number(id) : undefined;
  };
  return {
    base,
    location: (locationId, relative) => `${base}/${locationId}/${relative}`,
    bridgeState: `${base}/bridge/state`,
    requestLocation(topic) {
      const loc = locationAt(topic);
      return loc !== undefined && topic === `${base}/${loc}/${REQUEST_COMMAND}` ? loc : undefined;
    },
    locationOf(topic) {
      const ha = HA_NODE.exec(topic);
      if (ha) return Number(ha[1]);
      return locationAt(topic);
    },
  };
}

/** Whether `identity` may subscribe to `filter` (else SUBACK 0x80 [MQTT-3.9.3]). */
export function maySubscribe(topics: Topics, identity: Identity, filter: string): boolean {
  if (identity.kind === 'admin') return true;
  if (filter === topics.bridgeState) return true;
  // The discovery tree holds every location's terminals; forwarding (mayReceive) filters it.
  if (filter.startsWith(`${HA_PREFIX}/`) || filter === HA_PREFIX) return true;
  const own = `${topics.base}/${identity.locationId}`;
  // A filter under the own prefix cannot match another location's topic: the location level is literal.
  return filter === `${own}/#` || filter.startsWith(`${own}/`);
}

/** Whether a message on `topic` may reach `identity` (checked for every delivery, retained ones too). */
export function mayReceive(topics: Topics, identity: Identity, topic: string): boolean {
  if (identity.kind === 'admin') return true;
  if (topic === topics.bridgeState) return true;
  return topics.locationOf(topic) === identity.locationId;
}

export type PublishDecision = { readonly kind: 'request'; readonly locationId: number } | { readonly kind: 'drop' };

/** A client publish: a command request of a location it may act for, or dropped. */
export function publishDecision(topics: Topics, identity: Identity, topic: string): PublishDecision {
  const loc = topics.requestLocation(topic);
  if (loc === undefined) return { kind: 'drop' };
  if (identity.kind === 'admin' || identity.locationId === loc) return { kind: 'request', locationId: loc };
  return { kind: 'drop' };
}
