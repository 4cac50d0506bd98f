/**
 * deploy/helm/biogate (issue #38 item 3): `helm lint` and `helm template` with the real helm binary (CI builds it
 * from the Go module proxy, .ci/run), rendered for both store kinds and read back as Kubernetes objects.
 * Without helm the test is a visible skip, not a pass.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parseAllDocuments } from 'yaml';

const root = new URL('../../', import.meta.url).pathname;
const chart = join(root, 'deploy', 'helm', 'biogate');
const helm = [process.env['BIOGATE_HELM'], 'helm'].find(
  (bin) => bin !== undefined && bin !== '' && spawnSync(bin, ['version', '--short'], { encoding: 'utf8' }).status === 0,
);
const skip = helm === undefined ? 'helm is not installed (.ci/run builds it: BIOGATE_HELM=<path>)' : false;

interface K8s {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

interface Env {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot: boolean };
  containers: { env: Env[]; readinessProbe: { httpGet: { path: string } }; livenessProbe: { httpGet: { path: string } } }[];
}
interface Workload {
  replicas: number;
  template: { spec: PodSpec };
  volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
}
const spec = <S>(o: K8s | undefined): S => (o?.spec ?? {}) as S;

function render(t: Test, ...set: string[]): K8s[] {
  const args = ['template', 'rel', chart, ...set.flatMap((s) => ['--set', s])];
  const r = spawnSync(helm ?? 'helm', args, { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, `helm ${args.join(' ')}: ${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as K8s | null)
    .filter((d): d is K8s => d !== null);
}
const byKind = (objects: K8s[], kind: string) => objects.filter((o) => o.kind === kind);

t.test('helm lint passes for both store kinds', { skip }, async (t) => {
  for (const values of [[], ['store.kind=mongodb', 'store.mongodb.urlSecret=biogate-mongo']]) {
    const r = spawnSync(helm ?? 'helm', ['lint', '--strict', chart, ...values.flatMap((s) => ['--set', s])], { encoding: 'utf8' });
    t.equal(r.status, 0, `helm lint ${values.join(' ')}: ${r.stdout}${r.stderr}`);
  }
});

t.test(
  'sqlite: one StatefulSet pod with its volume; probes on /readyz and /healthz; a stop period above drain + grace',
  { skip },
  async (t) => {
    const objects = render(t);
    t.same(byKind(objects, 'Deployment'), [], 'no Deployment');
    const sts = spec<Workload>(byKind(objects, 'StatefulSet')[0]);
    t.equal(sts.replicas, 1, 'a SQLite file is never shared: one pod');
    t.equal(sts.volumeClaimTemplates[0]?.spec.resources.requests.storage, '5Gi');
    const pod = sts.template.spec;
    const container = pod.containers[0];
    if (!container) throw new Error('no container');
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? '(from)']));
    t.equal(env['BIOGATE_STORE'], 'sqlite:/data/biogate.db');
    t.equal(container.readinessProbe.httpGet.path, '/readyz');
    t.equal(container.livenessProbe.httpGet.path, '/healthz');
    t.ok(pod.terminationGracePeriodSeconds > Number(env['BIOGATE_SHUTDOWN_DRAIN_S']) + Number(env['BIOGATE_SHUTDOWN_GRACE_S']));
    t.equal(pod.securityContext.runAsNonRoot, true);
    t.equal(byKind(objects, 'Service').length, 1);
    t.equal(byKind(objects, 'PodDisruptionBudget').length, 1);
    t.same(byKind(objects, 'Ingress'), [], 'no Ingress unless enabled');
    t.same(byKind(objects, 'ServiceMonitor'), [], 'no ServiceMonitor unless enabled');
  },
);

t.test(
  'mongodb: a Deployment of several pods, the URL from a Secret, serial-sticky /iclock/ ingress, ServiceMonitor with the metrics token',
  { skip },
  async (t) => {
    const objects = render(
      t,
      'store.kind=mongodb',
      'store.mongodb.urlSecret=biogate-mongo',
      'replicaCount=3',
      'ingress.enabled=true',
      'serviceMonitor.enabled=true',
      'secrets.existingSecret=biogate-tokens',
    );
    t.same(byKind(objects, 'StatefulSet'), []);
    const dep = spec<Workload>(byKind(objects, 'Deployment')[0]);
    t.equal(dep.replicas, 3);
    const env = dep.template.spec.containers[0]?.env ?? [];
    t.same(env.find((e) => e.name === 'BIOGATE_STORE')?.valueFrom?.secretKeyRef, { name: 'biogate-mongo', key: 'url' });
    t.same(env.find((e) => e.name === 'BIOGATE_METRICS_TOKEN')?.valueFrom?.secretKeyRef, { name: 'biogate-tokens', key: 'metrics-token' });
    t.ok(
      env.some((e) => e.name === 'BIOGATE_NODE_ID'),
      'each pod is its own node id',
    );
    const ingresses = byKind(objects, 'Ingress');
    t.equal(ingresses.length, 2);
    const iclock = ingresses.find((i) => i.metadata.name.endsWith('-iclock'));
    t.equal(iclock?.metadata.annotations?.['nginx.ingress.kubernetes.io/upstream-hash-by'], '$arg_SN', '/iclock/ hashed on the serial');
    t.match(JSON.stringify(iclock?.spec), /"path":"\/iclock\/"/);
    const monitor = spec<{ endpoints: { authorization: { credentials: unknown } }[] }>(byKind(objects, 'ServiceMonitor')[0]);
    t.same(monitor.endpoints[0]?.authorization.credentials, { name: 'biogate-tokens', key: 'metrics-token' });
  },
);

t.test('bad values are refused by the schema', { skip }, async (t) => {
  const r = spawnSync(helm ?? 'helm', ['template', 'rel', chart, '--set', 'store.kind=postgres'], { encoding: 'utf8' });
  t.not(r.status, 0);
  t.match(r.stderr, /store\.kind|kind/);
  const mongoWithoutUrl = spawnSync(helm ?? 'helm', ['template', 'rel', chart, '--set', 'store.kind=mongodb'], { encoding: 'utf8' });
  t.not(mongoWithoutUrl.status, 0);
  t.match(mongoWithoutUrl.stderr, /store\.mongodb\.urlSecret/);
  t.ok(existsSync(join(chart, 'values.schema.json')));
});
