// Before/after comparison of the public content API: two or more server binaries, the same seeded
// data, their rounds interleaved (A B B A A B…) so that drift on a shared machine falls on all of
// them alike. Reports each binary's median server CPU per request and requests per second.
// Not a scenario of `./build.sh bench`; run by hand when a change is meant to make serving cheaper:
//
//   cp dist/spyglass /tmp/spyglass-before        # build the old commit first
//   bun run build/compile.ts                     # then the new one
//   bun run bench/compare.ts before=/tmp/spyglass-before after=dist/spyglass [--list] [--connections 1]
//
// Single runs of bench/public.ts vary by ±0.1 in ratio on a 2-core VM; interleaved medians of the
// same binary agree within a few per cent, which is what telling a 5 µs change apart needs.
import { parseArgs } from "node:util";
import { load, median, requireBinary, type Sandbox, type ServerProcess, sandbox } from "./lib";
import { cpuMicros, seed } from "./public";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: "boolean", default: false },
    connections: { type: "string", default: "32" },
    requests: { type: "string", default: "" },
    rounds: { type: "string", default: "8" },
  },
});
const connections = Number(values.connections);
const requests = Number(values.requests || (connections === 1 ? 5_000 : 15_000));
const rounds = Number(values.rounds);
const binaries = positionals.map((arg) => {
  const [name, path] = arg.includes("=") ? (arg.split("=", 2) as [string, string]) : [arg, arg];
  return { name, path: requireBinary(path) };
});
if (binaries.length < 2 || !(connections > 0) || !(requests > 0) || !(rounds > 0)) {
  console.error("usage: bun run bench/compare.ts name=BINARY name=BINARY... [--list] [--connections N] [--requests N] [--rounds N]");
  process.exit(2);
}

interface Contender {
  name: string;
  box: Sandbox;
  server: ServerProcess;
  url: string;
  cpuUs: number[];
  rps: number[];
}

const contenders: Contender[] = [];
try {
  for (const { name, path } of binaries) {
    const box = await sandbox({ binary: path, toml: "[tracking]\nenabled = false\n" });
    const { siteKey, slug } = await seed(box);
    const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true });
    const url = `${server.url}/api/public/articles${values.list ? "" : `/${slug}`}?key=${siteKey}`;
    contenders.push({ name, box, server, url, cpuUs: [], rps: [] });
  }
  for (const c of contenders) await load({ url: c.url, connections, maxRequests: 3_000, maxMs: 10_000 });
  for (let round = 0; round < rounds; round++) {
    for (const c of round % 2 ? [...contenders].reverse() : contenders) {
      const before = cpuMicros(c.server.pid);
      const result = await load({ url: c.url, connections, maxRequests: requests, maxMs: 60_000 });
      if (result.errors > 0) throw new Error(`${c.name}: ${result.errors} failed requests`);
      c.cpuUs.push((cpuMicros(c.server.pid) - before) / result.requests);
      c.rps.push(result.rps);
    }
  }
  console.log(`${values.list ? "list" : "single article"}, ${connections} connection(s), ${rounds} rounds of ${requests} requests`);
  for (const c of contenders) {
    const each = c.cpuUs.map((us) => us.toFixed(0)).join(" ");
    console.log(`${c.name.padEnd(12)} CPU/request ${median(c.cpuUs).toFixed(1)} µs (rounds ${each}), ${Math.round(median(c.rps))} req/s`);
  }
} finally {
  for (const c of contenders) c.box.cleanup();
}
