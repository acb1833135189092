// A deletion with no undo, asked for at a terminal, is confirmed by typing its name (or email) again;
// anything else deletes nothing. Scripts (no terminal) and --yes are not asked. The terminal is a
// real pseudo-terminal: util-linux's script(1) runs the binary in one and types what it is given.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { baseEnv, type Sandbox, sandbox } from "../support/binary";

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox();
  for (const args of [
    ["account", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--plan", "visibility"],
    ["brand", "create", "--email", "owner@example.com", "--name", "Acme"],
    ["brand", "create", "--email", "owner@example.com", "--name", "Globex"],
    ["account", "create", "--email", "other@example.com", "--password", "correct horse battery", "--plan", "visibility"],
  ]) {
    const made = await box.cli(args);
    if (made.code !== 0) throw new Error(made.stderr);
  }
});
afterAll(() => box?.cleanup());

/** Runs the binary at a terminal of its own, typing `typed`: its exit code and all it wrote there. */
async function atTerminal(args: string[], typed: string): Promise<{ code: number; said: string }> {
  const command = [box.binary, ...args].map((word) => `'${word}'`).join(" ");
  const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
    cwd: box.dir,
    env: baseEnv(box.databaseUrl ? { SPYGLASS_DATABASE_URL: box.databaseUrl } : {}),
    stdin: new Blob([typed]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [said, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, said };
}

const brands = async () =>
  (await box.cliJson<{ brands: Array<{ name: string }> }>(["brand", "list", "--email", "owner@example.com"])).brands.map((b) => b.name);

test("at a terminal, brand delete asks for the brand's name: anything else deletes nothing; the name deletes it", async () => {
  const refused = await atTerminal(["brand", "delete", "--email", "owner@example.com", "--brand", "Acme"], "Acm\n");
  expect(refused.code).toBe(1);
  expect(refused.said).toContain("There is no undo. Type its name to delete it: ");
  expect(refused.said).toContain("spyglass: not confirmed (what was typed differs): nothing was deleted");
  expect(await brands()).toEqual(["Acme", "Globex"]);

  const confirmed = await atTerminal(["brand", "delete", "--email", "owner@example.com", "--brand", "Acme"], "acme\n");
  expect(confirmed.code).toBe(0);
  expect(confirmed.said).toContain("Deleted the brand Acme");
  expect(await brands()).toEqual(["Globex"]);

  // --yes is not asked, at a terminal either; a script (no terminal) never is.
  const yes = await atTerminal(["brand", "delete", "--email", "owner@example.com", "--brand", "Globex", "--yes"], "");
  expect(yes.code).toBe(0);
  expect(yes.said).not.toContain("Type its name");
  expect(await brands()).toEqual([]);
});

test("at a terminal, account delete asks for the email; from a script it deletes at once, as before", async () => {
  const refused = await atTerminal(["account", "delete", "--email", "other@example.com"], "\n");
  expect(refused.code).toBe(1);
  expect(refused.said).toContain("Type the email to delete it: ");
  expect((await box.cli(["brand", "list", "--email", "other@example.com"])).code).toBe(0);
  const scripted = await box.cli(["account", "delete", "--email", "other@example.com"]);
  expect(scripted.code).toBe(0);
  expect((await box.cli(["brand", "list", "--email", "other@example.com"])).stderr).toContain("other@example.com");
});
