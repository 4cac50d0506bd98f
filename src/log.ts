/**
 * The root logger (the only pino import). Redaction is set once here: tokens,
 * passwords, authorization headers and biometric template bytes never reach a log.
 */
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;

/**
 * Paths removed from every log line. pino cannot redact "at any depth", so each
 * sensitive key is listed at the top level, one level down (`*.token`) and two
 * levels down (`*.*.token`), which covers what BioGate logs (request headers,
 * a device or user record inside a context object).
 */
const SECRET_KEYS = ['authorization', 'cookie', 'token', 'adminToken', 'password', 'comm_key', 'template', 'templates', 'tmp', 'content', 'body'] as const;
export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers["set-cookie"]',
  '*.headers["set-cookie"]',
] as const;

export interface LoggerOptions {
  readonly level: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to inspect output. */
  readonly destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'biogate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
