// W1 burst (docs/WORKLOADS.md) on BullMQ, for a side-by-side with `delayq bench --workload w1`.
//
// 20,000 jobs of ~100 bytes, all due at T0 = first enqueue + 3 s, drained by 4 consumers (4 Workers, each
// with its own connection and, like delayq bench's workers, concurrency 100) that start before the enqueue.
// Reports, as delayq bench does: enqueue jobs/s = N / (last enqueue acknowledged - first enqueue sent),
// drain jobs/s = N / (last handler start - T0), lag = handler start - due (p50/p99/max, ms), duplicates,
// missing, and Redis's CPU (used_cpu_user + used_cpu_sys) from T0 until 1 s after the last start, per job.
// Redis runs on this machine, so Date.now() is the one clock for due times and handler starts.
// One unmeasured burst of 10,000 jobs warms the process up first, then --warmup N (default 1) unmeasured repetitions
// of W1 itself (as delayq bench does).
// Completed jobs are removed as they complete (removeOnComplete: true; compare with `delayq bench --done-retention 0s`);
// --keep-completed keeps them in the completed set, BullMQ's own default (compare with delayq's default of 1 h).
//
//   npm install            # bullmq and ioredis pinned in package.json (docs/peers/package.json)
//   node bullmq-w1.mjs --redis redis://127.0.0.1:PORT [--reps 1] [--jobs 20000] [--consumers 4] [--concurrency 100]
//                      [--keep-completed] [--warmup 1]
//
// Prints one JSON object per repetition. Every queue it creates is obliterated afterwards; nothing else is touched.
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const VERSION = require('bullmq/package.json').version;

function option(name, fallback) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const url = new URL(option('redis', 'redis://127.0.0.1:6380'));
const connection = { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
const REPS = Number(option('reps', '1'));
const WARMUP = Number(option('warmup', '1'));
const JOBS = Number(option('jobs', '20000'));
const CONSUMERS = Number(option('consumers', '4'));
const CONCURRENCY = Number(option('concurrency', '100'));
const KEEP_COMPLETED = process.argv.includes('--keep-completed');
const LEAD_MS = 3000;
const GRACE_MS = 1000;
const PATTERN = '{"order":731,"action":"timeout","note":"delayq bench payload"}';
const PAYLOAD = PATTERN.repeat(2).slice(0, 100); // the bytes delayq bench sends, as a string field

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const probe = new IORedis(connection); // the benchmark's own connection: INFO only

async function redisCpuMicros() {
  const info = await probe.info('cpu');
  const field = (k) => Number((info.match(new RegExp('^' + k + ':([0-9.]+)', 'm')) || [0, 0])[1]);
  return Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6);
}

async function burst(name, n) {
  const queue = new Queue(name, { connection, prefix: 'bullw1' });
  await queue.waitUntilReady();
  const starts = new Map(); // job id -> handler start (ms, float)
  let duplicates = 0;
  let t0 = 0;
  const workers = [];
  for (let i = 0; i < CONSUMERS; i++) {
    const w = new Worker(name, async (job) => {
      const now = performance.timeOrigin + performance.now();
      if (starts.has(job.id)) duplicates++;
      else starts.set(job.id, now);
    }, { connection, prefix: 'bullw1', concurrency: CONCURRENCY, autorun: true });
    await w.waitUntilReady();
    workers.push(w);
  }
  const sent = Date.now();
  t0 = sent + LEAD_MS;
  const jobs = [];
  for (let i = 0; i < n; i++) {
    // timestamp + delay = T0 exactly, whatever time building the jobs takes
    jobs.push({ name: 'w1', data: { p: PAYLOAD }, opts: { jobId: 'w1-' + i, timestamp: sent, delay: LEAD_MS,
      removeOnComplete: !KEEP_COMPLETED, removeOnFail: true } });
  }
  const sentHr = performance.now();
  const chunks = [];
  for (let i = 0; i < n; i += 1000) chunks.push(queue.addBulk(jobs.slice(i, i + 1000))); // all in flight at once
  await Promise.all(chunks);
  const enqueueRate = n / ((performance.now() - sentHr) / 1000);
  const wait = t0 - Date.now();
  if (wait > 0) await sleep(wait);
  const cpuBefore = await redisCpuMicros();
  const deadline = t0 + 30000 + n;
  while (starts.size < n && Date.now() < deadline) await sleep(20);
  const all = starts.size >= n;
  if (all) await sleep(GRACE_MS);
  const cpuAfter = await redisCpuMicros();
  const lags = [...starts.values()].map((s) => s - t0).sort((a, b) => a - b);
  const last = Math.max(...starts.values());
  await Promise.all(workers.map((w) => w.close()));
  await queue.obliterate({ force: true });
  await queue.close();
  return {
    system: 'bullmq', bullmq: VERSION, node: process.version, jobs: n, consumers: CONSUMERS, concurrency: CONCURRENCY,
    remove_on_complete: !KEEP_COMPLETED,
    enqueue_jobs_per_s: Math.round(enqueueRate),
    drain_jobs_per_s: all ? Math.round(n / ((last - t0) / 1000)) : null,
    lag_p50_ms: +percentile(lags, 50).toFixed(2), lag_p99_ms: +percentile(lags, 99).toFixed(2),
    lag_max_ms: +lags[lags.length - 1].toFixed(2), duplicates, missing: n - starts.size,
    redis_cpu_us_per_job: +((cpuAfter - cpuBefore) / n).toFixed(1),
  };
}

const tag = process.pid + '-' + Date.now();
await burst('warmup-' + tag, Math.min(10000, JOBS)); // unmeasured
for (let rep = 1; rep <= WARMUP; rep++) {
  const r = await burst('w1-warmup-' + tag + '-' + rep, JOBS); // unmeasured, but a lost or repeated job is still told
  if (r.duplicates > 0 || r.missing > 0) console.log(JSON.stringify({ warmup: rep, ...r }));
}
for (let rep = 1; rep <= REPS; rep++) {
  const r = await burst('w1-' + tag + '-' + rep, JOBS);
  console.log(JSON.stringify({ rep, ...r }));
}
probe.disconnect();
process.exit(0);
