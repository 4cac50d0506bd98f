/**
 * `biogate doctor`: what a new operator gets wrong, checked before `biogate serve` finds
 * out the hard way. Each check says what it found in plain words and, when something is wrong,
 * what to do about it. Checks never change anything: no migration, no file created, a port only
 * bound for a moment and released.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import type { Clock } from '../clock.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { resolveHttpEngine } from '../http/engine.js';
import type { HttpEngineChoice } from '../http/types.js';
import { loadUwsBuild, UWS_PLATFORMS, UwsUnavailableError } from '../http/uws.js';
import { sqliteStatus } from '../store/maintenance.js';
import { openStore } from '../store/open.js';
import { probeBioGate } from './probe.js';

export type CheckStatus = 'ok' | 'warning' | 'problem' | 'skipped';

export interface CheckResult {
  /** Short name: `config`, `store`, `port 8080`, … */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found. */
  readonly detail: string;
  /** What to do, when status is problem or warning. */
  readonly fix?: string;
}

const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail });
const problem = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'problem', detail, fix });
const warning = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'warning', detail, fix });

/** How long the store may take to answer before doctor calls it unreachable. */
const STORE_TIMEOUT_MS = 10_000;
/** A certificate that expires sooner than this is a warning. */
const CERT_WARN_DAYS = 14;

export function checkConfig(env: NodeJS.ProcessEnv): { result: CheckResult; config?: Config } {
  try {
    const config = loadConfig({ env });
    return { result: ok('config', 'every BIOGATE_* setting is valid'), config };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return {
      result: problem(
        'config',
        `invalid settings: ${err.problems.join('; ')}`,
        'correct the variables named above (README "Configuration" lists each with its range); the other checks need a valid configuration',
      ),
    };
  }
}

/** Connects, and for SQLite reads the schema version without migrating. */
export async function checkStore(config: Config): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const shown = config.store.replace(/\/\/[^@/]*@/, '//***@');
  if (config.store.startsWith('sqlite:')) {
    const path = config.store.slice('sqlite:'.length);
    if (path === ':memory:')
      return [warning('store', 'sqlite::memory: keeps nothing across restarts', 'use sqlite:<path> (or MongoDB) for anything but a trial')];
    if (!existsSync(path)) {
      const dir = firstExisting(dirname(resolve(path)));
      // A file where a directory must be (sqlite:/srv/config.yaml/biogate.db): the start's mkdir fails.
      if (!statSync(dir).isDirectory())
        return [
          problem(
            'store',
            `${path} cannot be created: ${dir} is a file, not a directory`,
            `point BIOGATE_STORE at a path whose directories are directories (or can be created)`,
          ),
        ];
      try {
        accessSync(dir, constants.W_OK);
        return [ok('store', `${path} does not exist yet; BioGate creates it at start (${dir} is writable)`)];
      } catch {
        return [
          problem(
            'store',
            `${path} does not exist and ${dir} is not writable, so BioGate cannot create it`,
            `create the directory and give the BioGate user write access, or point BIOGATE_STORE at a writable path`,
          ),
        ];
      }
    }
    if (statSync(path).isDirectory())
      return [
        problem(
          'store',
          `${path} is a directory, not a database file`,
          'point BIOGATE_STORE at a file, for example sqlite:/var/lib/biogate/biogate.db',
        ),
      ];
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch {
      return [
        problem(
          'store',
          `${path} is not readable and writable by this user`,
          `give the BioGate user read and write access to ${path} and its directory`,
        ),
      ];
    }
    try {
      const s = await sqliteStatus(config.store);
      if (!s) return [ok('store', `${path} is reachable`)];
      if (s.check !== 'ok')
        results.push(
          problem('store', `${path} is damaged: ${s.check}`, 'stop BioGate and restore the last backup: biogate restore --in FILE --force'),
        );
      else if (s.version > s.latest)
        results.push(
          problem(
            'store',
            `${path} has schema version ${s.version}, newer than this BioGate (${s.latest})`,
            'run the BioGate version that last used this store, or restore a backup made by this version',
          ),
        );
      else if (s.version === 0)
        results.push(
          problem(
            'store',
            `${path} is a SQLite file but not a BioGate store`,
            'point BIOGATE_STORE at the BioGate database (or at a new file)',
          ),
        );
      else if (s.version < s.latest)
        results.push(
          ok('store', `${path}: schema version ${s.version}; ${s.latest - s.version} newer migration(s) are applied at the next start`),
        );
      else results.push(ok('store', `${path}: reachable, schema version ${s.version} (current), quick check ok`));
    } catch (err) {
      results.push(
        problem(
          'store',
          `${path} cannot be read: ${(err as Error).message}`,
          'check the file is a BioGate SQLite database; restore a backup if it is damaged',
        ),
      );
    }
    return results;
  }
  // MongoDB: connect and ping, bounded in time (an unreachable server otherwise waits for the driver's 30 s).
  let timer: NodeJS.Timeout | undefined;
  try {
    const store = await Promise.race([
      openStore(config.store),
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS / 1000} s`)), STORE_TIMEOUT_MS)),
      ),
    ]);
    try {
      await store.ping();
    } finally {
      await store.close();
    }
    return [ok('store', `MongoDB at ${shown} answers (no versioned schema: indexes are ensured at start)`)];
  } catch (err) {
    return [
      problem(
        'store',
        `MongoDB at ${shown} cannot be reached: ${(err as Error).message}`,
        'start MongoDB or correct BIOGATE_STORE (host, port, credentials, replicaSet); test it with: mongosh "<your URL>" --eval "db.runCommand({ping: 1})"',
      ),
    ];
  } finally {
    clearTimeout(timer);
  }
}

function firstExisting(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/** Binds `host:port` for a moment: in use, or not allowed, is found now instead of at start. */
export function checkPort(
  name: string,
  host: string,
  port: number,
  setting: string,
  /** Whether a running BioGate holds the port: its /readyz status, or null (see ./probe.ts). */
  own?: () => Promise<string | null>,
): Promise<CheckResult> {
  if (port === 0) return Promise.resolve(ok(name, `${setting}=0: a free port is picked at start`));
  return new Promise((done) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        // BioGate itself listening there is what a doctor run beside a running gateway sees: no problem.
        const running = own ? own() : Promise.resolve(null);
        void running.then((status) =>
          done(
            status === null
              ? problem(
                  name,
                  `${host}:${port} is already in use`,
                  `stop what listens there (is BioGate already running? see: ss -ltnp 'sport = :${port}') or set ${setting} to a free port`,
                )
              : ok(name, `${host}:${port} is served by a running BioGate (its /readyz: ${status})`),
          ),
        );
        return;
      }
      if (err.code === 'EACCES') {
        done(
          problem(
            name,
            `not allowed to listen on port ${port} (ports below 1024 need privileges)`,
            `set ${setting} to 1024 or above and put a reverse proxy in front, or grant CAP_NET_BIND_SERVICE`,
          ),
        );
      } else if (err.code === 'EADDRNOTAVAIL') {
        done(
          problem(
            name,
            `${host} is not an address of this machine`,
            `set BIOGATE_HOST to one of this machine's addresses (0.0.0.0 for all)`,
          ),
        );
      } else done(problem(name, `cannot listen on ${host}:${port}: ${err.message}`, `check BIOGATE_HOST and ${setting}`));
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => done(ok(name, `${host}:${port} is free`))));
  });
}

