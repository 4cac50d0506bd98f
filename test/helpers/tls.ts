// Throwaway self-signed certificates for tests that need TLS (HTTPS firmware servers, BioGate's own TLS, doctor's
// certificate checks), made by the openssl command line.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** False when openssl runs here, else the reason to skip a test that needs a certificate. */
export const NO_OPENSSL: false | string =
  spawnSync('openssl', ['version'], { stdio: 'ignore', timeout: 10_000 }).status === 0
    ? false
    : 'openssl is not installed: cannot make a certificate';

export interface CertOptions {
  /** The files' base name in `dir` (`<name>.crt`, `<name>.key`); also the subject CN unless `cn` is given. */
  readonly name?: string;
  readonly cn?: string;
  readonly days?: number;
  /** An EC P-256 key instead of RSA 2048. */
  readonly ec?: boolean;
  /** subjectAltName IP:127.0.0.1 and DNS:localhost, so an HTTPS client checking the name accepts it. */
  readonly localhost?: boolean;
}

/** A self-signed certificate and its key, written into `dir`. */
export function selfSignedCert(dir: string, o: CertOptions = {}): { cert: string; key: string } {
  const name = o.name ?? 'cert';
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...(o.ec ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'] : ['-newkey', 'rsa:2048']),
      '-nodes',
      '-subj',
      `/CN=${o.cn ?? o.name ?? 'localhost'}`,
      ...(o.localhost ? ['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'] : []),
      '-days',
      String(o.days ?? 1),
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore', timeout: 60_000 },
  );
  return { cert, key };
}
