// The tag tools in process, through the MCP door (the SDK client on app.handle with a bearer key):
// the happy paths, the errors with their sentences, and the security cases side by side. The same
// tools against the compiled binary: test/e2e/mcp.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, rpc } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

const TAG_NOT_FOUND = "Tag not found; list_tags shows the brand's tags and their ids.";
const exists = (name: string) =>
  `A tag named "${name}" already exists for this brand (tag names ignore case); use it or pick another name.`;

let s: SeededToolServer;
let a: Client;

beforeEach(async () => {
  s = await seededToolServer();
  a = await s.client(s.seed.a.key);
});
afterEach(() => s.close());

const names = async (client: Client): Promise<string[]> =>
  (await call(client, "list_tags")).data.tags.map((tag: { name: string }) => tag.name);

describe("creating and listing", () => {
  test("create_tag keeps the name as written and stores the colour in lower case", async () => {
    const { data, error } = await call(a, "create_tag", { name: "Enterprise", color: "#AABBCC" });
    expect(error).toBeNull();
    expect(data.tag).toMatchObject({ name: "Enterprise", color: "#aabbcc", prompt_count: 0 });
    expect(data.tag.id).toMatch(/^tag_/);
    expect(await names(a)).toEqual(["Acme launch", "Enterprise"]);
  });

  test("list_tags counts each tag's prompts and pages with a cursor", async () => {
    await call(a, "create_tag", { name: "Second" });
    const first = await call(a, "list_tags", { limit: 1 });
    expect(first.data.tags).toMatchObject([{ id: s.seed.a.ids.tagId, name: "Acme launch", prompt_count: 1 }]);
    expect(typeof first.data.next_cursor).toBe("string");
    const second = await call(a, "list_tags", { limit: 1, cursor: first.data.next_cursor });
    expect(second.data.tags).toMatchObject([{ name: "Second", prompt_count: 0 }]);
    expect(second.data.next_cursor).toBeNull();
  });

  test("a tag name that differs only in case is refused", async () => {
    expect((await call(a, "create_tag", { name: "ACME LAUNCH" })).error).toBe(exists("ACME LAUNCH"));
    expect(await names(a)).toEqual(["Acme launch"]);
  });

  test("a colour that is not #rrggbb is refused, naming the field", async () => {
    for (const color of ["red", "#abc", "#gggggg"]) {
      expect((await call(a, "create_tag", { name: "Bad", color })).error).toBe(
        "Invalid input for create_tag: color must be a colour as #rrggbb, such as #3b82f6.",
      );
    }
    expect(await names(a)).toEqual(["Acme launch"]);
  });

  test("a tag name must be given and be at most 50 characters", async () => {
    expect((await call(a, "create_tag", {})).error).toBe("Invalid input for create_tag: name is required.");
    expect((await call(a, "create_tag", { name: "x".repeat(51) })).error).toBe(
      "Invalid input for create_tag: name must be at most 50 characters.",
    );
    expect((await call(a, "create_tag", { name: "   " })).error).toBe("name: a tag name must be 1 to 50 characters.");
  });
});

describe("editing and deleting", () => {
  test("update_tag renames and clears the colour", async () => {
    const id = (await call(a, "create_tag", { name: "Enterprise", color: "#112233" })).data.tag.id;
    const { data } = await call(a, "update_tag", { tag_id: id, name: "Enterprise deals", color: null });
    expect(data.tag).toMatchObject({ id, name: "Enterprise deals", color: null });
  });

  test("renaming a tag onto another tag's name, in any case, is refused", async () => {
    const id = (await call(a, "create_tag", { name: "Enterprise" })).data.tag.id;
    expect((await call(a, "update_tag", { tag_id: id, name: "acme LAUNCH" })).error).toBe(exists("acme LAUNCH"));
    expect(await names(a)).toEqual(["Acme launch", "Enterprise"]);
  });

  test("renaming a tag to a different case of its own name is allowed", async () => {
    const { data, error } = await call(a, "update_tag", { tag_id: s.seed.a.ids.tagId, name: "ACME Launch" });
    expect(error).toBeNull();
    expect(data.tag).toMatchObject({ id: s.seed.a.ids.tagId, name: "ACME Launch" });
  });

  test("delete_tag removes the tag from its prompts, which keep going; deleting it again is not found", async () => {
    const { data } = await call(a, "delete_tag", { tag_id: s.seed.a.ids.tagId });
    expect(data.tag).toMatchObject({ id: s.seed.a.ids.tagId, name: "Acme launch" });
    expect((await call(a, "list_prompts")).data.prompts).toMatchObject([{ id: s.seed.a.ids.promptId, tags: [] }]);
    expect((await call(a, "delete_tag", { tag_id: s.seed.a.ids.tagId })).error).toBe(TAG_NOT_FOUND);
    expect((await call(a, "update_tag", { tag_id: "tag_doesnotexist00", name: "x" })).error).toBe(TAG_NOT_FOUND);
  });
});

