// The queues users would pick instead of Girô's relay, measured the same way (BENCHMARKS.md):
// N jobs enqueued one transaction at a time, then worked by a no-op handler with 10 in flight,
// on a scratch database of the given cluster (created and dropped here). Progress goes to
// stderr; the JSON result to stdout. Run through `giro bench peers` or alone:
//
//   node bench/peers/run.mjs --pg-url postgres://postgres:postgres@127.0.0.1:15432/postgres --jobs 10000
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";

import { Logger, makeWorkerUtils, run } from "graphile-worker";
import PgBoss from "pg-boss";
import pg from "pg";

const require = createRequire(import.meta.url);

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const adminUrl = arg("pg-url", process.env.GIRO_BENCH_PG_URL ?? "postgres://postgres:postgres@127.0.0.1:15432/postgres");
const jobs = Number(arg("jobs", "10000"));
const concurrency = Number(arg("concurrency", "10"));
const only = arg("only", "graphile-worker,pg-boss").split(",");

function dbUrl(name) {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin(sql) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A scratch database for one peer, dropped afterwards whatever happens. */
async function withScratch(tag, body) {
  const name = `giro_bench_peer_${tag}_${process.pid}`;
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  try {
    return await body(dbUrl(name));
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function waitUntil(check) {
  for (;;) {
    if (await check()) return;
    await sleep(20);
  }
}

function version(pkg) {
  return require(`${pkg}/package.json`).version;
}

function progress(label, done, total) {
  if (done % 500 === 0 || done === total) process.stderr.write(`\r  ${label}: ${done}/${total}`);
}

// graphile-worker: addJob per job (one transaction each), then the runner at `concurrency`
// (its defaults otherwise: LISTEN/NOTIFY wake-ups, 2 s poll); a job is worked once deleted.
async function graphileWorker(url) {
  const quiet = new Logger(() => (level, message) => {
    if (level === "error") process.stderr.write(`graphile-worker: ${message}\n`);
  });
  const utils = await makeWorkerUtils({ connectionString: url, logger: quiet });
  await utils.migrate();
  let t0 = performance.now();
  for (let i = 0; i < jobs; i++) {
    await utils.addJob("noop", { i });
    progress("graphile-worker enqueue", i + 1, jobs);
  }
  const enqueue = (performance.now() - t0) / 1000;
  process.stderr.write("\n");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t0 = performance.now();
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    logger: quiet,
    taskList: { noop: async () => {} },
  });
  await waitUntil(async () => {
    const left = Number((await c.query("SELECT count(*) AS n FROM graphile_worker._private_jobs")).rows[0].n);
    process.stderr.write(`\r  graphile-worker work: ${jobs - left}/${jobs}`);
    return left === 0;
  });
  const secs = (performance.now() - t0) / 1000;
  process.stderr.write(`\n  graphile-worker: ${(jobs / secs).toFixed(0)} jobs/s\n`);
  await runner.stop();
  await c.end();
  await utils.release();
  return {
    versao: version("graphile-worker"),
    jobs,
    concorrencia: concurrency,
    enfileirarJobsPorSegundo: Math.round(jobs / enqueue),
    segundos: secs,
    jobsPorSegundo: Math.round(jobs / secs),
  };
}

// pg-boss: send per job (one transaction each), then `concurrency` loops of fetch one job →
// no-op → complete. Not `work()`: in pg-boss 10 a worker sleeps its polling interval (≥ 0.5 s)
// after every fetch, even a fruitful one, so it measures the interval, not the queue.
async function pgBoss(url) {
  const boss = new PgBoss({ connectionString: url, max: concurrency + 2 });
  boss.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
  await boss.start();
  await boss.createQueue("noop");
  let t0 = performance.now();
  for (let i = 0; i < jobs; i++) {
    await boss.send("noop", { i });
    progress("pg-boss enqueue", i + 1, jobs);
  }
  const enqueue = (performance.now() - t0) / 1000;
  process.stderr.write("\n");
  let done = 0;
  t0 = performance.now();
  const loop = async () => {
    while (done < jobs) {
      const got = await boss.fetch("noop");
      if (got.length === 0) {
        await sleep(5);
        continue;
      }
      await boss.complete("noop", got.map((j) => j.id));
      done += got.length;
      progress("pg-boss work", done, jobs);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const secs = (performance.now() - t0) / 1000;
  process.stderr.write(`\n  pg-boss: ${(jobs / secs).toFixed(0)} jobs/s\n`);
  await boss.stop({ graceful: false, wait: true });
  return {
    versao: version("pg-boss"),
    jobs,
    concorrencia: concurrency,
    enfileirarJobsPorSegundo: Math.round(jobs / enqueue),
    segundos: secs,
    jobsPorSegundo: Math.round(jobs / secs),
  };
}

const out = { node: process.version };
if (only.includes("graphile-worker")) out.graphileWorker = await withScratch("gw", graphileWorker);
if (only.includes("pg-boss")) out.pgBoss = await withScratch("boss", pgBoss);
process.stdout.write(`${JSON.stringify(out)}\n`);
