/**
 * Where a stream client's token may be: the Authorization header (any client that sets
 * headers), `Sec-WebSocket-Protocol: bearer, <token>` (browsers cannot set headers on a WebSocket;
 * the server then echoes `bearer`), or `?access_token=` (last resort: URLs end up in proxy logs).
 * One token is checked by the same authenticate() the REST API uses.
 */
import { authenticate, type Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { WebSocketUpgrade } from '../http/types.js';
import type { Store } from '../store/types.js';

export const BEARER_PROTOCOL = 'bearer';

export interface StreamCaller {
  readonly caller: Caller;
  /** The `Authorization` value that authenticated, kept to re-check the token while connected (never logged). */
  readonly authorization: string;
  /** `bearer` when the token came as a subprotocol (it must be echoed), else none. */
  readonly protocol: string | undefined;
}

export async function authenticateUpgrade(store: Store, clock: Clock, req: WebSocketUpgrade): Promise<StreamCaller> {
  const fromHeader = req.headers['authorization'];
  const at = req.protocols.indexOf(BEARER_PROTOCOL);
  const fromProtocol = at >= 0 ? req.protocols[at + 1] : undefined;
  const fromQuery = req.query.get('access_token') ?? undefined;
  const given = [fromHeader, fromProtocol, fromQuery].filter((v) => v !== undefined);
  if (given.length > 1) {
    throw new BioGateError(
      'UNAUTHORIZED',
      'Give the token once: Authorization header, Sec-WebSocket-Protocol "bearer, <token>" or ?access_token=',
      {
        headers: { 'WWW-Authenticate': 'Bearer realm="biogate"' },
      },
    );
  }
  if (at >= 0 && fromProtocol === undefined) {
    throw new BioGateError('UNAUTHORIZED', 'Sec-WebSocket-Protocol "bearer" must be followed by the token', {
      headers: { 'WWW-Authenticate': 'Bearer realm="biogate"' },
    });
  }
  const authorization = fromHeader ?? ((fromProtocol ?? fromQuery) ? `Bearer ${fromProtocol ?? fromQuery}` : undefined);
  const caller = await authenticate(store, authorization, clock.now());
  return { caller, authorization: authorization as string, protocol: fromProtocol !== undefined ? BEARER_PROTOCOL : undefined };
}
