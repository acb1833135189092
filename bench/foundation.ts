// Foundation: binary size, start-up time, idle memory, and /healthz throughput against a bare
// Bun.serve answering the same bytes (the framework's overhead on the cheapest route).
import { statSync } from "node:fs";
import { BINARY, baseline, load, median, report, requireBinary, sandbox } from "./lib";

const NAME = "foundation";

export async function run(): Promise<void> {
  requireBinary();
  report(NAME, "binary size", Math.round((statSync(BINARY).size / 1024 / 1024) * 10) / 10, "MiB");

  const box = await sandbox();
  try {
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const server = await box.serve();
      starts.push(server.startMs);
      await server.stop();
    }
    report(NAME, "spawn to first /healthz 200 (median of 5)", Math.round(median(starts)), "ms");
    await startTasks(box);

    const server = await box.serve();
    await Bun.sleep(1000);
    report(NAME, "idle RSS after start-up", Math.round(server.rssKb() / 1024), "MiB");

    const health = await fetch(`${server.url}/healthz`);
    const base = baseline(await health.text(), { "content-type": health.headers.get("content-type") ?? "application/json" });
    try {
      for (const connections of [1, 32]) {
        const opts = { connections, maxRequests: 50_000, maxMs: 5_000 };
        await load({ url: `${server.url}/healthz`, ...opts, maxRequests: 2_000 });
        const app = await load({ url: `${server.url}/healthz`, ...opts });
        const bare = await load({ url: `${base.url}/healthz`, ...opts });
        report(
          NAME,
          `/healthz rps, ${connections} conn (spyglass)`,
          Math.round(app.rps),
          `req/s p50 ${app.p50Ms.toFixed(2)} ms p95 ${app.p95Ms.toFixed(2)} ms`,
        );
        report(
          NAME,
          `/healthz rps, ${connections} conn (bare Bun.serve)`,
          Math.round(bare.rps),
          `req/s p50 ${bare.p50Ms.toFixed(2)} ms p95 ${bare.p95Ms.toFixed(2)} ms`,
        );
        report(NAME, `/healthz rps ratio, ${connections} conn`, app.rps / bare.rps, "x of bare");
        if (app.errors > 0) report(NAME, `/healthz errors, ${connections} conn`, app.errors);
      }
    } finally {
      base.stop();
    }
    report(NAME, "RSS after load", Math.round(server.rssKb() / 1024), "MiB");
    await server.stop();
  } finally {
    box.cleanup();
  }
}

/** How long after listening /healthz is probed: past the warm-up (0.5 s) and the sanitizer's self-test. */
const START_TASKS_MS = 3_000;

/**
 * The start's own tasks after listening (the sanitizer's self-test starting its worker, the warm-up:
 * the tool catalogue, the dashboard's gzip, the MCP SDK): /healthz every 2 ms until
 * START_TASKS_MS after the first answer, the slowest probe reported (median of 3 starts).
 */
async function startTasks(box: Awaited<ReturnType<typeof sandbox>>): Promise<void> {
  const worst: Array<{ ms: number; at: number }> = [];
  for (let i = 0; i < 3; i++) {
    const server = await box.serve();
    const listened = performance.now();
    const max = { ms: 0, at: 0 };
    while (performance.now() - listened < START_TASKS_MS) {
      const sent = performance.now();
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      const ms = performance.now() - sent;
      if (ms > max.ms) Object.assign(max, { ms, at: sent - listened });
      await Bun.sleep(2);
    }
    worst.push(max);
    await server.stop();
  }
  const each = worst.map((w) => `${w.ms.toFixed(1)} at ${(w.at / 1000).toFixed(2)} s`).join(", ");
  report(NAME, "/healthz max in the 3 s after start (median of 3)", median(worst.map((w) => w.ms)), `ms (${each})`);
}