describe("a prompt's tags as list_prompts shows them", () => {
  // The names are stored with the prompt (prompts.tag_names, kept by triggers): every change that
  // can alter them is followed, and list_prompts agrees with the tags' own listing.
  const listed = async () =>
    Object.fromEntries(
      (await call(a, "list_prompts", { include_archived: true })).data.prompts.map((p: { text: string; tags: string[] }) => [
        p.text,
        p.tags,
      ]),
    );

  test("follow a prompt's tags set and added, a tag renamed and a tag deleted", async () => {
    const first = "which crm is best for agencies?";
    const second = "what do agencies use to track clients?";
    const created = await call(a, "create_prompts", {
      prompts: [
        { text: first, tags: ["Zeta", "alpha", "Acme launch"] },
        { text: second, tags: ["alpha"] },
      ],
    });
    expect(created.error).toBeNull();
    const ids = Object.fromEntries(created.data.created.map((p: { id: string; text: string }) => [p.text, p.id]));
    expect((await listed())[first]).toEqual(["Acme launch", "alpha", "Zeta"]);

    // Set: the list given replaces the prompt's tags.
    await call(a, "update_prompt", { prompt_id: ids[second], tags: ["beta", "alpha"] });
    expect((await listed())[second]).toEqual(["alpha", "beta"]);

    const tags = Object.fromEntries((await call(a, "list_tags")).data.tags.map((tag: { id: string; name: string }) => [tag.name, tag.id]));
    await call(a, "update_tag", { tag_id: tags.alpha, name: "Alpha one" });
    await call(a, "update_tag", { tag_id: tags.Zeta, name: "ZETA" });
    let now = await listed();
    expect(now[first]).toEqual(["Acme launch", "Alpha one", "ZETA"]);
    expect(now[second]).toEqual(["Alpha one", "beta"]);

    await call(a, "delete_tag", { tag_id: tags["Acme launch"] });
    await call(a, "update_prompt", { prompt_id: ids[second], tags: [] });
    now = await listed();
    expect(now[first]).toEqual(["Alpha one", "ZETA"]);
    expect(now[second]).toEqual([]);

    // Archived and restored by creating its text again: the tags given are added to its own.
    await call(a, "delete_prompt", { prompt_id: ids[first] });
    await call(a, "create_prompts", { prompts: [{ text: first, tags: ["gamma"] }] });
    expect((await listed())[first]).toEqual(["Alpha one", "gamma", "ZETA"]);

    // Every count of list_tags agrees with the prompts' tags.
    const counts = Object.fromEntries(
      (await call(a, "list_tags")).data.tags.map((tag: { name: string; prompt_count: number }) => [tag.name, tag.prompt_count]),
    );
    const fromPrompts: Record<string, number> = {};
    for (const names of Object.values(await listed()))
      for (const name of names as string[]) fromPrompts[name] = (fromPrompts[name] ?? 0) + 1;
    for (const [name, count] of Object.entries(counts)) expect([name, fromPrompts[name] ?? 0]).toEqual([name, count]);
  });
});

describe("security", () => {
  test("another brand's tag is not found, in the same words as one that never existed, and stays as it was", async () => {
    const b = await s.client(s.seed.b.key);
    const theirs = s.seed.a.ids.tagId;
    expect((await call(b, "update_tag", { tag_id: theirs, name: "taken over" })).error).toBe(TAG_NOT_FOUND);
    expect((await call(b, "delete_tag", { tag_id: theirs })).error).toBe(TAG_NOT_FOUND);
    expect((await call(a, "list_tags")).data.tags).toMatchObject([{ id: theirs, name: "Acme launch", color: "#112233", prompt_count: 1 }]);
  });

  test("tag names are unique per brand: another brand may use the same name", async () => {
    const b = await s.client(s.seed.b.key);
    const { data, error } = await call(b, "create_tag", { name: "Acme launch" });
    expect(error).toBeNull();
    expect(data.tag.id).not.toBe(s.seed.a.ids.tagId);
    expect(await names(b)).toEqual(["Acme launch", "Borealis launch"]);
    expect(await names(a)).toEqual(["Acme launch"]);
  });

  test("no credential and an unknown key get 401; an account without a paid plan gets 403; no tag is made", async () => {
    const create = rpc("tools/call", { name: "create_tag", arguments: { name: "Sneaked in" } });
    const missing = await s.post({}, create);
    expect([missing.status, missing.json.code]).toEqual([401, "unauthorized"]);
    const unknown = await s.post({ authorization: `Bearer svc_live_${"A".repeat(43)}` }, create);
    expect([unknown.status, unknown.json.error]).toEqual([
      401,
      "This API key is not valid: it is unknown or was revoked. OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; put a valid one in its configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one).",
    ]);
    const none = await s.post({ authorization: `Bearer ${s.seed.none.key}` }, create);
    expect([none.status, none.json.code]).toEqual([403, "plan_required"]);
    expect(await s.t.db.all("SELECT * FROM tags WHERE name = ?", ["Sneaked in"])).toEqual([]);
  });
});
