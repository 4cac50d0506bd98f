/**
 * The first start on an empty store [API-CONTRACT §7]: one location "Default" and its token, shown once on
 * the console (never through the logger). Nodes starting together on one empty store race here: the
 * bootstrap marker lets exactly one of them create "Default" and print its token; the others do nothing
 * and print nothing. A crash between the marker and the location leaves no "Default"
 * (`biogate location create` makes one).
 */
import type { Clock } from '../clock.js';
import type { IssuedToken, LocationService } from '../locations/service.js';
import type { Logger } from '../log.js';
import type { Location } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

export interface Bootstrap {
  readonly location: Location;
  readonly token: IssuedToken;
}

export async function bootstrapLocation(
  store: Store,
  locations: LocationService,
  nodeId: string,
  clock: Clock,
  logger: Logger,
): Promise<Bootstrap | null> {
  if ((await store.locations.count()) !== 0) return null;
  if (!(await store.locations.claimBootstrap(nodeId, clock.now().toISOString()))) return null;
  const bootstrap = await locations.create({ name: 'Default' });
  logger.info({ location: bootstrap.location.id, token_id: bootstrap.token.id }, 'bootstrap location created');
  return bootstrap;
}

/** The text shown once with the bootstrap token: where to try it. */
export function bootstrapBanner(bootstrap: Bootstrap, listen: { host: string; port: number; tls: boolean }): string {
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? 'localhost' : listen.host;
  const base = `${listen.tls ? 'https' : 'http'}://${host}:${listen.port}`;
  return [
    '',
    `  BioGate bootstrap: created location "Default" (id ${bootstrap.location.id}).`,
    '  Its API token is shown once, now; store it safely:',
    '',
    `    ${bootstrap.token.token}`,
    '',
    `  Try: curl -H "Authorization: Bearer <token>" ${base}/api/me`,
    `  Console (sign in with the token): ${base}/console/`,
    `  API reference: ${base}/api/docs`,
    '',
  ].join('\n');
}
