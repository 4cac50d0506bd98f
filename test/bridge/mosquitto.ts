/**
 * A real Debian `mosquitto` for the external-broker tests, started on a loopback port with a
 * password file, no persistence (so a restart is a broker that lost everything). Tests skip with
 * the reason when the binary is absent (`.ci/run` installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { freePort, tempDir, type Teardown } from '../helpers/app.js';

const CANDIDATES = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto'];
export const MOSQUITTO = CANDIDATES.find((p) => existsSync(p));
const PASSWD = ['/usr/bin/mosquitto_passwd', '/usr/local/bin/mosquitto_passwd'].find((p) => existsSync(p));

/** The skip reason when mosquitto cannot run here, else false. */
export const NO_MOSQUITTO: string | false =
  MOSQUITTO && PASSWD ? false : 'mosquitto is not installed (apt-get install -y mosquitto); external-broker tests skipped';

export interface Mosquitto {
  readonly url: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Kills the broker (SIGKILL: an outage, not a shutdown). */
  stop(): Promise<void>;
  /** Starts a fresh broker on the same port (it holds nothing: no persistence). */
  start(): Promise<void>;
  log(): string;
}

export async function startMosquitto(t: Teardown): Promise<Mosquitto> {
  if (!MOSQUITTO || !PASSWD) throw new Error('mosquitto is not installed');
  const dir = await tempDir(t, 'biogate-mosquitto-');
  const port = await freePort();
  const user = 'biogate';
  const password = 'bridge-secret-0123';
  const passwd = join(dir, 'passwd');
  await writeFile(passwd, '');
  const made = spawnSync(PASSWD, ['-b', passwd, user, password]);
  if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr.toString()}`);
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwd}`,
      'persistence false',
      // As root mosquitto would switch to the `mosquitto` user, which cannot read this temp directory.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let out = '';
  const start = async () => {
    const c = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!(await listening(port))) {
      if (c.exitCode !== null) throw new Error(`mosquitto exited: ${out}`);
      if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${port}: ${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  t.teardown(stop);
  await start();
  return { url: `mqtt://127.0.0.1:${port}`, port, user, password, stop, start, log: () => out };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