/**
 * Which HTTP engine `biogate serve` will use (BIOGATE_HTTP_ENGINE). uWebSockets.js not loading is
 * only a warning under `auto` (the node:http engine takes over), a problem when `uws` is forced.
 */
export function checkHttpEngine(choice: HttpEngineChoice): CheckResult {
  const where = `Node ${process.versions.node}, ${process.platform}/${process.arch}`;
  try {
    const { engine, fallback, reason } = resolveHttpEngine(choice);
    if (engine === 'uws') return ok('http engine', `uws: uWebSockets.js ${loadUwsBuild().version} loads (${where})`);
    if (!fallback) return ok('http engine', `node: node:http, as BIOGATE_HTTP_ENGINE=node asks (${where})`);
    return warning(
      'http engine',
      `node: uWebSockets.js does not load here (${reason.replace(/^auto: /, '')}), so the node:http engine serves (the same API and device endpoints)`,
      `for the uWebSockets.js engine, reinstall with "npm ci" on a supported platform (${UWS_PLATFORMS}); or set BIOGATE_HTTP_ENGINE=node to choose node:http deliberately`,
    );
  } catch (err) {
    if (!(err instanceof UwsUnavailableError)) throw err;
    return problem(
      'http engine',
      `BIOGATE_HTTP_ENGINE=uws, but uWebSockets.js does not load here: ${err.reason} (${where})`,
      `set BIOGATE_HTTP_ENGINE=auto or node to use the node:http engine, or reinstall with "npm ci" on a supported platform (${UWS_PLATFORMS})`,
    );
  }
}

/** Certificate and key readable, parseable, belonging together, and not expired. */
export function checkTls(config: Config, clock: Clock): CheckResult {
  const { tlsCert, tlsKey } = config;
  if (!tlsCert && !tlsKey) return ok('tls', 'off (plain HTTP; put TLS on a reverse proxy or set BIOGATE_TLS_CERT and BIOGATE_TLS_KEY)');
  if (!tlsCert || !tlsKey)
    return problem(
      'tls',
      `only ${tlsCert ? 'BIOGATE_TLS_CERT' : 'BIOGATE_TLS_KEY'} is set`,
      'set both BIOGATE_TLS_CERT and BIOGATE_TLS_KEY, or neither',
    );
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    cert = new X509Certificate(readFileSync(tlsCert));
  } catch (err) {
    return problem(
      'tls',
      `the certificate ${tlsCert} cannot be read as PEM: ${(err as Error).message}`,
      'point BIOGATE_TLS_CERT at a readable PEM certificate (the full chain, leaf first)',
    );
  }
  try {
    key = createPrivateKey(readFileSync(tlsKey));
  } catch (err) {
    return problem(
      'tls',
      `the private key ${tlsKey} cannot be read as PEM: ${(err as Error).message}`,
      'point BIOGATE_TLS_KEY at a readable, unencrypted PEM private key',
    );
  }
  if (!cert.checkPrivateKey(key))
    return problem(
      'tls',
      `${tlsKey} is not the key of the certificate ${tlsCert} (${cert.subject.replace(/\n/g, ', ')})`,
      'use the key the certificate was issued for',
    );
  const now = clock.now().getTime();
  const until = new Date(cert.validTo).getTime();
  if (until < now)
    return problem('tls', `the certificate expired on ${new Date(until).toISOString()}`, 'renew the certificate and restart BioGate');
  if (new Date(cert.validFrom).getTime() > now)
    return problem(
      'tls',
      `the certificate is not valid before ${new Date(cert.validFrom).toISOString()}`,
      'check the clock of this machine, or the certificate',
    );
  const days = Math.floor((until - now) / 86_400_000);
  if (days < CERT_WARN_DAYS) return warning('tls', `the certificate expires in ${days} day(s)`, 'renew it soon');
  return ok('tls', `certificate and key match; valid for ${days} more days`);
}

