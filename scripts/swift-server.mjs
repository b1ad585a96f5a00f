// OpenStack Swift with its S3 API, on loopback: a production object store that checks SigV4 signatures
// and Content-MD5 and implements multipart listing and abort, unlike in-process fakes. The tests
// (test/globalSetup.ts) and the publish benchmark start it from here. scripts/install-swift.sh unpacks
// Debian's packages into a cache folder; this starts the four servers (proxy, account, container,
// object) from there with a private config and one-replica rings. Types: swift-server.d.mts.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
export const SWIFT_ACCESS_KEY_ID = 'test:tester';
export const SWIFT_SECRET_ACCESS_KEY = 'testing';
export function swiftHome() {
  return process.env.LOYALTY_SWIFT_HOME ?? join(process.env.LOYALTY_CACHE ?? join(homedir(), '.cache', 'loyalty-sync'), 'swift');
}
const SERVERS = [{ name: 'account' }, { name: 'container' }, { name: 'object' }];
const LAUNCHER = `import sys
from swift.common.utils import set_swift_dir
from swift.common.wsgi import run_wsgi
set_swift_dir(sys.argv[3])
sys.exit(run_wsgi(sys.argv[1], sys.argv[2]))
`;
export async function startSwift() {
  const root = join(swiftHome(), 'root');
  if (!existsSync(join(root, '.complete'))) {
    throw new Error(`Swift is not unpacked in ${root}: run scripts/install-swift.sh once (it uses apt-get download; npm test does it).`);
  }
  // Debian's compiled modules match Debian's interpreter; another python3 on PATH may not load them.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const env = {
    ...process.env,
    PYTHONPATH: join(root, 'usr/lib/python3/dist-packages'),
    LD_LIBRARY_PATH: join(root, 'usr/lib/x86_64-linux-gnu'),
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const dir = mkdtempSync(join(tmpdir(), 'swift-'));
  const etc = join(dir, 'etc');
  mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
  mkdirSync(etc);
  const ports = { proxy: await freePort(), account: await freePort(), container: await freePort(), object: await freePort() };
  writeFileSync(join(etc, 'swift.conf'), `[swift-hash]\nswift_hash_path_suffix = loyalty\nswift_hash_path_prefix = sync\n\n[storage-policy:0]\nname = gold\ndefault = yes\n`);
  for (const { name } of SERVERS) {
    writeFileSync(join(etc, `${name}-server.conf`), `[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = ${ports[name]}\ndevices = ${join(dir, 'srv')}\nmount_check = false\nswift_dir = ${etc}\nworkers = 0\nlog_level = WARNING\n\n` +
      `[pipeline:main]\npipeline = ${name}-server\n\n[app:${name}-server]\nuse = egg:swift#${name}\n`);
  }
  // The three rings are independent: built side by side, they take a third of the time.
  await Promise.all(SERVERS.map(({ name }) => buildRing(python, env, join(root, 'usr/bin/swift-ring-builder'), join(etc, `${name}.builder`), ports[name])));
  const filters = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging', 'cache', 'listing_formats', 's3api', 'tempauth', 'bulk', 'copy', 'slo', 'dlo'];
  const filterUse = { 'proxy-logging': 'proxy_logging', cache: 'memcache' };
  writeFileSync(join(etc, 'proxy-server.conf'), `[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = ${ports.proxy}\nswift_dir = ${etc}\nworkers = 0\nlog_level = WARNING\n\n` +
    `[pipeline:main]\npipeline = ${filters.join(' ')} proxy-logging proxy-server\n\n` +
    `[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\nallow_account_management = true\n\n` +
    `[filter:s3api]\nuse = egg:swift#s3api\nlocation = us-east-1\n\n` +
    `[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = ${SWIFT_SECRET_ACCESS_KEY} .admin\n\n` +
    filters
      .filter((name) => name !== 's3api' && name !== 'tempauth')
      .map((name) => `[filter:${name}]\nuse = egg:swift#${filterUse[name] ?? name.replace(/-/g, '_')}\n`)
      .join('\n'));
  writeFileSync(join(dir, 'launch.py'), LAUNCHER);
  const children = [];
  const output = [];
  const stop = () => {
    for (const child of children)
      child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  for (const name of ['account', 'container', 'object', 'proxy']) {
    const child = spawn(python, [join(dir, 'launch.py'), join(etc, `${name}-server.conf`), `${name}-server`, etc], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk) => output.push(chunk.toString()));
    children.push(child);
  }
  const endpoint = `http://127.0.0.1:${ports.proxy}`;
  try {
    await waitHealthy(endpoint, children);
  }
  catch (error) {
    stop();
    throw new Error(`Swift did not start: ${error.message}\n${output.join('').slice(-4000)}`);
  }
  return { endpoint, accessKeyId: SWIFT_ACCESS_KEY_ID, secretAccessKey: SWIFT_SECRET_ACCESS_KEY, stop };
}
async function buildRing(python, env, ringBuilder, builder, port) {
  for (const args of [['create', '10', '1', '1'], ['add', `r1z1-127.0.0.1:${port}/d1`, '100'], ['rebalance']]) {
    await new Promise((resolve, reject) => {
      execFile(python, [ringBuilder, builder, ...args], { env }, (error, stdout, stderr) => {
        // rebalance exits 1 with a warning about one replica on one device; the ring is still written.
        if (error && !(args[0] === 'rebalance' && error.code === 1))
          reject(new Error(`swift-ring-builder ${args.join(' ')} failed: ${stderr || stdout}`));
        else
          resolve();
      });
    });
  }
}
async function waitHealthy(endpoint, children) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const exited = children.find((child) => child.exitCode !== null);
    if (exited)
      throw new Error(`a Swift server exited with code ${exited.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/healthcheck`);
      if (response.ok)
        return;
    }
    catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error('the proxy did not answer /healthcheck within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
