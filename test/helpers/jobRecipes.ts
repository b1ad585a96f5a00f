import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { shellWords } from './shellLines.js';

/**
 * The recipes in deploy/ for a scheduled job without a volume, each read into one shape, so that one set of
 * checks covers every platform. Only the fields the checks read are typed; the files hold more.
 */

/** Where a variable's value comes from. */
export type EnvSource =
  | { kind: 'literal'; value: string }
  /** The platform's secret store: a Kubernetes Secret, Secret Manager, Secrets Manager or SSM, GitHub's secrets. */
  | { kind: 'secret'; reference: string }
  /** Set by the platform itself, such as the AWS credentials that GitHub's OIDC step exports. */
  | { kind: 'platform' };

export interface EnvEntry {
  name: string;
  source: EnvSource;
}

export interface JobRecipe {
  name: string;
  /** Every variable the container gets, in the order the recipe gives them (a name may repeat). */
  env: EnvEntry[];
  /** Seconds between the stop signal and SIGKILL, the least of the ways the platform stops a run. */
  stopGraceSeconds: number;
  /** Seconds a run may take before the platform stops it. */
  timeoutSeconds: number;
  /** Minutes between scheduled runs. */
  everyMinutes: number;
  /** The arguments of loyalty-sync. */
  args: string[];
}

/**
 * Cloud Run sends SIGKILL 10 s after SIGTERM (its container contract), for a cancelled execution and a task
 * past its timeout alike; a job cannot change it.
 */
export const CLOUD_RUN_STOP_GRACE_SECONDS = 10;

/**
 * A cancelled (or timed-out) GitHub Actions step gets SIGINT, then SIGTERM 7.5 s later (GitHub's workflow
 * cancellation reference). loyalty-sync takes a second signal as "exit now", so the grace ends at SIGTERM.
 */
export const GITHUB_STOP_GRACE_SECONDS = 7.5;

export const deployPath = (name: string) => fileURLToPath(new URL(`../../deploy/${name}`, import.meta.url));
export const readDeploy = (name: string) => readFileSync(deployPath(name), 'utf8');
const loadYaml = <T>(name: string): T => parse(readDeploy(name)) as T;
const loadJson = <T>(name: string): T => JSON.parse(readDeploy(name)) as T;

/** A five-field cron expression's step of minutes, `*\/15 * * * *` → 15; NaN for any other form. */
export function cronEveryMinutes(expression: string): number {
  return Number(/^\*\/(\d+) \* \* \* \*$/.exec(expression.trim())?.[1]);
}

// ---- Kubernetes (deploy/kubernetes-stateless/) ----

export const KUBERNETES_KIT = 'kubernetes-stateless';

interface KubernetesEnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
export interface KubernetesContainer {
  args: string[];
  env?: KubernetesEnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
export interface KubernetesResource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
}
export interface ServiceAccount extends KubernetesResource {
  automountServiceAccountToken?: boolean;
}
export interface ConfigMap extends KubernetesResource {
  data: Record<string, string>;
}
export interface CronJob extends KubernetesResource {
  spec: {
    schedule: string;
    concurrencyPolicy: string;
    jobTemplate: {
      spec: {
        activeDeadlineSeconds?: number;
        template: {
          spec: {
            serviceAccountName?: string;
            terminationGracePeriodSeconds?: number;
            containers: KubernetesContainer[];
            volumes?: Array<{ name: string; emptyDir?: object; persistentVolumeClaim?: object }>;
          };
        };
      };
    };
  };
}
export interface Kustomization {
  kind: string;
  resources: string[];
}

/** The kit's files other than kustomization.yaml, each parsed. */
export function kubernetesKit(): { kustomization: Kustomization; files: string[]; resources: KubernetesResource[] } {
  const files = readdirSync(deployPath(KUBERNETES_KIT)).filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml');
  return {
    kustomization: loadYaml<Kustomization>(`${KUBERNETES_KIT}/kustomization.yaml`),
    files,
    resources: files.map((file) => loadYaml<KubernetesResource>(`${KUBERNETES_KIT}/${file}`)),
  };
}

function ofKind<T extends KubernetesResource>(resources: KubernetesResource[], kind: string): T {
  const found = resources.filter((resource) => resource.kind === kind);
  if (found.length !== 1) throw new Error(`the kit holds ${found.length} resources of kind ${kind}; expected one`);
  return found[0] as T;
}

export function kubernetesResources() {
  const { resources } = kubernetesKit();
  return {
    cronJob: ofKind<CronJob>(resources, 'CronJob'),
    serviceAccount: ofKind<ServiceAccount>(resources, 'ServiceAccount'),
    configMap: ofKind<ConfigMap>(resources, 'ConfigMap'),
  };
}

