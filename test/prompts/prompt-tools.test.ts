// The prompt tools in process, through the MCP door (the SDK client on app.handle with a bearer key):
// the happy paths, the errors with their sentences, and the security cases side by side. The same
// tools against the compiled binary: test/e2e/mcp.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { revokeApiKey } from "../../src/keys/service";
import { secondConnection } from "../support/database";
import { call, rpc } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

const PROMPT_NOT_FOUND = "Prompt not found; list_prompts shows the brand's prompts and their ids.";

let s: SeededToolServer;
let a: Client;

beforeEach(async () => {
  s = await seededToolServer();
  a = await s.client(s.seed.a.key);
});
afterEach(() => s.close());

const texts = (prompts: Array<{ text: string }>): string[] => prompts.map((p) => p.text);

describe("listing", () => {
  test("list_prompts shows the active prompts with their tags and locale; archived ones only on request", async () => {
    const { data } = await call(a, "list_prompts");
    expect(data.prompts).toHaveLength(1);
    expect(data.prompts[0]).toMatchObject({
      id: s.seed.a.ids.promptId,
      text: "best Acme software for small teams",
      tags: ["Acme launch"],
      country: "US",
      language: "en",
      archived: false,
    });
    expect(data.next_cursor).toBeNull();
    const all = await call(a, "list_prompts", { include_archived: true });
    expect(all.data.prompts.map((p: { id: string; archived: boolean }) => [p.id, p.archived])).toEqual([
      [s.seed.a.ids.promptId, false],
      [s.seed.a.ids.archivedPromptId, true],
    ]);
  });

  test("list_prompts filters by tag name in any case, by tag id, and by text ignoring case and spaces", async () => {
    expect(texts((await call(a, "list_prompts", { tag: "ACME LAUNCH" })).data.prompts)).toEqual(["best Acme software for small teams"]);
    expect((await call(a, "list_prompts", { tag: s.seed.a.ids.tagId })).data.prompts).toHaveLength(1);
    expect((await call(a, "list_prompts", { query: "SMALL   teams" })).data.prompts).toHaveLength(1);
    expect((await call(a, "list_prompts", { query: "100%_" })).data.prompts).toEqual([]);
  });

  test("list_prompts by prompt_id: that prompt alone (archived on request), another brand's or an unknown one not found", async () => {
    expect((await call(a, "list_prompts", { prompt_id: s.seed.a.ids.promptId })).data).toEqual({
      prompts: [expect.objectContaining({ id: s.seed.a.ids.promptId, text: "best Acme software for small teams" })],
      next_cursor: null,
    });
    expect((await call(a, "list_prompts", { prompt_id: s.seed.a.ids.archivedPromptId })).data.prompts).toEqual([]);
    expect(
      (await call(a, "list_prompts", { prompt_id: s.seed.a.ids.archivedPromptId, include_archived: true })).data.prompts.map(
        (p: { id: string; archived: boolean }) => [p.id, p.archived],
      ),
    ).toEqual([[s.seed.a.ids.archivedPromptId, true]]);
    // Combined with the other filters, all apply.
    expect((await call(a, "list_prompts", { prompt_id: s.seed.a.ids.promptId, query: "no such text" })).data.prompts).toEqual([]);
    for (const other of [s.seed.b.ids.promptId, "prm_doesnotexist0000"]) {
      expect((await call(a, "list_prompts", { prompt_id: other })).error).toBe(PROMPT_NOT_FOUND);
    }
  });

  test("a tag the brand does not have is not found, by name or by id", async () => {
    expect((await call(a, "list_prompts", { tag: "no such tag" })).error).toBe(
      'Tag "no such tag" not found; list_tags shows the brand\'s tags.',
    );
    expect((await call(a, "list_prompts", { tag: "tag_doesnotexist00" })).error).toBe(
      'Tag "tag_doesnotexist00" not found; list_tags shows the brand\'s tags.',
    );
  });

  test("list_prompts pages with an opaque cursor; a limit outside 1 to 200 or a made-up cursor is refused", async () => {
    await call(a, "create_prompts", { prompts: Array.from({ length: 5 }, (_, i) => ({ text: `paging prompt ${i}`, tags: ["paging"] })) });
    const walk = async (args: Record<string, unknown>) => {
      const pages: Array<{ texts: string[]; next_cursor: string | null }> = [];
      let cursor: string | null = null;
      do {
        const { data }: { data: { prompts: Array<{ text: string }>; next_cursor: string | null } } = await call(a, "list_prompts", {
          ...args,
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        pages.push({ texts: texts(data.prompts), next_cursor: data.next_cursor });
        cursor = data.next_cursor;
      } while (cursor);
      return pages;
    };
    const pages = await walk({ tag: "paging" });
    expect(pages).toHaveLength(3);
    expect(pages.flatMap((p) => p.texts)).toEqual(Array.from({ length: 5 }, (_, i) => `paging prompt ${i}`));
    // Again, every page now answered from the views kept the first time: the same pages and cursors.
    expect(await walk({ tag: "paging" })).toEqual(pages);
    const all = await walk({});
    expect(all.flatMap((p) => p.texts)).toEqual(["best Acme software for small teams", ...pages.flatMap((p) => p.texts)]);
    expect(await walk({})).toEqual(all);
    expect((await call(a, "list_prompts", { limit: 201 })).error).toBe("Invalid input for list_prompts: limit must be at most 200.");
    expect((await call(a, "list_prompts", { limit: 0 })).error).toBe("Invalid input for list_prompts: limit must be at least 1.");
    expect((await call(a, "list_prompts", { cursor: "not-a-cursor" })).error).toBe(
      "cursor: pass back the next_cursor of a previous result unchanged.",
    );
  });
});

describe("creating", () => {
  test("create_prompts creates, reports duplicates (case, spaces, within the call) and creates the tags it names", async () => {
    const { data, error } = await call(a, "create_prompts", {
      prompts: [
        { text: "  Best ACME software   for small teams ", tags: ["x"] },
        { text: "which analytics tool do agencies use?", tags: ["Agencies", "agencies"], country: "de", language: "DE" },
        { text: "Which analytics tool do  agencies use?" },
        { text: "top dashboards for startups" },
      ],
    });
    expect(error).toBeNull();
    expect(data.duplicates).toEqual(["  Best ACME software   for small teams ", "Which analytics tool do  agencies use?"]);
    expect(texts(data.created)).toEqual(["which analytics tool do agencies use?", "top dashboards for startups"]);
    // Each duplicate's prompt, in order: the one already tracked, and the one this call created.
    const tracked = (await call(a, "list_prompts", { query: "Best ACME software" })).data.prompts[0];
    expect(data.duplicate_ids).toEqual([tracked.id, data.created[0].id]);
    expect(data.created[0]).toMatchObject({ tags: ["Agencies"], country: "DE", language: "de", archived: false });
    expect(data.created[0].id).toMatch(/^prm_/);
    const tags = (await call(a, "list_tags")).data.tags.map((t: { name: string }) => t.name);
    expect(tags).toContain("Agencies");
    // A duplicate's tags are not created: nothing was stored for it.
    expect(tags).not.toContain("x");
  });

  test("a prompt with the text of an archived one restores it, keeping its id and history", async () => {
    const { data } = await call(a, "create_prompts", { prompts: [{ text: "IS ACME WORTH IT" }, { text: "a brand new question" }] });
    expect(data.created).toHaveLength(2);
    expect(data.created[0]).toMatchObject({ id: s.seed.a.ids.archivedPromptId, archived: false });
    // Said apart from the new one (a client told the user it had created a prompt tracked for months).
    expect(data.restored_ids).toEqual([s.seed.a.ids.archivedPromptId]);
    expect((await call(a, "list_prompts")).data.prompts).toHaveLength(3);
  });

  test("create_prompts names the field at fault in each refusal", async () => {
    const refusal = async (args: Record<string, unknown>) => (await call(a, "create_prompts", args)).error;
    expect(await refusal({})).toBe("Invalid input for create_prompts: prompts is required.");
    expect(await refusal({ prompts: "one" })).toBe("Invalid input for create_prompts: prompts must be a list.");
    expect(await refusal({ prompts: [] })).toBe("Invalid input for create_prompts: prompts must have at least 1 item.");
    expect(await refusal({ prompts: Array.from({ length: 101 }, (_, i) => ({ text: `prompt number ${i}` })) })).toBe(
      "Invalid input for create_prompts: prompts must have at most 100 items.",
    );
    expect(await refusal({ prompts: [{ text: "ok prompt" }, { text: "no" }] })).toBe(
      "Invalid input for create_prompts: prompts[1].text must be at least 3 characters.",
    );
    expect(await refusal({ prompts: [{ text: "x".repeat(501) }] })).toBe(
      "Invalid input for create_prompts: prompts[0].text must be at most 500 characters.",
    );
    expect(await refusal({ prompts: [{ text: "   a   " }] })).toBe("prompts[0].text: a prompt must be 3 to 500 characters.");
    expect(await refusal({ prompts: [{ text: "fine text", country: "USA" }] })).toContain(
      "prompts[0].country must be a two-letter country code",
    );
    // Two letters that name no country.
    expect(await refusal({ prompts: [{ text: "fine text", country: "zz" }] })).toBe(
      "prompts[0].country: ZZ is no country's two-letter code (ISO 3166-1); give one such as US or DE.",
    );
    // Nothing of a refused call is stored.
    expect(texts((await call(a, "list_prompts")).data.prompts)).toEqual(["best Acme software for small teams"]);
  });
});

describe("editing and archiving", () => {
  test("update_prompt rewords, retags and relocates, then clears tags and country", async () => {
    const id = (await call(a, "create_prompts", { prompts: [{ text: "prompt to edit", tags: ["old"] }] })).data.created[0].id;
    const { data } = await call(a, "update_prompt", {
      prompt_id: id,
      text: "prompt  edited",
      tags: ["New", "Other"],
      country: "fr",
      language: "fr",
    });
    expect(data.prompt).toMatchObject({ id, text: "prompt edited", tags: ["New", "Other"], country: "FR", language: "fr" });
    const cleared = await call(a, "update_prompt", { prompt_id: id, tags: [], country: null });
    expect(cleared.data.prompt).toMatchObject({ id, tags: [], country: null, language: "fr" });
    // "" removes too, as it removes the brand's domain.
    await call(a, "update_prompt", { prompt_id: id, country: "fr" });
    const emptied = await call(a, "update_prompt", { prompt_id: id, country: "", language: "" });
    expect(emptied.error).toBeNull();
    expect(emptied.data.prompt).toMatchObject({ id, country: null, language: null });
  });

  test("rewording a prompt into another prompt's text is a conflict, and the prompt is unchanged", async () => {
    const id = (await call(a, "create_prompts", { prompts: [{ text: "prompt to edit" }] })).data.created[0].id;
    const clash = await call(a, "update_prompt", { prompt_id: id, text: "BEST acme software  for small teams" });
    const other = (await call(a, "list_prompts", { query: "best acme software for small teams" })).data.prompts[0].id;
    expect(clash.error).toBe(`Another prompt of this brand (${other}) already has this text (compared ignoring case and spaces).`);
    expect(texts((await call(a, "list_prompts", { query: "prompt to edit" })).data.prompts)).toEqual(["prompt to edit"]);
    // An archived prompt, absent from list_prompts' default list, is named, with the way to get it back.
    const archived = (await call(a, "create_prompts", { prompts: [{ text: "an archived wording" }] })).data.created[0].id;
    await call(a, "delete_prompt", { prompt_id: archived });
    expect((await call(a, "update_prompt", { prompt_id: id, text: "An archived  wording" })).error).toBe(
      `An archived prompt of this brand (${archived}) already has this text (compared ignoring case and spaces): create_prompts with this text restores it with its history (list_prompts with include_archived shows it).`,
    );
  });

  test("update_prompt without an id, or with an id that does not exist, is refused", async () => {
    expect((await call(a, "update_prompt", { text: "no id given" })).error).toBe("Invalid input for update_prompt: prompt_id is required.");
    expect((await call(a, "update_prompt", { prompt_id: "prm_doesnotexist00", text: "x y z" })).error).toBe(PROMPT_NOT_FOUND);
    expect((await call(a, "delete_prompt", { prompt_id: "prm_doesnotexist00" })).error).toBe(PROMPT_NOT_FOUND);
  });

  test("list_prompts shows each change to a listed prompt at its next page, whoever made it, on either database", async () => {
    // A page's views are reused while their rows' versions hold (src/prompts/service.ts): a change of
    // any one thing a prompt shows must show, including one made through another connection (the CLI,
    // a second instance). Each step lists the prompt first, so that its view is kept before the change.
    const f = await seededToolServer({ file: true });
    try {
      const client = await f.client(f.seed.a.key);
      const id = f.seed.a.ids.promptId;
      const listed = async (args: Record<string, unknown> = {}) => {
        const { data, error } = await call(client, "list_prompts", args);
        expect(error).toBeNull();
        return data.prompts.find((p: { id: string }) => p.id === id) ?? null;
      };
      const after = async (change: () => Promise<unknown>, args: Record<string, unknown> = {}) => {
        await listed(args);
        await change();
        return listed(args);
      };
      const update = (fields: Record<string, unknown>) => () => call(client, "update_prompt", { prompt_id: id, ...fields });
      expect(await listed()).toMatchObject({
        text: "best Acme software for small teams",
        tags: ["Acme launch"],
        country: "US",
        language: "en",
      });

      expect((await after(update({ text: "best Acme tools for tiny teams" }))).text).toBe("best Acme tools for tiny teams");
      expect((await after(update({ country: "de" }))).country).toBe("DE");
      expect((await after(update({ language: "fr" }))).language).toBe("fr");
      expect((await after(update({ tags: ["Zeta", "alpha"] }))).tags).toEqual(["alpha", "Zeta"]);
      expect((await after(update({ text: "best Acme tools for small teams" }), { query: "small TEAMS" }))?.text).toBe(
        "best Acme tools for small teams",
      );

      const zeta = (await call(client, "list_tags")).data.tags.find((t: { name: string }) => t.name === "Zeta").id;
      expect((await after(() => call(client, "update_tag", { tag_id: zeta, name: "Omega" }))).tags).toEqual(["alpha", "Omega"]);
      expect((await after(() => call(client, "delete_tag", { tag_id: zeta }))).tags).toEqual(["alpha"]);
      expect(await after(() => call(client, "delete_prompt", { prompt_id: id }))).toBeNull();
      expect(await listed({ include_archived: true })).toMatchObject({ archived: true });
      expect(await after(() => call(client, "create_prompts", { prompts: [{ text: "best Acme tools for small teams" }] }))).toMatchObject({
        archived: false,
      });

      const other = await secondConnection(f.t.db);
      const set = (column: string, value: string | number) => () => other.run(`UPDATE prompts SET ${column} = ? WHERE id = ?`, [value, id]);
      try {
        expect((await after(set("text", "Acme for teams of two"))).text).toBe("Acme for teams of two");
        expect((await after(set("country", "GB"))).country).toBe("GB");
        expect((await after(set("language", "de"))).language).toBe("de");
        expect((await after(set("created_at", Date.UTC(2026, 0, 2)))).created_at).toBe("2026-01-02T00:00:00.000Z");
        const renamed = () =>
          other.run("UPDATE tags SET name = ?, name_key = ? WHERE brand_id = ? AND name = ?", ["Beta", "beta", f.seed.a.brandId, "alpha"]);
        expect((await after(renamed)).tags).toEqual(["Beta"]);
        expect(await after(set("archived_at", Date.UTC(2026, 0, 3)))).toBeNull();
      } finally {
        await other.close();
      }
    } finally {
      await f.close();
    }
  });

  test("delete_prompt archives: hidden from the list, answers kept, archiving twice is harmless", async () => {
    const { data } = await call(a, "delete_prompt", { prompt_id: s.seed.a.ids.promptId });
    expect(data.prompt).toMatchObject({ id: s.seed.a.ids.promptId, archived: true });
    expect((await call(a, "delete_prompt", { prompt_id: s.seed.a.ids.promptId })).data.prompt.archived).toBe(true);
    expect((await call(a, "list_prompts")).data.prompts).toEqual([]);
    expect((await call(a, "get_answer", { answer_id: s.seed.a.ids.answerId })).error).toBeNull();
  });
});

describe("security", () => {
  test("another brand's prompt is not found, in the same words as one that never existed, and stays as it was", async () => {
    const b = await s.client(s.seed.b.key);
    const theirs = s.seed.a.ids.promptId;
    expect((await call(b, "update_prompt", { prompt_id: theirs, text: "taken over" })).error).toBe(PROMPT_NOT_FOUND);
    expect((await call(b, "delete_prompt", { prompt_id: theirs })).error).toBe(PROMPT_NOT_FOUND);
    expect((await call(b, "list_prompts", { tag: s.seed.a.ids.tagId })).error).toBe(
      `Tag "${s.seed.a.ids.tagId}" not found; list_tags shows the brand's tags.`,
    );
    const mine = await call(a, "list_prompts");
    expect(mine.data.prompts).toMatchObject([{ id: theirs, text: "best Acme software for small teams", archived: false }]);
  });

  test("the same text in two brands is two prompts: one brand's prompts never count as the other's duplicates", async () => {
    const b = await s.client(s.seed.b.key);
    const { data } = await call(b, "create_prompts", { prompts: [{ text: "best Acme software for small teams" }] });
    expect(data.duplicates).toEqual([]);
    expect(texts((await call(b, "list_prompts")).data.prompts)).toContain("best Acme software for small teams");
    expect((await call(a, "list_prompts")).data.prompts).toHaveLength(1);
  });

  test("a brand_id field is refused by name: the brand comes from the key alone", async () => {
    expect((await call(a, "list_prompts", { brand_id: s.seed.b.brandId })).error).toBe(
      'Invalid input for list_prompts: Unknown field "brand_id" (each key or sign-in acts for one brand: no tool takes a brand id).',
    );
    expect((await call(a, "create_prompts", { brand_id: s.seed.b.brandId, prompts: [{ text: "smuggled prompt" }] })).error).toBe(
      'Invalid input for create_prompts: Unknown field "brand_id" (each key or sign-in acts for one brand: no tool takes a brand id).',
    );
  });

  test("no credential, a malformed key and a revoked key get 401 before any prompt tool runs", async () => {
    const create = rpc("tools/call", { name: "create_prompts", arguments: { prompts: [{ text: "sneaked in" }] } });
    const missing = await s.post({}, create);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      error:
        "No API key was sent: send one as the header Authorization: Bearer svc_live_… (spyglass key list --email E shows the account's keys, spyglass key create makes one). OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; set the header in its configuration, or set public_url to turn sign-in on.",
      code: "unauthorized",
    });
    expect((await s.post({ authorization: "Bearer svc_live_short" }, create)).status).toBe(401);
    await revokeApiKey(s.t.db, s.seed.a.accountId, s.seed.spareKeyOfA.keyId);
    const revoked = await s.post({ authorization: `Bearer ${s.seed.spareKeyOfA.key}` }, create);
    expect(revoked.status).toBe(401);
    expect(revoked.json.error).toBe(
      "This API key is not valid: it is unknown or was revoked. OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; put a valid one in its configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one).",
    );
    expect(texts((await call(a, "list_prompts", { query: "sneaked" })).data.prompts)).toEqual([]);
  });

  test("an account without a paid plan gets 403 plan_required, and nothing is created", async () => {
    const res = await s.post(
      { authorization: `Bearer ${s.seed.none.key}` },
      rpc("tools/call", { name: "create_prompts", arguments: { prompts: [{ text: "no plan prompt" }] } }),
    );
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      error:
        "This account has no paid plan; Spyglass tools need the Visibility or Autopilot plan: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan visibility (E: the account's email).",
      code: "plan_required",
      required_plan: "visibility",
    });
    expect(await s.t.db.all("SELECT * FROM prompts WHERE brand_id = ?", [s.seed.none.brandId])).toEqual([]);
  });

  test("a Visibility account manages its prompts (the prompt tools need no more than Visibility)", async () => {
    const v = await s.client(s.seed.visibility.key);
    const { data, error } = await call(v, "create_prompts", { prompts: [{ text: "visibility plan prompt" }] });
    expect(error).toBeNull();
    expect(texts(data.created)).toEqual(["visibility plan prompt"]);
  });
});
