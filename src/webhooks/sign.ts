/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the one door to the
 * `standardwebhooks` package, so receivers can verify with any library of that specification.
 *
 *   webhook-signature: v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>
 *
 * where key is the base64 part of `whsec_<base64>`. During a rotation the header carries one
 * signature per valid secret, space separated (the specification's way to rotate without downtime).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const PREFIX = 'whsec_';
/** 32 random bytes: within the specification's 24–64 byte range. */
const SECRET_BYTES = 32;

export function newSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The `webhook-signature` header value: `v1,<sig>` per secret, space separated. */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
}
