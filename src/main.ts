/**
 * Process entry: config, logger, app, signals. The only place that calls
 * process.exit.
 */
import { buildApp } from './app.js';
import { runCommand, type CliIo } from './cli/commands.js';
import { ConfigError, loadConfig } from './config/load.js';
import { createLogger } from './log.js';
import { ListenError } from './http/server.js';
import { UwsUnavailableError } from './http/uws.js';

export async function serve(io: CliIo): Promise<number> {
  const config = loadConfig({ env: io.env });
  const logger = createLogger({ level: config.logLevel });
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
  io.stdout.write(`BioGate listening on ${scheme}://${shown}:${port} (store: ${app.store.kind}; API under /api, devices under /iclock)\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting now');
        resolve(1);
        return;
      }
      stopping = true;
      logger.info({ signal }, 'shutting down');
      app.close().then(
        () => {
          logger.info('stopped');
          logger.flush();
          resolve(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          resolve(1);
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
  let code: number;
  try {
    if (argv[0] === 'simulate') code = await simulate(argv.slice(1), io);
    else code = argv[0] === 'serve' || argv.length === 0 ? await serve(io) : await runCommand(argv, io);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UwsUnavailableError || err instanceof ListenError) io.stderr.write(`biogate: ${err.message}\n`);
    else io.stderr.write(`biogate: fatal: ${(err as Error).stack ?? String(err)}\n`);
    code = 1;
  }
  // Let stdout drain before exiting (piped output would be cut otherwise).
  await new Promise<void>((resolve) => (process.stdout.write('') ? resolve() : process.stdout.once('drain', resolve)));
  process.exit(code);
}