function readKubernetes(): JobRecipe {
  const { cronJob, configMap } = kubernetesResources();
  const pod = cronJob.spec.jobTemplate.spec.template.spec;
  const [container] = pod.containers;
  const env: EnvEntry[] = [];
  for (const from of container.envFrom ?? []) {
    // Only the kit's ConfigMap can be read here; a reference to another would leave its variables unchecked.
    if (from.configMapRef?.name !== configMap.metadata.name) throw new Error(`the CronJob reads its environment from ${JSON.stringify(from)}, not the kit's ConfigMap`);
    for (const [name, value] of Object.entries(configMap.data)) env.push({ name, source: { kind: 'literal', value } });
  }
  for (const variable of container.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    env.push({ name: variable.name, source: secret ? { kind: 'secret', reference: `${secret.name}/${secret.key}` } : { kind: 'literal', value: variable.value ?? '' } });
  }
  return {
    name: 'Kubernetes CronJob',
    env,
    stopGraceSeconds: pod.terminationGracePeriodSeconds ?? 30,
    timeoutSeconds: cronJob.spec.jobTemplate.spec.activeDeadlineSeconds ?? Infinity,
    everyMinutes: cronEveryMinutes(cronJob.spec.schedule),
    args: container.args,
  };
}

// ---- Cloud Run (deploy/cloud-run/job.yaml) ----

export interface CloudRunJob {
  apiVersion: string;
  kind: string;
  spec: {
    template: {
      spec: {
        taskCount: number;
        template: {
          spec: {
            maxRetries?: number;
            timeoutSeconds?: string | number;
            containers: Array<{
              args: string[];
              env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
              resources?: { limits?: { cpu?: string; memory?: string } };
            }>;
          };
        };
      };
    };
  };
}

export const cloudRunJob = () => loadYaml<CloudRunJob>('cloud-run/job.yaml');

function readCloudRun(): JobRecipe {
  const task = cloudRunJob().spec.template.spec.template.spec;
  const [container] = task.containers;
  // The schedule lives in the Cloud Scheduler command the file's comment gives.
  const schedule = /--schedule='([^']+)'/.exec(readDeploy('cloud-run/job.yaml'))?.[1] ?? '';
  return {
    name: 'Cloud Run job',
    env: container.env.map(({ name, value, valueFrom }) => ({
      name,
      source: valueFrom?.secretKeyRef ? { kind: 'secret', reference: `${valueFrom.secretKeyRef.name}/${valueFrom.secretKeyRef.key}` } : { kind: 'literal', value: value ?? '' },
    })),
    stopGraceSeconds: CLOUD_RUN_STOP_GRACE_SECONDS,
    // Cloud Run's default task timeout is 10 minutes.
    timeoutSeconds: Number(task.timeoutSeconds ?? 600),
    everyMinutes: cronEveryMinutes(schedule),
    args: container.args,
  };
}

// ---- ECS (deploy/ecs/task-definition.json, deploy/ecs/schedule.json) ----

export interface EcsTaskDefinition {
  family: string;
  requiresCompatibilities: string[];
  taskRoleArn?: string;
  ephemeralStorage?: { sizeInGiB: number };
  containerDefinitions: Array<{
    entryPoint?: string[];
    command: string[];
    stopTimeout?: number;
    environment: Array<{ name: string; value: string }>;
    secrets?: Array<{ name: string; valueFrom: string }>;
    logConfiguration?: { logDriver: string; options: Record<string, string> };
  }>;
}
export interface EcsSchedule {
  ScheduleExpression: string;
  FlexibleTimeWindow: { Mode: string };
  Target: {
    EcsParameters: {
      TaskDefinitionArn: string;
      LaunchType?: string;
      TaskCount?: number;
      NetworkConfiguration: { awsvpcConfiguration: { Subnets: string[]; AssignPublicIp: 'ENABLED' | 'DISABLED' } };
    };
  };
}

export const ecsTaskDefinition = () => loadJson<EcsTaskDefinition>('ecs/task-definition.json');
export const ecsSchedule = () => loadJson<EcsSchedule>('ecs/schedule.json');

