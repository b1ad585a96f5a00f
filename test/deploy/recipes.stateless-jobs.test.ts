import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  cloudRunJob,
  dockerRun,
  ecsSchedule,
  ecsTaskDefinition,
  ecsTimeoutWrapper,
  jobRecipes,
  KUBERNETES_KIT,
  kubernetesKit,
  kubernetesResources,
  readDeploy,
  workflow,
  workflowJob,
  type EnvEntry,
  type JobRecipe,
} from '../helpers/jobRecipes.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const defaults = JSON.parse(read('config/default.json')) as Record<string, unknown>;

/** The variables with a name of their own (README, "Configuration"); every other setting has its mapped form. */
const NAMED_VARIABLES = [
  'LOYALTY_API_KEY',
  'LOYALTY_BASE_URL',
  'LOYALTY_DB',
  'LOYALTY_EXPORT_DIR',
  'LOYALTY_EXPORT_URL',
  'LOYALTY_STATE_URL',
  'LOYALTY_METRICS_LISTEN',
  'LOYALTY_CONFIG',
  'LOG_LEVEL',
];

/** Variables that hold a credential: never a literal in a committed recipe. */
const CREDENTIALS = ['LOYALTY_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

/**
 * After the shutdown deadline, the aborted work gets 2 s to remove its half-written files (src/runtime/shutdown.ts),
 * and the run then saves its state to the bucket: a run with little new writes well under 1 MiB. 5 s is the
 * least any platform here leaves (Cloud Run's fixed 10 s, with a 5 s deadline); the recipes that may, leave more.
 */
const SAVE_MARGIN_SECONDS = 5;

/**
 * A first sync reads the whole API: 10M transactions take about 17 minutes at 20 requests a second (README),
 * the other streams and a first export and save come on top. Stopped half-way, a first run still has the whole
 * mirror to save, which no stop grace allows, so every first run would start over: an hour is the least that
 * leaves room; the recipes give 3 hours.
 */
const FIRST_SYNC_SECONDS = 3600;

/** `runtime.shutdownDeadlineSeconds` → `LOYALTY_RUNTIME__SHUTDOWN_DEADLINE_SECONDS`: sections joined by `__`, camelCase to UPPER_SNAKE. */
function mappedVariable(key: string): string {
  return `LOYALTY_${key
    .split('.')
    .map((section) => section.replace(/(?<=.)(?=[A-Z][a-z])/g, '_').toUpperCase())
    .join('__')}`;
}

/** The dotted keys of config/default.json's leaves (arrays are leaves: `export.formats`). */
function leafKeys(tree: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? leafKeys(value as Record<string, unknown>, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

const MAPPED_VARIABLES = new Map(leafKeys(defaults).map((key) => [mappedVariable(key), key]));

const literal = (recipe: JobRecipe, name: string): string | undefined => {
  const entry = recipe.env.find((variable) => variable.name === name);
  return entry?.source.kind === 'literal' ? entry.source.value : undefined;
};
const describeEntry = ({ name, source }: EnvEntry) => `${name} (${source.kind})`;

const recipes = jobRecipes();

describe.each(recipes.map((recipe) => [recipe.name, recipe] as const))('the %s recipe', (_name, recipe) => {
  it('keeps the state in a bucket: LOYALTY_STATE_URL is s3://BUCKET/PREFIX', () => {
    expect(literal(recipe, 'LOYALTY_STATE_URL')).toMatch(/^s3:\/\/[^/]+\/[^/].*$/);
  });

  it("takes the API key from the platform's secret store, and no credential from a literal", () => {
    const keys = recipe.env.filter((variable) => variable.name === 'LOYALTY_API_KEY');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.map(describeEntry)).toEqual(keys.map(({ name }) => `${name} (secret)`));
    const literalCredentials = recipe.env.filter((variable) => CREDENTIALS.includes(variable.name) && variable.source.kind === 'literal');
    expect(literalCredentials.map(describeEntry)).toEqual([]);
  });

  it("keeps the mirror and the export folder on the container's own disk, and the exports only in the bucket", () => {
    // /tmp is writable by the image's non-root user on every platform, and goes with the container.
    expect(literal(recipe, 'LOYALTY_DB')).toMatch(/^\/tmp\/.+\.db$/);
    expect(literal(recipe, 'LOYALTY_EXPORT_DIR')).toMatch(/^\/tmp\//);
    if (literal(recipe, 'LOYALTY_EXPORT_URL') !== undefined) expect(literal(recipe, 'LOYALTY_EXPORT__KEEP_LOCAL')).toBe('false');
  });

  it('sets only variables loyalty-sync reads: a named one, or the mapped form of a key of config/default.json', () => {
    const names = recipe.env.map(({ name }) => name).filter((name) => name.startsWith('LOYALTY_') || name === 'LOG_LEVEL');
    const unknown = names.filter((name) => !NAMED_VARIABLES.includes(name) && !MAPPED_VARIABLES.has(name));
    expect(unknown).toEqual([]);
    // Every name once: a second entry would override the first depending on the platform's order.
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives a stop grace at least the shutdown deadline it configures plus the final save', () => {
    const configured = literal(recipe, 'LOYALTY_RUNTIME__SHUTDOWN_DEADLINE_SECONDS');
    const deadline = configured === undefined ? (defaults.runtime as { shutdownDeadlineSeconds: number }).shutdownDeadlineSeconds : Number(configured);
    expect(deadline).toBeGreaterThan(0);
    expect(recipe.stopGraceSeconds).toBeGreaterThanOrEqual(deadline + SAVE_MARGIN_SECONDS);
  });

  it('has a timeout that lets a first sync finish', () => {
    expect(Number.isFinite(recipe.timeoutSeconds)).toBe(true);
    expect(recipe.timeoutSeconds).toBeGreaterThanOrEqual(FIRST_SYNC_SECONDS);
  });

  it('runs `once --export-daily --verify-daily` every 15 minutes, as the CronJob of deploy/kubernetes does', () => {
    // --verify-daily: the scheduled jobs are where a container deployment verifies and reconciles the ledger.
    expect(recipe.args.slice(0, 3)).toEqual(['once', '--export-daily', '--verify-daily']);
    expect(recipe.everyMinutes).toBe(15);
  });
});

describe('the Kubernetes kit without a volume', () => {
  const { cronJob, serviceAccount, configMap } = kubernetesResources();
  const pod = cronJob.spec.jobTemplate.spec.template.spec;
  const [container] = pod.containers;

  it('lists exactly its files in kustomization.yaml, each a resource with a name', () => {
    const { kustomization, files, resources } = kubernetesKit();
    expect(kustomization.kind).toBe('Kustomization');
    expect([...kustomization.resources].sort()).toEqual([...files].sort());
    for (const resource of resources) {
      expect(resource.apiVersion).toBeTruthy();
      expect(resource.kind).toBeTruthy();
      expect(resource.metadata.name).toBeTruthy();
    }
  });

  it('mounts no claim: its only volumes are emptyDirs, and the mirror lies on one of them', () => {
    const { resources } = kubernetesKit();
    expect(resources.map(({ kind }) => kind)).not.toContain('PersistentVolumeClaim');
    const volumes = pod.volumes ?? [];
    expect(volumes.filter((volume) => volume.emptyDir === undefined).map(({ name }) => name)).toEqual([]);
    // The root file system is read-only: LOYALTY_DB must be below a mounted emptyDir.
    const scratch = (container.volumeMounts ?? []).filter((mount) => volumes.some((volume) => volume.name === mount.name));
    expect(scratch.some((mount) => configMap.data.LOYALTY_DB.startsWith(`${mount.mountPath}/`))).toBe(true);
  });

  it('runs under a ServiceAccount without the API token, annotated for IRSA as the README says', () => {
    expect(pod.serviceAccountName).toBe(serviceAccount.metadata.name);
    expect(serviceAccount.automountServiceAccountToken).toBe(false);
    expect(serviceAccount.metadata.annotations?.['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::\d{12}:role\/.+/);
    expect(read('README.md')).toContain('eks.amazonaws.com/role-arn');
  });

  it('takes the key from the Secret the README creates, outside the kit, and never puts it in the ConfigMap', () => {
    const secret = parse(read('deploy/kubernetes/secret.yaml')) as { metadata: { name: string }; stringData: Record<string, string> };
    const key = container.env?.find((variable) => variable.name === 'LOYALTY_API_KEY')?.valueFrom?.secretKeyRef;
    expect(key?.name).toBe(secret.metadata.name);
    expect(Object.keys(secret.stringData)).toContain(key?.key);
    expect(read('README.md')).toContain(`kubectl create secret generic ${key?.name} --from-literal=${key?.key}=`);
    expect(Object.keys(configMap.data)).not.toContain('LOYALTY_API_KEY');
  });

  it('forbids concurrent scheduled runs (the lease covers a Job started by hand)', () => {
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    expect(readDeploy(`${KUBERNETES_KIT}/cronjob.yaml`)).toContain('kubectl create job --from');
  });
});

describe('the Cloud Run job', () => {
  const job = cloudRunJob();
  const task = job.spec.template.spec.template.spec;
  const env = (name: string) => task.containers[0].env.find((variable) => variable.name === name);

  it('is a run.googleapis.com/v1 Job of one task with its retries set', () => {
    expect(job.apiVersion).toBe('run.googleapis.com/v1');
    expect(job.kind).toBe('Job');
    expect(job.spec.template.spec.taskCount).toBe(1);
    expect(Number.isInteger(task.maxRetries)).toBe(true);
  });

  it('reaches GCS through its S3 interoperability endpoint with HMAC keys from Secret Manager', () => {
    expect(env('LOYALTY_EXPORT__S3__ENDPOINT')?.value).toBe('https://storage.googleapis.com');
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) expect(env(name)?.valueFrom?.secretKeyRef?.name).toBeTruthy();
  });
});

describe('the ECS task and its EventBridge schedule', () => {
  const taskDefinition = ecsTaskDefinition();
  const [container] = taskDefinition.containerDefinitions;
  const schedule = ecsSchedule();

  it('runs on Fargate with a task role, ephemeral storage for the mirror, and logs', () => {
    expect(taskDefinition.requiresCompatibilities).toEqual(['FARGATE']);
    expect(taskDefinition.taskRoleArn).toMatch(/^arn:aws:iam::\d{12}:role\/.+/);
    // Fargate's range is 21 to 200 GiB; without it a task gets 20 GiB.
    expect(taskDefinition.ephemeralStorage?.sizeInGiB).toBeGreaterThanOrEqual(21);
    expect(container.logConfiguration?.logDriver).toBe('awslogs');
  });

  it('reads its secrets from Secrets Manager or SSM', () => {
    expect(container.secrets?.length).toBeGreaterThan(0);
    for (const { valueFrom } of container.secrets ?? []) expect(valueFrom).toMatch(/^arn:aws:(secretsmanager|ssm):/);
  });

  it("times the run out with coreutils' timeout, which signals loyalty-sync alone", () => {
    const wrapper = ecsTimeoutWrapper(container.entryPoint);
    expect(wrapper.command).toEqual(['loyalty-sync']);
    // Without --foreground, timeout signals its process group too: loyalty-sync would see a second signal and exit at once.
    expect(wrapper.options).toContain('--foreground');
  });

  it('is started by a schedule of the same task definition, on time, on Fargate', () => {
    expect(schedule.FlexibleTimeWindow.Mode).toBe('OFF');
    expect(schedule.Target.EcsParameters.TaskDefinitionArn).toMatch(new RegExp(`:task-definition/${taskDefinition.family}(:\\d+)?$`));
    expect(schedule.Target.EcsParameters.LaunchType).toBe('FARGATE');
    expect(schedule.Target.EcsParameters.TaskCount ?? 1).toBe(1);
  });
});

describe('the GitHub Actions workflow', () => {
  const flow = workflow();
  const { job, step, script } = workflowJob();
  const awsStep = job.steps.find((candidate) => candidate.uses?.startsWith('aws-actions/configure-aws-credentials@'));

  it('runs one at a time, without cancelling the run in progress', () => {
    expect(flow.concurrency?.group).toBeTruthy();
    expect(flow.concurrency?.['cancel-in-progress']).toBe(false);
  });

  it('reaches AWS through OIDC with credentials that outlast the job', () => {
    expect(flow.permissions?.['id-token']).toBe('write');
    expect(awsStep?.with?.['role-to-assume']).toMatch(/^arn:aws:iam::\d{12}:role\/.+/);
    // The container gets the credentials once and cannot refresh them.
    expect(Number(awsStep?.with?.['role-duration-seconds'])).toBeGreaterThanOrEqual((job['timeout-minutes'] ?? Infinity) * 60);
  });

  it('passes every setting it makes into the container, by name, with the key only on the step that runs it', () => {
    const { passed } = dockerRun(script);
    const settings = Object.keys({ ...job.env, ...step.env }).filter((name) => name.startsWith('LOYALTY_') || name === 'LOG_LEVEL');
    expect(settings.filter((name) => !passed.some((variable) => variable.name === name))).toEqual([]);
    expect(passed.filter((variable) => variable.value !== undefined)).toEqual([]);
    expect(Object.keys(job.env ?? {})).not.toContain('LOYALTY_API_KEY');
  });

  it('makes docker the step\'s process, so the runner\'s stop signal reaches loyalty-sync', () => {
    expect(script.trim()).toMatch(/^exec docker run /);
  });
});

/** The files an operator reads for each recipe: the recipe itself and the notes beside it. */
const RECIPE_FILES: Record<string, string[]> = {
  'Kubernetes CronJob': [`${KUBERNETES_KIT}/cronjob.yaml`, `${KUBERNETES_KIT}/serviceaccount.yaml`],
  'Cloud Run job': ['cloud-run/job.yaml'],
  'ECS task on an EventBridge schedule': ['ecs/README.md', 'ecs/task-definition.json', 'ecs/schedule.json'],
  'GitHub Actions workflow': ['github-actions/loyalty-sync.yml'],
};
const recipeText = (recipe: JobRecipe) => (RECIPE_FILES[recipe.name] ?? []).map(readDeploy).join('\n');

/**
 * The IAM actions each S3 operation the code sends needs (AWS's Service Authorization Reference): listing
 * is a bucket action, the multipart steps are PutObject's, HeadObject is GetObject's.
 */
const IAM_ACTION_OF: Record<string, string> = {
  ListObjectsV2: 's3:ListBucket',
  ListMultipartUploads: 's3:ListBucketMultipartUploads',
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  PutObject: 's3:PutObject',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  AbortMultipartUpload: 's3:AbortMultipartUpload',
  DeleteObject: 's3:DeleteObject',
  DeleteObjects: 's3:DeleteObject',
};

describe('what an operator needs around each recipe', () => {
  interface Statement {
    Action: string | string[];
    Resource: string | string[];
    Condition?: { StringLike?: { 's3:prefix'?: string[] } };
  }
  const policy = JSON.parse(readDeploy('aws/iam-policy.json')) as { Statement: Statement[] };
  const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
  const sent = [...read('src/bucket/objects.ts').matchAll(/new (\w+)Command\(/g)].map((match) => match[1]);

  it.each(recipes.map((recipe) => [recipe.name, recipe] as const))('%s: can push its metrics to a Pushgateway, and says how', (_name, recipe) => {
    expect(recipeText(recipe)).toMatch(/--pushgateway"?,? "?https?:\/\//);
  });

  it.each(recipes.map((recipe) => [recipe.name, recipe] as const))('%s: names the network path it needs', (_name, recipe) => {
    expect(recipeText(recipe)).toMatch(/Network:|\*\*Network\.\*\*/);
  });

  it('ECS: a private subnet needs a NAT gateway or VPC endpoints, and the schedule says which subnet it is', () => {
    const text = readDeploy('ecs/README.md');
    expect(text).toContain('NAT gateway');
    expect(text).toContain('VPC endpoints');
    expect(text).toContain(`\`AssignPublicIp\` to \`${ecsSchedule().Target.EcsParameters.NetworkConfiguration.awsvpcConfiguration.AssignPublicIp}\``);
  });

  it('gives AWS recipes a policy with every action the code needs, and only those', () => {
    expect(sent.length).toBeGreaterThan(5);
    const needed = new Set(sent.map((operation) => IAM_ACTION_OF[operation]));
    expect(needed.has(undefined as unknown as string), `an S3 operation without its IAM action: ${sent.join(', ')}`).toBe(false);
    const granted = new Set(policy.Statement.flatMap((statement) => list(statement.Action)));
    expect([...granted].sort()).toEqual([...needed].sort());
  });

  it.each(recipes.filter((recipe) => recipe.name !== 'Cloud Run job').map((recipe) => [recipe.name, recipe] as const))(
    '%s: its role gets that policy, whose objects and listings stay under its state and export prefixes',
    (_name, recipe) => {
      expect(recipeText(recipe)).toContain('deploy/aws/iam-policy.json');
      const places = ['LOYALTY_STATE_URL', 'LOYALTY_EXPORT_URL'].map((name) => literal(recipe, name)).filter((url) => url !== undefined).map((url) => /^s3:\/\/([^/]+)\/(.+)$/.exec(url)!);
      const objectResources = policy.Statement.filter((statement) => list(statement.Action).some((action) => action.endsWith('Object') || action === 's3:AbortMultipartUpload')).flatMap((statement) => list(statement.Resource));
      expect(objectResources.sort()).toEqual(places.map(([, bucket, prefix]) => `arn:aws:s3:::${bucket}/${prefix}/*`).sort());
      const listing = policy.Statement.find((statement) => list(statement.Action).includes('s3:ListBucket'))!;
      expect(list(listing.Resource).sort()).toEqual(places.map(([, bucket]) => `arn:aws:s3:::${bucket}`).sort());
      expect(listing.Condition?.StringLike?.['s3:prefix']?.sort()).toEqual(places.map(([, , prefix]) => `${prefix}/*`).sort());
    },
  );

  it('Cloud Run: binds the bucket role with a condition on its prefix', () => {
    const recipe = recipes.find((candidate) => candidate.name === 'Cloud Run job')!;
    const [, bucket, prefix] = /^s3:\/\/([^/]+)\/(.+)$/.exec(literal(recipe, 'LOYALTY_STATE_URL')!)!;
    expect(readDeploy('cloud-run/job.yaml')).toContain(`resource.name.startsWith("projects/_/buckets/${bucket}/objects/${prefix}/")`);
  });

  /**
   * Cloud Run's file system is memory. What lies on it at once, per row of a 1M-transaction mirror: the mirror
   * (590 bytes a row, README "What the state costs"), the largest export file while it is written (the
   * transactions CSV, 860 bytes a row, measured on the simulator's small program), a save's base dump (8.7% of
   * the mirror, README), and the process (under 1 GiB).
   */
  it('Cloud Run: the memory limit covers a 1M-transaction mirror, its largest export file, a base save and the process', () => {
    const limit = cloudRunJob().spec.template.spec.template.spec.containers[0].resources?.limits?.memory ?? '';
    const match = /^(\d+)Gi$/.exec(limit);
    expect(match, `memory limit ${limit}`).not.toBeNull();
    const rows = 1_000_000;
    const needed = rows * 590 + rows * 860 + rows * 590 * 0.087 + 2 ** 30;
    expect(Number(match![1]) * 2 ** 30).toBeGreaterThanOrEqual(needed);
  });
});