/** Devices stamp punches with the time the gateway gives them: a clock in the past is a real fault. */
export function checkClock(clock: Clock): CheckResult {
  const now = clock.now();
  if (now.getUTCFullYear() < 2024)
    return problem(
      'clock',
      `the system clock says ${now.toISOString()}`,
      'set the clock (enable NTP: timedatectl set-ntp true); terminals take their time from BioGate',
    );
  return ok('clock', `${now.toISOString()} (UTC)`);
}

export function checkMqtt(config: Config): CheckResult {
  if (config.mqtt === 'off') return ok('mqtt', 'off');
  if (config.mqtt === 'embedded') return ok('mqtt', `embedded broker on ${config.mqttHost}:${config.mqttPort}`);
  let url: URL;
  try {
    url = new URL(config.mqtt);
  } catch {
    return problem('mqtt', 'BIOGATE_MQTT is not a valid URL', 'write it as mqtt://host:1883 or mqtts://host:8883');
  }
  if (!url.hostname) return problem('mqtt', 'BIOGATE_MQTT names no host', 'write it as mqtt://host:1883 or mqtts://host:8883');
  if (config.mqttCaFile) {
    try {
      const pem = readFileSync(config.mqttCaFile, 'utf8');
      if (!/-----BEGIN CERTIFICATE-----/.test(pem))
        return problem(
          'mqtt',
          `${config.mqttCaFile} holds no PEM certificate`,
          'point BIOGATE_MQTT_CA_FILE at the PEM file of the CA that signed the broker certificate',
        );
      new X509Certificate(pem);
    } catch (err) {
      return problem(
        'mqtt',
        `the CA file ${config.mqttCaFile} cannot be used: ${(err as Error).message}`,
        'point BIOGATE_MQTT_CA_FILE at a readable PEM file',
      );
    }
    if (url.protocol !== 'mqtts:')
      return warning(
        'mqtt',
        'BIOGATE_MQTT_CA_FILE is set but the broker URL is plain mqtt://',
        'use mqtts:// to connect with TLS, or unset the CA file',
      );
  }
  const port = url.port || (url.protocol === 'mqtts:' ? '8883' : '1883');
  return ok('mqtt', `external broker ${url.protocol}//${url.hostname}:${port}${config.mqttCaFile ? ` (CA ${config.mqttCaFile})` : ''}`);
}

/** Every check, in the order an operator fixes things. Later checks are skipped when the config is invalid. */
export async function runChecks(env: NodeJS.ProcessEnv, clock: Clock): Promise<CheckResult[]> {
  const { result, config } = checkConfig(env);
  const results: CheckResult[] = [result];
  results.push(checkClock(clock));
  // Without a valid config, the engine the environment asks for (an invalid value is the config check's problem).
  const asked = env['BIOGATE_HTTP_ENGINE'];
  results.push(checkHttpEngine(config?.httpEngine ?? (asked === 'uws' || asked === 'node' ? asked : 'auto')));
  if (!config) {
    for (const name of ['store', 'port', 'tls', 'mqtt']) results.push({ name, status: 'skipped', detail: 'needs a valid configuration' });
    return results;
  }
  results.push(...(await checkStore(config)));
  const probe = () => probeBioGate(config.host, config.port, config.tlsCert !== null);
  results.push(await checkPort(`port ${config.port}`, config.host, config.port, 'BIOGATE_PORT', probe));
  // With BioGate answering on its API port, its device and MQTT listeners are the same process's.
  const own = async () => {
    const status = await probe();
    return status === null ? null : `${status}, on port ${config.port}`;
  };
  if (config.devicePort !== null)
    results.push(await checkPort(`device port ${config.devicePort}`, config.host, config.devicePort, 'BIOGATE_DEVICE_PORT', own));
  if (config.mqtt === 'embedded')
    results.push(await checkPort(`mqtt port ${config.mqttPort}`, config.mqttHost, config.mqttPort, 'BIOGATE_MQTT_PORT', own));
  results.push(checkTls(config, clock));
  results.push(checkMqtt(config));
  return results;
}