/** A duration as coreutils' `timeout` reads it: a number with an optional s, m, h or d. */
export function coreutilsSeconds(duration: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(duration);
  if (!match) return NaN;
  return Number(match[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
}

/** The `timeout` wrapper of the entry point: its options, its duration and the command it runs. */
export function ecsTimeoutWrapper(entryPoint: string[] = []): { options: string[]; durationSeconds: number; killAfterSeconds: number; command: string[] } {
  if (entryPoint[0] !== 'timeout') return { options: [], durationSeconds: Infinity, killAfterSeconds: Infinity, command: entryPoint };
  const rest = entryPoint.slice(1);
  const firstOperand = rest.findIndex((word) => !word.startsWith('-'));
  const options = rest.slice(0, firstOperand);
  const killAfter = options.find((option) => option.startsWith('--kill-after='))?.slice('--kill-after='.length);
  return {
    options,
    durationSeconds: coreutilsSeconds(rest[firstOperand]),
    // Without --kill-after, `timeout` never sends SIGKILL itself: only the platform's stop grace applies.
    killAfterSeconds: killAfter === undefined ? Infinity : coreutilsSeconds(killAfter),
    command: rest.slice(firstOperand + 1),
  };
}

/** An EventBridge cron expression's step of minutes, `cron(0/15 * * * ? *)` → 15; NaN for any other form. */
export function eventBridgeEveryMinutes(expression: string): number {
  return Number(/^cron\(0\/(\d+) \* \* \* \? \*\)$/.exec(expression)?.[1]);
}

function readEcs(): JobRecipe {
  const [container] = ecsTaskDefinition().containerDefinitions;
  const wrapper = ecsTimeoutWrapper(container.entryPoint);
  return {
    name: 'ECS task on an EventBridge schedule',
    env: [
      ...container.environment.map(({ name, value }) => ({ name, source: { kind: 'literal', value } as const })),
      ...(container.secrets ?? []).map(({ name, valueFrom }) => ({ name, source: { kind: 'secret', reference: valueFrom } as const })),
    ],
    // Fargate's default stopTimeout is 30 s; the wrapper's --kill-after is the grace when the timeout fires.
    stopGraceSeconds: Math.min(container.stopTimeout ?? 30, wrapper.killAfterSeconds),
    timeoutSeconds: wrapper.durationSeconds,
    everyMinutes: eventBridgeEveryMinutes(ecsSchedule().ScheduleExpression),
    args: container.command,
  };
}

// ---- GitHub Actions (deploy/github-actions/loyalty-sync.yml) ----

export interface Workflow {
  on: { schedule?: Array<{ cron: string }> };
  concurrency?: { group: string; 'cancel-in-progress'?: boolean };
  permissions?: Record<string, string>;
  jobs: Record<
    string,
    {
      'timeout-minutes'?: number;
      env?: Record<string, string>;
      steps: Array<{ name?: string; uses?: string; with?: Record<string, string | number>; env?: Record<string, string>; run?: string }>;
    }
  >;
}

export const workflow = () => loadYaml<Workflow>('github-actions/loyalty-sync.yml');

/** The workflow's one job and its step that runs the container. */
export function workflowJob() {
  const jobs = Object.values(workflow().jobs);
  if (jobs.length !== 1) throw new Error(`the workflow has ${jobs.length} jobs; expected one`);
  const [job] = jobs;
  const run = job.steps.find((step) => step.run?.includes('docker run'));
  if (!run?.run) throw new Error('no step of the workflow runs the container');
  return { job, step: run, script: run.run };
}

/** `docker run`'s `-e NAME` and `-e NAME=VALUE` options, the image and the arguments after it. */
export function dockerRun(script: string): { passed: Array<{ name: string; value?: string }>; image: string; args: string[] } {
  const words = shellWords(script);
  const start = words.indexOf('run', words.indexOf('docker'));
  const passed: Array<{ name: string; value?: string }> = [];
  let index = start + 1;
  for (; index < words.length && words[index].startsWith('-'); index++) {
    if (words[index] !== '-e' && words[index] !== '--env') continue;
    const [name, ...value] = words[++index].split('=');
    passed.push(value.length === 0 ? { name } : { name, value: value.join('=') });
  }
  return { passed, image: words[index], args: words.slice(index + 1) };
}

const SECRET_EXPRESSION = /^\$\{\{\s*secrets\.([A-Za-z0-9_]+)\s*\}\}$/;

function readGitHubActions(): JobRecipe {
  const { job, step, script } = workflowJob();
  const set = { ...job.env, ...step.env };
  const { passed, args } = dockerRun(script);
  const env: EnvEntry[] = passed.map(({ name, value }) => {
    if (value !== undefined) return { name, source: { kind: 'literal', value } };
    const given = set[name];
    if (given === undefined) return { name, source: { kind: 'platform' } };
    const secret = SECRET_EXPRESSION.exec(given);
    return { name, source: secret ? { kind: 'secret', reference: `secrets.${secret[1]}` } : { kind: 'literal', value: String(given) } };
  });
  return {
    name: 'GitHub Actions workflow',
    env,
    stopGraceSeconds: GITHUB_STOP_GRACE_SECONDS,
    // GitHub's default job timeout is 360 minutes.
    timeoutSeconds: (job['timeout-minutes'] ?? 360) * 60,
    everyMinutes: cronEveryMinutes(workflow().on.schedule?.[0]?.cron ?? ''),
    args,
  };
}

/** Every recipe for a scheduled job without a volume. */
export function jobRecipes(): JobRecipe[] {
  return [readKubernetes(), readCloudRun(), readEcs(), readGitHubActions()];
}
