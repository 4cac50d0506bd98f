/**
 * The root logger (the only pino and pino-pretty import). Redaction is set once here: tokens,
 * passwords, authorization headers and biometric template bytes never reach a log.
 *
 * Format: an operator at a terminal reads lines (pino-pretty, colours); anything else
 * (a pipe, journald, a log shipper) gets one JSON object per line. BIOGATE_LOG_FORMAT forces either.
 */
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

export type Logger = PinoLogger;

/**
 * Paths removed from every log line. pino cannot redact "at any depth", so each
 * sensitive key is listed at the top level, one level down (`*.token`) and two
 * levels down (`*.*.token`), which covers what BioGate logs (request headers,
 * a device or user record inside a context object).
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'token',
  'adminToken',
  'password',
  'comm_key',
  'template',
  'templates',
  'tmp',
  'content',
  'body',
] as const;
export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers["set-cookie"]',
  '*.headers["set-cookie"]',
] as const;

/**
 * Secrets inside text (device lines quoted in a sample, an error message, a URL) that no key path
 * can reach, masked in every serialised line at every level: template bytes after `TMP=` / `Tmp=`
 * (FP, FACE, BIODATA lines [PUSH-v2 §9]), a bearer token, a stream's `access_token` query value.
 * The value ends where the JSON string or the device field ends (quote, backslash of an escaped
 * tab, whitespace, `&`).
 */
const TEXT_SECRETS: readonly [RegExp, string][] = [
  [/(tmp)=[^\s"\\&]+/gi, '$1=[redacted]'],
  [/\b(bearer)(\s+|%20|\+)[^\s"\\&]+/gi, '$1$2[redacted]'],
  [/(access_token)=[^\s"\\&]+/gi, '$1=[redacted]'],
];

/** A serialised log line with the secrets of TEXT_SECRETS masked. */
export function maskLine(line: string): string {
  let out = line;
  for (const [pattern, replacement] of TEXT_SECRETS) out = out.replace(pattern, replacement);
  return out;
}

/** `auto`: human-readable on a TTY, JSON otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  readonly level: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to inspect output. */
  readonly destination?: DestinationStream;
  /** BIOGATE_LOG_FORMAT; `auto` when omitted. */
  readonly format?: LogFormat;
  /** Whether stdout is a terminal (for `auto`); process.stdout.isTTY when omitted. */
  readonly isTTY?: boolean;
  /** Each line written before the call returns (the fatal logger: the process exits right after). */
  readonly sync?: boolean;
}

/** Whether lines are made human-readable: forced, or `auto` on a terminal. */
export function prettyLogs(format: LogFormat, isTTY: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY);
}

export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.level !== 'silent' && prettyLogs(options.format ?? 'auto', options.isTTY ?? Boolean(process.stdout.isTTY));
  return pino(
    {
      level: options.level,
      base: { service: 'biogate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      hooks: { streamWrite: maskLine },
      formatters: { level: (label) => ({ level: label }) },
    },
    // pino-pretty as a stream in this thread (not a worker transport): redaction has run already, and
    // lines written just before exit are not lost.
    pretty
      ? pinoPretty({
          colorize: true,
          singleLine: true,
          translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
          ignore: 'pid,hostname,service',
          sync: true,
          ...(options.destination ? { destination: options.destination } : {}),
        })
      : (options.destination ?? pino.destination({ sync: options.sync ?? false })),
  );
}

/** What an access-log line says about one API request. */
export interface AccessEntry {
  readonly reqId: string | undefined;
  readonly method: string;
  /** The route pattern (`/api/users/:pin`), never the path: no PINs or serials, bounded cardinality. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  /** The location the caller's token belongs to; absent before authentication (a 401). */
  readonly location: number | undefined;
}

/**
 * One info line per API (and admin API) request. Device traffic (/iclock: polls every
 * few seconds per terminal), health probes and /metrics are not logged at info (volume); they are
 * counted in /metrics, and every request has a debug line. Never a header, so never a token.
 */
export function createAccessLog(logger: Logger): (entry: AccessEntry) => void {
  return (e) => {
    if (!e.route.startsWith('/api/') && !e.route.startsWith('/admin/')) return;
    logger.info(
      {
        reqId: e.reqId,
        method: e.method,
        route: e.route,
        status: e.status,
        ms: Math.round(e.seconds * 1e4) / 10,
        ...(e.location !== undefined ? { location: e.location } : {}),
      },
      `${e.method} ${e.route} ${e.status}`,
    );
  };
}
