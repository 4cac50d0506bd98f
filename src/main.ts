/**
 * Process entry: config, logger, app, signals. The only place that calls
 * process.exit.
 */
import { buildApp } from './app.js';
import { runCommand, type CliIo } from './cli/commands.js';
import { ConfigError, loadConfig } from './config/load.js';
import { StoreSchemaNewerError } from './errors.js';
import { createLogger, type Logger, type LoggerOptions } from './log.js';
import { ListenError } from './http/server.js';
import { UwsUnavailableError } from './http/uws.js';

/** After the grace period, the rest of the shutdown (listener, runtime, store) gets this long. */
const SHUTDOWN_MARGIN_MS = 2_000;
/** Closing the store on the forced paths may take this long. */
const STORE_CLOSE_MS = 3_000;

/**
 * An error nothing caught (a throw in a callback, a rejection nobody awaited) ends the process, as
 * Node would, but first says so in the log: through a logger whose writes are synchronous, so the
 * line is out before process.exit (the gateway's own logger buffers). Returns the uninstaller.
 */
export function installFatalHandlers(options: LoggerOptions, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const fatal: Logger = createLogger({ ...options, level: 'fatal', sync: true });
  const onError = (origin: 'uncaughtException' | 'unhandledRejection') => (err: unknown) => {
    try {
      fatal.fatal({ err, origin }, `${origin}: the gateway stops`);
    } finally {
      exit(1);
    }
  };
  const uncaught = onError('uncaughtException');
  const unhandled = onError('unhandledRejection');
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', unhandled);
  return () => {
    process.off('uncaughtException', uncaught);
    process.off('unhandledRejection', unhandled);
  };
}

export async function serve(io: CliIo): Promise<number> {
  const config = loadConfig({ env: io.env });
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  installFatalHandlers({ level: config.logLevel, format: config.logFormat });
  const app = await buildApp({ config, logger, announce: (text) => io.stdout.write(text + '\n') });
  let port: number;
  try {
    ({ port } = await app.start());
  } catch (err) {
    await app.close(); // releases the store (and the listener, if any) before main() reports the error
    throw err;
  }
  const scheme = config.tlsCert ? 'https' : 'http';
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `${scheme}://${shown}:${port}`;
  io.stdout.write(
    `BioGate listening on ${base} (store: ${app.store.kind}; API under /api, devices under /iclock; console ${base}/console/, API docs ${base}/api/docs)\n`,
  );

  const graceMs = config.shutdownGraceS * 1000;
  return new Promise<number>((resolve) => {
    let stopping = false;
    let drainTimer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      logger.flush();
      resolve(code);
    };
    /** Closes the store (bounded in time): the process exits after it either way. */
    const closeStoreNow = async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          app.store.close(),
          new Promise(
            (_, reject) => (timer = setTimeout(() => reject(new Error(`store did not close within ${STORE_CLOSE_MS} ms`)), STORE_CLOSE_MS)),
          ),
        ]);
      } catch (err) {
        logger.error({ err }, 'closing the store failed');
      } finally {
        clearTimeout(timer);
      }
    };
    const stop = (signal: string) => {
      if (drainTimer) {
        // A second signal during the drain: the shutdown starts now.
        clearTimeout(drainTimer);
        drainTimer = undefined;
        shutDown(signal);
        return;
      }
      if (stopping) {
        // An operator who insists: no more waiting, but the store is closed cleanly first.
        logger.warn({ signal }, 'second signal: closing the store and exiting now');
        void closeStoreNow().then(() => finish(1));
        return;
      }
      stopping = true;
      // SIGTERM is a supervisor's (systemd, Kubernetes): drain first, so /readyz reads 503 before the port closes.
      const drainMs = signal === 'SIGTERM' ? config.shutdownDrainS * 1000 : 0;
      if (drainMs > 0) {
        logger.info({ signal, drainS: config.shutdownDrainS }, 'draining: /readyz answers 503 until the shutdown');
        app.drain();
      }
      if (drainMs === 0) return shutDown(signal);
      drainTimer = setTimeout(() => {
        drainTimer = undefined;
        shutDown(signal);
      }, drainMs);
    };
    const shutDown = (signal: string) => {
      logger.info({ signal, graceS: config.shutdownGraceS }, 'shutting down');
      // BIOGATE_SHUTDOWN_GRACE_S bounds the whole shutdown: work a long request left running
      // (a big upload still being stored, a slow store) does not hold the process past it.
      const deadline = setTimeout(() => {
        logger.warn({ graceS: config.shutdownGraceS }, 'shutdown grace period over: closing the store and exiting');
        void closeStoreNow().then(() => finish(0));
      }, graceMs + SHUTDOWN_MARGIN_MS);
      app.close().then(
        () => {
          clearTimeout(deadline);
          logger.info('stopped');
          finish(0);
        },
        (err: unknown) => {
          clearTimeout(deadline);
          logger.error({ err }, 'shutdown failed');
          finish(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}

/** `biogate simulate …`: terminal emulators against a running BioGate; Ctrl-C prints the summary. */
async function simulate(argv: readonly string[], io: CliIo): Promise<number> {
  const { simulateCommand } = await import('./simulator/index.js');
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await simulateCommand([...argv], { stdout: io.stdout, stderr: io.stderr, isTTY: io.isTTY, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function main(argv: readonly string[]): Promise<never> {
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, isTTY: Boolean(process.stdout.isTTY) };
  // A reader that stops early (`biogate config | head`) closes the pipe: a command's output ends there, quietly.
  // `serve` keeps its default: its stdout is the log, and losing it is the supervisor's to see.
  if (argv[0] !== 'serve')
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  let code: number;
  try {
    // Bare `biogate` and every --help print help; only `biogate serve` starts the gateway.
    code = await runCommand(argv, io, { serve: () => serve(io), simulate: (rest) => simulate(rest, io) });
  } catch (err) {
    if (
      err instanceof ConfigError ||
      err instanceof UwsUnavailableError ||
      err instanceof ListenError ||
      err instanceof StoreSchemaNewerError
    )
      io.stderr.write(`biogate: ${err.message}\n`);
    else io.stderr.write(`biogate: fatal: ${(err as Error).stack ?? String(err)}\n`);
    code = 1;
  }
  // Let stdout drain before exiting (piped output would be cut otherwise).
  await new Promise<void>((resolve) => (process.stdout.write('') ? resolve() : process.stdout.once('drain', resolve)));
  process.exit(code);
}
