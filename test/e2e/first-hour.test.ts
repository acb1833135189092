// The first hour of a self-hoster (issue 18, findings 14-20), against the compiled binary: what the
// CLI prints and exits with, and what the server answers over HTTP.

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import pkg from "../../package.json";
import { type Sandbox, sandbox } from "../support/binary";

// Child processes on a busy machine need more than the 5 s default.
setDefaultTimeout(30_000);

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});
afterAll(() => box?.cleanup());

describe("help and version", () => {
  test("spyglass --help, -h and help list every command with its usage, exit 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const result = await box.cli(args);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      for (const usage of [
        "spyglass serve [--host H] [--port N]",
        "spyglass account create --email E --password P",
        "spyglass account plan --email E --plan",
        "spyglass brand create --email E --name N",
        "spyglass key create --email E --brand ID --name N",
        "spyglass demo",
        "spyglass track [--brand ID]",
        "spyglass backup FILE",
        "spyglass help COMMAND",
        "--version",
      ]) {
        expect(result.stdout).toContain(usage);
      }
    }
  });

  test("spyglass help COMMAND prints that command's usage; help of an unknown command exits 2", async () => {
    const one = await box.cli(["help", "backup"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("usage: spyglass backup FILE");
    expect(one.stdout).not.toContain("spyglass serve");

    const group = await box.cli(["help", "account"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("spyglass account create --email E");
    expect(group.stdout).toContain("spyglass account plan --email E");
    expect(group.stdout).not.toContain("spyglass brand");

    expect((await box.cli(["help", "brand", "create"])).stdout).toContain("usage: spyglass brand create --email E --name N");
    expect((await box.cli(["brand", "create", "-h"])).stdout).toContain("usage: spyglass brand create --email E --name N");

    const unknown = await box.cli(["help", "nonsense"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")[0]).toBe('spyglass: unknown command "nonsense"; run "spyglass help" for the list');
  });

  test("spyglass --version prints the package's version, the same as GET /healthz", async () => {
    const result = await box.cli(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`spyglass ${pkg.version}\n`);
    const server = await box.serve();
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(await health.json()).toEqual({ status: "ok", version: pkg.version });
    } finally {
      await server.stop();
    }
  });

  test("spyglass account alone (or with only flags) prints the account commands' usage and exits 2", async () => {
    for (const args of [["account"], ["account", "--data", "elsewhere"]]) {
      const result = await box.cli(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).not.toContain("unknown command");
      expect(result.stderr).toContain("spyglass account create --email E --password P");
      expect(result.stderr).toContain("spyglass account plan --email E --plan");
    }
    const wrong = await box.cli(["account", "delete"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown command "account delete"');
    expect(wrong.stderr).toContain("spyglass account create --email E");
  });
});
