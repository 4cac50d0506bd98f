/**
 * Whether a busy port is BioGate's own: `biogate doctor` run beside a running gateway must not call
 * its port a problem. A BioGate answers GET /readyz with JSON naming its store (src/ops/routes.ts);
 * anything else (no answer, another server, another body) is not taken for one.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const PROBE_TIMEOUT_MS = 2000;
const MAX_BODY = 4096;

/** The running BioGate's /readyz status ("ready", "draining", …), or null when `host:port` is not a BioGate. */
export function probeBioGate(host: string, port: number, tls: boolean): Promise<string | null> {
  const target = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(status);
    };
    const send = tls ? httpsRequest : httpRequest;
    const req = send(
      // A self-signed certificate is the norm on a first install; only the body is read, never trusted.
      { host: target, port, path: '/readyz', method: 'GET', rejectUnauthorized: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (body.length > MAX_BODY) done(null);
        });
        res.on('end', () => done(readiness(body)));
        res.on('error', () => done(null));
      },
    );
    // One deadline for the whole exchange (connect, TLS handshake, answer): a listener that never answers is not BioGate.
    const timer = setTimeout(() => done(null), PROBE_TIMEOUT_MS);
    req.on('error', () => done(null));
    req.end();
  });
}

function readiness(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { status?: unknown; store?: unknown };
    if (typeof parsed.status !== 'string') return null;
    // "ready" and "store unreachable" name the store; "draining" and "stopping" are a BioGate on its way out.
    if (typeof parsed.store === 'string' || parsed.status === 'draining' || parsed.status === 'stopping') return parsed.status;
    return null;
  } catch {
    return null;
  }
}
