/**
 * k8s/: renders the overlays offline and checks what a cluster would run. The renderer below is a
 * deliberately small subset of kustomize (resources, patches: strategic-merge files and JSON 6902
 * with a target, images, replicas); it refuses any kustomization field it does not implement, so
 * manifests cannot silently rely on something these tests would not see. Every rendered object is
 * validated against the Kubernetes OpenAPI schemas (kubernetes-models; ServiceMonitor against the
 * prometheus-operator CRD schema).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { SERVED_WHILE_WAITING, compileProxyTrust, parseConfig } from '@smsgw/kit';
import { authConfigShape } from '@smsgw/auth';
import { gatewayConfigShape } from '@smsgw/api-gateway';
import { dispatcherConfigShape } from '@smsgw/dispatcher';
import { schedulerConfigShape } from '@smsgw/batch-scheduler';
import { notifierConfigShape } from '@smsgw/callback-notifier';
import { smppServerConfigShape } from '@smsgw/smpp-server';

const root = join(__dirname, '..', '..');

// ---------------------------------------------------------------------------------------------
// A small kustomize
// ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}
interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}
interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  patches?: { path?: string; patch?: string; target?: Target }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images', 'replicas']);

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

function readYamlDocuments(file: string, text = readFileSync(file, 'utf8')): Json[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS() as Json;
    })
    .filter((doc) => doc !== null);
}

/** The list merge keys of the strategic-merge patches we use (from the Kubernetes API's patchMergeKey). */
function mergeKeyOf(field: string, items: Json[]): string | undefined {
  const keys: Record<string, string[]> = {
    containers: ['name'],
    initContainers: ['name'],
    env: ['name'],
    volumes: ['name'],
    imagePullSecrets: ['name'],
    volumeMounts: ['mountPath'],
    ports: ['containerPort', 'port'],
  };
  return keys[field]?.find((key) => items.every((item) => isObject(item) && key in item));
}

function strategicMerge(target: Json | undefined, patch: Json, field = ''): Json {
  if (isObject(patch)) {
    if ('$patch' in patch || Object.keys(patch).some((k) => k.startsWith('$')))
      throw new Error('strategic-merge directives are not supported here');
    const out: JsonObject = isObject(target) ? clone(target) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = strategicMerge(out[key], value, key);
    }
    return out;
  }
  if (Array.isArray(patch) && Array.isArray(target)) {
    const key = mergeKeyOf(field, patch);
    if (key === undefined) return clone(patch);
    const out = clone(target);
    for (const item of patch as JsonObject[]) {
      const at = out.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
      if (at >= 0) out[at] = strategicMerge(out[at], item, '');
      else out.push(clone(item));
    }
    return out;
  }
  return clone(patch);
}

