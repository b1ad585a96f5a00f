// Serving speed of the API simulator: walks every transaction of the 'large' data set by
// since_id with limit=500, as the worker does, and prints rows per second.
// Run after `npm run build`: node bench/simulator.bench.mjs
//
// The simulator runs in a worker thread, so the client's JSON parsing (which costs about as
// much as serving) does not share a core with the server: in real use the two are separate
// processes too.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

const PAGE_SIZE = 500;
const REQUIRED_ROWS_PER_SECOND = 20_000;

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url));
  const started = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  console.log(`simulator: generated the large data set in ${started.generationSeconds.toFixed(1)} s`);

  const headers = { authorization: `Bearer ${started.key}` };
  let sinceId = 0;
  let rows = 0;
  let bytes = 0;
  const start = performance.now();
  try {
    for (;;) {
      const response = await fetch(`${started.url}/v2/transactions?limit=${PAGE_SIZE}&since_id=${sinceId}`, { headers });
      if (response.status !== 200) throw new Error(`GET /v2/transactions answered ${response.status}: ${await response.text()}`);
      const text = await response.text();
      bytes += Buffer.byteLength(text);
      const page = JSON.parse(text).transactions;
      if (page.length === 0) break;
      rows += page.length;
      sinceId = page[page.length - 1].id;
    }
  } finally {
    worker.postMessage('close');
    await new Promise((resolve) => worker.once('exit', resolve));
  }
  const seconds = (performance.now() - start) / 1000;
  const rate = Math.round(rows / seconds);
  console.log(`simulator: served ${rows} transactions in ${seconds.toFixed(1)} s = ${rate.toLocaleString('en-US')} rows/s (${(bytes / seconds / 1e6).toFixed(1)} MB/s)`);
  if (rate < REQUIRED_ROWS_PER_SECOND) {
    console.log(`simulator: below the required ${REQUIRED_ROWS_PER_SECOND.toLocaleString('en-US')} rows/s`);
    process.exitCode = 1;
  }
} else {
  const { startSimulator } = await import('../dist/simulator/index.js');
  const generationStart = performance.now();
  const sim = await startSimulator({ size: 'large', seed: 1 });
  const generationSeconds = (performance.now() - generationStart) / 1000;
  parentPort.once('message', async () => {
    await sim.close();
    parentPort.close();
  });
  parentPort.postMessage({ url: sim.url, key: sim.keys.full, generationSeconds });
}