function pointer(path: string): string[] {
  if (!path.startsWith('/')) throw new Error(`bad JSON pointer ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON value as text, for paths and messages. */
function text(value: Json | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function json6902(doc: Json, ops: JsonObject[]): Json {
  const out = clone(doc);
  for (const op of ops) {
    const parts = pointer(text(op['path']));
    const last = parts.pop()!;
    let parent: Json = out;
    for (const part of parts) {
      const next: Json | undefined = Array.isArray(parent)
        ? parent[Number(part)]
        : isObject(parent)
          ? parent[part]
          : undefined;
      if (next === undefined) throw new Error(`JSON patch path ${text(op['path'])} does not exist`);
      parent = next;
    }
    switch (op['op']) {
      case 'add':
      case 'replace':
        if (Array.isArray(parent)) {
          const index = last === '-' ? parent.length : Number(last);
          if (op['op'] === 'add') parent.splice(index, 0, clone(op['value']!));
          else parent[index] = clone(op['value']!);
        } else if (isObject(parent)) {
          if (op['op'] === 'replace' && !(last in parent))
            throw new Error(`JSON patch replace of missing ${text(op['path'])}`);
          parent[last] = clone(op['value']!);
        } else throw new Error(`JSON patch into a scalar at ${text(op['path'])}`);
        break;
      case 'remove':
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else if (isObject(parent) && last in parent) delete parent[last];
        else throw new Error(`JSON patch remove of missing ${text(op['path'])}`);
        break;
      default:
        throw new Error(`JSON patch op ${text(op['op'])} is not supported here`);
    }
  }
  return out;
}

function matchesTarget(object: K8sObject, target: Target): boolean {
  const [group, version] = object.apiVersion.includes('/')
    ? object.apiVersion.split('/')
    : ['', object.apiVersion];
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === object.kind) &&
    (target.name === undefined || target.name === object.metadata.name)
  );
}

function podSpecs(object: K8sObject): JsonObject[] {
  const spec = object['spec'] as JsonObject | undefined;
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(object.kind))
    return [(spec!['template'] as JsonObject)['spec'] as JsonObject];
  return [];
}

function render(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization;
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED.has(key))
      throw new Error(`${file}: field ${key} is not supported by this renderer`);
  }
  let objects: K8sObject[] = [];
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(dir, entry);
    if (statSync(path).isDirectory()) objects.push(...render(path));
    else objects.push(...(readYamlDocuments(path) as unknown as K8sObject[]));
  }
  for (const entry of kustomization.patches ?? []) {
    const source = entry.path !== undefined ? join(dir, entry.path) : `${file} (inline patch)`;
    const docs =
      entry.path !== undefined
        ? readYamlDocuments(source)
        : readYamlDocuments(source, entry.patch ?? '');
    for (const doc of docs) {
      if (Array.isArray(doc)) {
        if (entry.target === undefined)
          throw new Error(`${source}: a JSON 6902 patch needs a target`);
        const hits = objects.filter((o) => matchesTarget(o, entry.target!));
        if (hits.length === 0) throw new Error(`${source}: the target matches nothing`);
        objects = objects.map((o) =>
          hits.includes(o)
            ? (json6902(o as unknown as Json, doc as JsonObject[]) as unknown as K8sObject)
            : o,
        );
      } else {
        const patch = doc as unknown as K8sObject;
        const hits = objects.filter((o) =>
          entry.target
            ? matchesTarget(o, entry.target)
            : o.kind === patch.kind && o.metadata.name === patch.metadata.name,
        );
        if (hits.length === 0)
          throw new Error(
            `${source}: patch of ${patch.kind}/${patch.metadata?.name} matches nothing`,
          );
        objects = objects.map((o) => {
          if (!hits.includes(o)) return o;
          const { metadata, apiVersion: _a, kind: _k, ...rest } = patch;
          const { name: _n, ...meta } = metadata;
          return strategicMerge(o as unknown as Json, {
            ...(rest as JsonObject),
            metadata: meta as JsonObject,
          }) as unknown as K8sObject;
        });
      }
    }
  }
  for (const { name, count } of kustomization.replicas ?? []) {
    const hits = objects.filter(
      (o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.metadata.name === name,
    );
    if (hits.length === 0) throw new Error(`${file}: replicas for ${name} matches nothing`);
    for (const o of hits) (o['spec'] as JsonObject)['replicas'] = count;
  }
  for (const image of kustomization.images ?? []) {
    let used = false;
    for (const spec of objects.flatMap(podSpecs)) {
      for (const container of [
        ...((spec['containers'] ?? []) as JsonObject[]),
        ...((spec['initContainers'] ?? []) as JsonObject[]),
      ]) {
        const ref = parseImage(text(container['image']));
        if (ref.name !== image.name) continue;
        container['image'] = `${image.newName ?? ref.name}:${image.newTag ?? ref.tag}`;
        used = true;
      }
    }
    if (!used) throw new Error(`${file}: image ${image.name} is used by no container`);
  }
  const seen = new Set<string>();
  for (const o of objects) {
    const id = `${o.apiVersion}/${o.kind}/${o.metadata.name}`;
    if (seen.has(id)) throw new Error(`${dir}: ${id} is defined twice`);
    seen.add(id);
  }
  return objects;
}

function parseImage(image: string): { name: string; tag: string } {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash
    ? { name: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { name: image, tag: 'latest' };
}

// ---------------------------------------------------------------------------------------------
// Schema validation
// ---------------------------------------------------------------------------------------------

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

const loadModule = createRequire(__filename);

function modelFor(apiVersion: string, kind: string): ModelClass {
  // Both packages ship one CommonJS module per kind, exporting a class of the same name.
  const module =
    apiVersion === 'monitoring.coreos.com/v1'
      ? (loadModule(
          `@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${kind}`,
        ) as Record<string, ModelClass>)
      : (loadModule(`kubernetes-models/${apiVersion}/${kind}`) as Record<string, ModelClass>);
  const model = module[kind];
  if (model === undefined) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return model;
}

// ---------------------------------------------------------------------------------------------
// What the manifests must provide
// ---------------------------------------------------------------------------------------------

interface ComposeService {
  image: string;
  command: string[];
  environment?: Record<string, string>;
  ports?: string[];
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

const SECRET_NAME = 'smsgw-secrets';
/**
 * Stand-ins for the production Secret, which is created by the operator and not rendered; the
 * tokens are random as the operator's must be (the services refuse placeholders).
 */
const SECRET_PLACEHOLDERS: Record<string, string> = {
  DATABASE_URL: 'postgres://smsgw:secret@db.internal:5432/smsgw',
  AMQP_URL: 'amqps://smsgw:secret@mq.internal:5671',
  REDIS_URL: 'rediss://:secret@redis.internal:6380',
  ADMIN_TOKEN: randomBytes(24).toString('hex'),
  JWT_SECRET: randomBytes(32).toString('hex'),
  INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  SMSC_URL: 'smpp://user:secret@smsc.example.net:2775?window=50&throughput=100',
  CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
};

const ours = {
  auth: { port: 8081, shape: authConfigShape, autoscaled: false },
  'api-gateway': { port: 8080, shape: gatewayConfigShape, autoscaled: true },
  'batch-scheduler': { port: 8082, shape: schedulerConfigShape, autoscaled: false },
  dispatcher: { port: 8083, shape: dispatcherConfigShape, autoscaled: true },
  'callback-notifier': { port: 8084, shape: notifierConfigShape, autoscaled: false },
  'smpp-server': { port: 8085, shape: smppServerConfigShape, autoscaled: false },
} as const;
type ServiceName = keyof typeof ours;
const serviceNames = Object.keys(ours) as ServiceName[];

// Loose views of the objects the checks read.
interface Probe {
  httpGet?: { path: string; port: number | string };
  periodSeconds?: number;
  failureThreshold?: number;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
  };
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[] };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  securityContext?: SecurityContext;
  terminationGracePeriodSeconds?: number;
  volumes?: { name: string; emptyDir?: unknown }[];
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface Service extends K8sObject {
  spec: {
    selector: Record<string, string>;
    ports: { name?: string; port: number; targetPort?: number | string }[];
  };
}

function find<T extends K8sObject>(objects: K8sObject[], kind: string, name: string): T {
  const hit = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!hit) throw new Error(`${kind}/${name} is not rendered`);
  return hit as T;
}
const ofKind = <T extends K8sObject>(objects: K8sObject[], kind: string): T[] =>
  objects.filter((o) => o.kind === kind) as T[];
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The environment a container starts with: ConfigMaps and the Secret as rendered (or the placeholders). */
function containerEnv(objects: K8sObject[], container: Container): Record<string, string> {
  const secret = objects.find<
    K8sObject & { stringData?: Record<string, string>; data?: Record<string, string> }
  >(
    (o): o is K8sObject & { stringData?: Record<string, string>; data?: Record<string, string> } =>
      o.kind === 'Secret' && o.metadata.name === SECRET_NAME,
  );
  const secretValue = (name: string, key: string): string => {
    expect({ secret: name }).toEqual({ secret: SECRET_NAME });
    expect(Object.keys(SECRET_PLACEHOLDERS)).toContain(key);
    if (!secret) return SECRET_PLACEHOLDERS[key];
    const value =
      secret.stringData?.[key] ??
      (secret.data?.[key] && Buffer.from(secret.data[key], 'base64').toString('utf8'));
    if (value === undefined) throw new Error(`Secret ${name} has no key ${key}`);
    return value;
  };
  const configMap = (name: string) =>
    find<K8sObject & { data?: Record<string, string> }>(objects, 'ConfigMap', name).data ?? {};
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMap(from.configMapRef.name));
    if (from.secretRef)
      throw new Error('envFrom a Secret hands every credential to every service; use secretKeyRef');
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.secretKeyRef)
      env[variable.name] = secretValue(
        variable.valueFrom.secretKeyRef.name,
        variable.valueFrom.secretKeyRef.key,
      );
    else if (variable.valueFrom?.configMapKeyRef) {
      const value = configMap(variable.valueFrom.configMapKeyRef.name)[
        variable.valueFrom.configMapKeyRef.key
      ];
      if (value === undefined)
        throw new Error(
          `ConfigMap ${variable.valueFrom.configMapKeyRef.name} has no key ${variable.valueFrom.configMapKeyRef.key}`,
        );
      env[variable.name] = value;
    } else throw new Error(`env ${variable.name} has no value this test understands`);
  }
  return env;
}

function resolvePort(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Kubernetes quantities, enough for comparisons: cpu in cores, memory in bytes. */
function quantity(value: string): number {
  const m = /^([0-9.]+)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(value);
  if (!m) throw new Error(`quantity ${value}`);
  const factor: Record<string, number> = {
    m: 1e-3,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
  };
  return Number(m[1]) * (m[2] ? factor[m[2]] : 1);
}

const overlays = {
  dev: render(join(root, 'k8s', 'overlays', 'dev')),
  production: render(join(root, 'k8s', 'overlays', 'production')),
};
type Overlay = keyof typeof overlays;
const overlayNames = Object.keys(overlays) as Overlay[];
const perService = overlayNames.flatMap((overlay) =>
  serviceNames.map((name) => [overlay, name] as [Overlay, ServiceName]),
);

const mainContainer = (objects: K8sObject[], name: string): Container => {
  const containers = find<Workload>(objects, 'Deployment', name).spec.template.spec.containers;
  expect(containers.map((c) => c.name)).toEqual([name]);
  return containers[0];
};

// ---------------------------------------------------------------------------------------------

describe('the renderer', () => {
  it('merges lists by their merge key and applies JSON 6902 operations', () => {
    const target: JsonObject = {
      spec: {
        containers: [
          { name: 'a', image: 'x', env: [{ name: 'A', value: '1' }] },
          { name: 'b', image: 'y' },
        ],
      },
    };
    const merged = strategicMerge(target, {
      spec: { containers: [{ name: 'a', env: [{ name: 'B', value: '2' }] }] },
    });
    expect(merged).toEqual({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'x',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'b', image: 'y' },
        ],
      },
    });
    expect(
      json6902({ spec: { rules: [{ http: {} }] } }, [
        { op: 'add', path: '/spec/rules/0/host', value: 'h' },
        { op: 'add', path: '/spec/tls', value: [] },
      ]),
    ).toEqual({ spec: { rules: [{ http: {}, host: 'h' }], tls: [] } });
    expect(() =>
      json6902({ spec: {} }, [{ op: 'replace', path: '/spec/minReplicas', value: 1 }]),
    ).toThrow(/missing/);
  });

  it('has schemas that reject what a cluster would reject', () => {
    const Deployment = modelFor('apps/v1', 'Deployment');
    const pod = { containers: [{ name: 'a', image: 'b', ports: [{ containerPort: 'http' }] }] };
    expect(() =>
      new Deployment({
        metadata: { name: 'x' },
        spec: { selector: {}, template: { spec: pod } },
      }).validate(),
    ).toThrow(/containerPort/);
    const ServiceMonitor = modelFor('monitoring.coreos.com/v1', 'ServiceMonitor');
    expect(() =>
      new ServiceMonitor({
        metadata: { name: 'x' },
        spec: { selector: {}, endpoints: 'http' },
      }).validate(),
    ).toThrow();
  });
});

interface IngressObject extends K8sObject {
  metadata: K8sObject['metadata'] & { annotations?: Record<string, string> };
  spec: {
    tls?: { hosts: string[]; secretName: string }[];
    rules: {
      host?: string;
      http: {
        paths: {
          path: string;
          pathType: string;
          backend: { service: { name: string; port: { name?: string; number?: number } } };
        }[];
      };
    }[];
  };
}

/** Each path of an Ingress with the Service and port it reaches, checked to exist. */
function ingressRoutes(
  objects: K8sObject[],
  ingress: IngressObject,
): Record<string, [string, number]> {
  const routes: Record<string, [string, number]> = {};
  for (const rule of ingress.spec.rules) {
    for (const path of rule.http.paths) {
      expect(path.pathType).toBe('Prefix');
      const service = find<Service>(objects, 'Service', path.backend.service.name);
      const port = service.spec.ports.find((p) =>
        path.backend.service.port.name !== undefined
          ? p.name === path.backend.service.port.name
          : p.port === path.backend.service.port.number,
      );
      expect(port).toBeDefined();
      routes[path.path] = [service.metadata.name, port!.port];
    }
  }
  return routes;
}

describe.each(overlayNames)('k8s/overlays/%s', (overlay) => {
  const objects = overlays[overlay];

  it('renders objects that are valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(20);
    for (const object of objects) {
      const Model = modelFor(object.apiVersion, object.kind);
      expect(() => new Model(object).validate()).not.toThrow();
      expect(object.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
  });

  it('runs the migration Job from the kit image with the database URL from the Secret', () => {
    const job = find<
      K8sObject & { spec: { template: { spec: PodSpec & { restartPolicy: string } } } }
    >(objects, 'Job', 'smsgw-migrate');
    const [container, ...others] = job.spec.template.spec.containers;
    expect(others).toEqual([]);
    const composed = compose.services['migrate'];
    expect(parseImage(container.image).name.endsWith(parseImage(composed.image).name)).toBe(true);
    if (overlay === 'dev') expect(container.image).toBe(composed.image);
    expect(container.command).toEqual(composed.command);
    expect(containerEnv(objects, container)['DATABASE_URL']).toMatch(/^postgres(ql)?:\/\//);
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('gives every workload of ours a PodDisruptionBudget and every Service a pod to select', () => {
    const pdbs = ofKind<
      K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }
    >(objects, 'PodDisruptionBudget');
    const deployments = ofKind<Workload>(objects, 'Deployment').filter(
      (d) => d.metadata.labels?.['app.kubernetes.io/part-of'] === 'sms-gateway',
    );
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...serviceNames].sort());
    const pods = [
      ...ofKind<Workload>(objects, 'Deployment'),
      ...ofKind<Workload>(objects, 'StatefulSet'),
    ];
    for (const deployment of deployments) {
      const covering = pdbs.filter((pdb) =>
        selects(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
      );
      expect({ deployment: deployment.metadata.name, pdbs: covering.length }).toEqual({
        deployment: deployment.metadata.name,
        pdbs: 1,
      });
    }
    for (const pdb of pdbs) {
      // A PDB that covers several workloads would let one drain starve another.
      expect(
        pods.filter((p) => selects(pdb.spec.selector.matchLabels, p.spec.template.metadata.labels)),
      ).toHaveLength(1);
    }
    for (const service of ofKind<Service>(objects, 'Service')) {
      const backing = pods.filter((p) =>
        selects(service.spec.selector, p.spec.template.metadata.labels),
      );
      expect({ service: service.metadata.name, pods: backing.length }).toEqual({
        service: service.metadata.name,
        pods: 1,
      });
      for (const port of service.spec.ports) {
        const container = backing[0].spec.template.spec.containers[0];
        expect({
          service: service.metadata.name,
          port: port.name,
          target: resolvePort(container, port.targetPort ?? port.port),
        }).toEqual({
          service: service.metadata.name,
          port: port.name,
          target: expect.any(Number),
        });
      }
    }
  });

  it('autoscales api-gateway and dispatcher, and only Deployments that exist and leave replicas to it', () => {
    const hpas = ofKind<
      K8sObject & {
        spec: {
          scaleTargetRef: { apiVersion: string; kind: string; name: string };
          minReplicas: number;
          maxReplicas: number;
        };
      }
    >(objects, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.apiVersion)).toEqual(hpas.map(() => 'autoscaling/v2'));
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(
      serviceNames.filter((n) => ours[n].autoscaled).sort(),
    );
    for (const hpa of hpas) {
      expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      const deployment = find<Workload>(objects, 'Deployment', hpa.spec.scaleTargetRef.name);
      expect(deployment.spec.replicas).toBeUndefined();
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
      const container = mainContainer(objects, deployment.metadata.name);
      // Utilization targets are relative to requests: without them the HPA cannot compute anything.
      expect(container.resources?.requests?.['cpu']).toBeDefined();
    }
  });

  it('routes /auth/ and the console sessions to auth, /secure/ and the console to api-gateway, and nothing else (no admin API)', () => {
    const [ingress, ...others] = ofKind<IngressObject>(objects, 'Ingress').filter(
      (i) => i.metadata.name === 'sms-gateway',
    );
    expect(others).toEqual([]);
    expect(ingressRoutes(objects, ingress)).toEqual({
      '/auth/': ['auth', 8081],
      '/console/v1/': ['auth', 8081],
      '/console/': ['api-gateway', 8080],
      '/secure/': ['api-gateway', 8080],
    });
  });

  it("gives operators the console on auth too, for a port-forward to auth-admin, from the image's build", () => {
    const configOf = (name: string) =>
      find<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap', name).data;
    expect(configOf('auth-config')['CONSOLE_DIR']).toBe('/app/console');
    expect(configOf('api-gateway-config')['CONSOLE_DIR']).toBe('/app/console');
  });

  it('serves the admin API in-cluster only, through the ClusterIP Service auth-admin', () => {
    const admin = find<Service & { spec: { type?: string } }>(objects, 'Service', 'auth-admin');
    expect(admin.spec.type ?? 'ClusterIP').toBe('ClusterIP');
    const auth = find<Workload>(objects, 'Deployment', 'auth');
    expect(selects(admin.spec.selector, auth.spec.template.metadata.labels)).toBe(true);
    expect(admin.spec.ports).toHaveLength(1);
    expect(resolvePort(mainContainer(objects, 'auth'), admin.spec.ports[0].targetPort)).toBe(
      ours.auth.port,
    );
  });

  it('has Prometheus scrape /metrics on the http port of each of the six Services, and nothing else', () => {
    const [monitor, ...others] = ofKind<
      K8sObject & {
        spec: {
          selector: {
            matchLabels: Record<string, string>;
            matchExpressions?: { key: string; operator: string; values: string[] }[];
          };
          endpoints: { port: string; path: string }[];
        };
      }
    >(objects, 'ServiceMonitor');
    expect(others).toEqual([]);
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.spec.endpoints).toEqual([
      expect.objectContaining({ port: 'http', path: '/metrics' }),
    ]);
    const expressions = monitor.spec.selector.matchExpressions ?? [];
    expect(expressions.map((e) => e.operator).filter((op) => op !== 'NotIn')).toEqual([]);
    const selected = ofKind<Service>(objects, 'Service').filter(
      (s) =>
        selects(monitor.spec.selector.matchLabels, s.metadata.labels ?? {}) &&
        expressions.every((e) => !e.values.includes(s.metadata.labels?.[e.key] ?? '')),
    );
    expect(selected.map((s) => s.metadata.name).sort()).toEqual([...serviceNames].sort());
    for (const service of selected) expect(service.spec.ports.map((p) => p.name)).toContain('http');
  });
});

describe.each(perService)('k8s/overlays/%s: %s', (overlay, name) => {
  const objects = overlays[overlay];
  const spec = ours[name];
  const composed = compose.services[name];
  const deployment = find<Workload>(objects, 'Deployment', name);
  const pod = deployment.spec.template.spec;
  const container = mainContainer(objects, name);

  it('runs the image and command docker-compose.yml builds', () => {
    const image = parseImage(container.image);
    expect(image.name.endsWith(parseImage(composed.image).name)).toBe(true);
    if (overlay === 'dev') expect(container.image).toBe(composed.image);
    else expect(image.tag).not.toBe('latest');
    expect(container.command).toEqual(composed.command);
  });

  it('starts with an environment that is a valid distributed-mode configuration', () => {
    const env = containerEnv(objects, container);
    const config = parseConfig(spec.shape, env) as Record<string, unknown>;
    for (const key of ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL', 'SMSC_URL', 'AUTH_URL'] as const) {
      if (key in spec.shape)
        expect({ key, value: config[key] }).toEqual({ key, value: expect.any(String) });
    }
    expect(config['PORT']).toBe(spec.port);
    // A variable the service does not read is a typo or a leftover (the shared ConfigMap excepted).
    const own = (container.envFrom ?? [])
      .filter((f) => f.configMapRef?.name !== 'smsgw-common')
      .flatMap((f) =>
        Object.keys(
          find<K8sObject & { data?: Record<string, string> }>(
            objects,
            'ConfigMap',
            f.configMapRef!.name,
          ).data ?? {},
        ),
      );
    for (const key of [...own, ...(container.env ?? []).map((e) => e.name)])
      expect({ key, read: key in spec.shape }).toEqual({ key, read: true });
  });

  it('listens on its port, behind a Service of the same name and port', () => {
    expect(container.ports).toEqual([
      expect.objectContaining({ name: 'http', containerPort: spec.port }),
      // The smpp-server also takes customers' SMPP connections, behind a Service of their own.
      ...(name === 'smpp-server'
        ? [expect.objectContaining({ name: 'smpp', containerPort: 2775 })]
        : []),
    ]);
    if (name === 'smpp-server') {
      const smpp = find<Service>(objects, 'Service', 'smpp-server-smpp');
      expect(selects(smpp.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
      expect(smpp.spec.ports).toEqual([expect.objectContaining({ name: 'smpp', port: 2775 })]);
      expect(resolvePort(container, smpp.spec.ports[0].targetPort)).toBe(2775);
    }
    const service = find<Service>(objects, 'Service', name);
    expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    expect(service.spec.ports).toEqual([
      expect.objectContaining({ name: 'http', port: spec.port }),
    ]);
    expect(resolvePort(container, service.spec.ports[0].targetPort)).toBe(spec.port);
    if (name === 'api-gateway') {
      const authUrl = new URL(containerEnv(objects, container)['AUTH_URL']);
      expect([authUrl.hostname, Number(authUrl.port)]).toEqual(['auth', ours.auth.port]);
    }
  });

  it('is probed on /healthz (liveness, startup) and /readyz (readiness) at its container port', () => {
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    if (container.startupProbe) expect(container.startupProbe.httpGet?.path).toBe('/healthz');
    for (const probe of [
      container.livenessProbe,
      container.readinessProbe,
      container.startupProbe,
    ]) {
      if (probe) expect(resolvePort(container, probe.httpGet!.port)).toBe(spec.port);
    }
  });

  it('stays alive but unready while it waits for Postgres or RabbitMQ', () => {
    // Liveness and startup ask a path the process answers while it waits (serviceMain listens
    // before it connects), so a wait never gets it restarted; readiness asks the one that checks.
    for (const probe of [container.livenessProbe, container.startupProbe])
      expect(SERVED_WHILE_WAITING.has(probe!.httpGet!.path)).toBe(true);
    expect(container.readinessProbe!.httpGet!.path).toBe('/readyz');
    expect(container.livenessProbe!.httpGet!.path).not.toBe('/readyz');
    // The startup probe gives a slow node time to load the code (Kubernetes' defaults: 10 s, 3).
    const startup = container.startupProbe!;
    expect((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)).toBeGreaterThanOrEqual(
      60,
    );
  });

  it('runs as node (uid 1000) on a read-only root filesystem with no privileges', () => {
    const effective = { ...pod.securityContext, ...container.securityContext };
    expect(effective).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(container.securityContext?.capabilities?.drop).toContain('ALL');
    const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(tmp).toBeDefined();
    expect(pod.volumes?.find((v) => v.name === tmp!.name)?.emptyDir).toBeDefined();
  });

  it('gets more time to drain than the preStop pause plus its own shutdown deadline', () => {
    const config = parseConfig(spec.shape, containerEnv(objects, container)) as {
      SHUTDOWN_TIMEOUT_MS: number;
    };
    const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
    const pause = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
    expect(pod.terminationGracePeriodSeconds).toBeDefined();
    expect(pod.terminationGracePeriodSeconds!).toBeGreaterThan(
      config.SHUTDOWN_TIMEOUT_MS / 1000 + pause,
    );
  });

  it('requests and limits cpu and memory', () => {
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory'])
        expect(container.resources?.[kind]?.[resource]).toMatch(/^[0-9.]+(m|Mi|Gi)?$/);
    }
    expect(quantity(container.resources!.limits!['memory'])).toBeGreaterThanOrEqual(
      quantity(container.resources!.requests!['memory']),
    );
    expect(quantity(container.resources!.limits!['cpu'])).toBeGreaterThanOrEqual(
      quantity(container.resources!.requests!['cpu']),
    );
  });
});

describe('k8s/overlays/dev: the in-namespace infrastructure', () => {
  const objects = overlays.dev;
  const secret = find<K8sObject & { stringData: Record<string, string> }>(
    objects,
    'Secret',
    SECRET_NAME,
  );
  const servicePort = (host: string, port: number) => {
    const service = find<Service>(objects, 'Service', host);
    expect(service.spec.ports.map((p) => p.port)).toContain(port);
  };

  it('runs one replica of everything', () => {
    for (const workload of [
      ...ofKind<Workload>(objects, 'Deployment'),
      ...ofKind<Workload>(objects, 'StatefulSet'),
    ]) {
      const hpa = objects.find(
        (o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === workload.metadata.name,
      ) as (K8sObject & { spec: { minReplicas: number } }) | undefined;
      expect({
        name: workload.metadata.name,
        replicas: hpa ? hpa.spec.minReplicas : workload.spec.replicas,
      }).toEqual({ name: workload.metadata.name, replicas: 1 });
    }
  });

  it('has a Secret with every key, whose URLs point at the Services of this overlay', () => {
    expect(Object.keys(secret.stringData).sort()).toEqual(Object.keys(SECRET_PLACEHOLDERS).sort());
    for (const [key, host, port] of [
      ['DATABASE_URL', 'postgres', 5432],
      ['AMQP_URL', 'rabbitmq', 5672],
      ['REDIS_URL', 'redis', 6379],
      ['SMSC_URL', 'simulator', 2775],
    ] as const) {
      const url = new URL(secret.stringData[key]);
      expect([key, url.hostname, Number(url.port)]).toEqual([key, host, port]);
      servicePort(host, port);
    }
  });

  it('runs the SMPP simulator with the credentials SMSC_URL uses', () => {
    const simulator = find<Workload>(objects, 'Deployment', 'simulator').spec.template.spec
      .containers[0];
    expect(simulator.image).toBe(compose.services['simulator'].image);
    expect(simulator.command).toEqual(['node', 'dist/simulator-main.js']);
    const env = containerEnv(objects, simulator);
    expect(env).toMatchObject({ SIM_HOST: '0.0.0.0', SIM_PORT: '2775' });
    const smsc = new URL(secret.stringData['SMSC_URL']);
    expect([smsc.username, smsc.password]).toEqual([env['SIM_SYSTEM_ID'], env['SIM_PASSWORD']]);
    expect(resolvePort(simulator, 'smpp')).toBe(Number(env['SIM_PORT']));
  });

  it('runs Postgres and RabbitMQ with the users the URLs name', () => {
    const postgres = containerEnv(
      objects,
      find<Workload>(objects, 'StatefulSet', 'postgres').spec.template.spec.containers[0],
    );
    const db = new URL(secret.stringData['DATABASE_URL']);
    expect([db.username, db.password, db.pathname]).toEqual([
      postgres['POSTGRES_USER'],
      postgres['POSTGRES_PASSWORD'],
      `/${postgres['POSTGRES_DB']}`,
    ]);
    const rabbit = containerEnv(
      objects,
      find<Workload>(objects, 'StatefulSet', 'rabbitmq').spec.template.spec.containers[0],
    );
    const amqp = new URL(secret.stringData['AMQP_URL']);
    expect([amqp.username, amqp.password]).toEqual([
      rabbit['RABBITMQ_DEFAULT_USER'],
      rabbit['RABBITMQ_DEFAULT_PASS'],
    ]);
  });
});

describe.each(overlayNames)('k8s/overlays/%s: the client address behind the Ingress', (overlay) => {
  const objects = overlays[overlay];
  const trustOf = (name: 'auth' | 'api-gateway') => {
    const env = containerEnv(objects, mainContainer(objects, name));
    const config = parseConfig(ours[name].shape, env) as { TRUSTED_PROXIES: string[] };
    return { entries: config.TRUSTED_PROXIES, trust: compileProxyTrust(config.TRUSTED_PROXIES) };
  };

  it.each(['auth', 'api-gateway'] as const)(
    '%s believes X-Forwarded-For from the pod network the Ingress controller runs in, and only there',
    (name) => {
      const { entries, trust } = trustOf(name);
      expect(entries.length).toBeGreaterThan(0);
      // Pod addresses of common cluster setups (k3s, kind and flannel, Calico, EKS, IPv6 ULA).
      for (const pod of ['10.42.0.7', '10.244.1.3', '192.168.14.2', '172.20.3.4', 'fd00:10:244::5'])
        expect({ pod, trusted: trust(pod, 0) }).toEqual({ pod, trusted: true });
      // Clients on the internet are never proxies: they cannot choose the address they are counted by.
      for (const client of ['203.0.113.7', '198.51.100.1', '8.8.8.8', '2001:db8::1', '127.0.0.1'])
        expect({ client, trusted: trust(client, 0) }).toEqual({ client, trusted: false });
    },
  );

  it('gives auth and api-gateway the same proxies, so both count the same client', () => {
    expect(trustOf('auth').entries).toEqual(trustOf('api-gateway').entries);
  });
});

describe('k8s/overlays/production', () => {
  const prod = overlays.production;
  const dev = overlays.dev;

  it('expects the Secret to exist instead of shipping one', () => {
    expect(prod.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('pins every image of ours to a release tag', () => {
    for (const spec of prod.flatMap(podSpecs) as unknown as PodSpec[]) {
      for (const container of spec.containers)
        expect(parseImage(container.image).tag).not.toBe('latest');
    }
  });

  it.each(serviceNames)('%s: runs more replicas with more resources than dev', (name) => {
    const replicas = (objects: K8sObject[]) => {
      const hpa = objects.find(
        (o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === name,
      ) as (K8sObject & { spec: { minReplicas: number; maxReplicas: number } }) | undefined;
      return hpa
        ? hpa.spec.minReplicas
        : (find<Workload>(objects, 'Deployment', name).spec.replicas ?? 1);
    };
    expect(replicas(prod)).toBeGreaterThanOrEqual(2);
    expect(replicas(prod)).toBeGreaterThan(replicas(dev));
    const memory = (objects: K8sObject[]) =>
      quantity(mainContainer(objects, name).resources!.limits!['memory']);
    expect(memory(prod)).toBeGreaterThan(memory(dev));
  });

  it('serves a host over TLS', () => {
    const ingress = find<
      K8sObject & {
        spec: { rules: { host?: string }[]; tls?: { hosts: string[]; secretName: string }[] };
      }
    >(prod, 'Ingress', 'sms-gateway');
    const hosts = ingress.spec.rules.map((r) => r.host);
    expect(hosts.every((h) => typeof h === 'string' && h.length > 0)).toBe(true);
    expect(ingress.spec.tls?.flatMap((t) => t.hosts).sort()).toEqual([...hosts].sort());
  });
});
