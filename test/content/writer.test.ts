// generate_article against stand-in OpenAI and Anthropic servers on loopback: the brief is built
// from the brand's data, the reply is saved as a sanitized draft, and failures are clear.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { parseWriterOutput } from "../../src/content/writer";
import { newId } from "../../src/ids";
import { addPrompt, apiKeyFor, callTool, makeWorld, type World } from "../public/world";
import { answer, type FakeProvider, httpError, raw, startFakeAnthropic, startFakeOpenAI } from "../support/fake-providers";

const KEY_ENV = "SPYGLASS_TEST_WRITER_KEY";
const PROVIDER_KEY = "sk-writer-test-0123456789";

const ARTICLE = `---
title: "Best CRM for startups in 2025"
description: A fair comparison of CRMs for young teams.
---
# Best CRM for startups in 2025

Acme CRM, Rival One and Rival Two compared.

<script>alert(1)</script><img src=x onerror=alert(1)>

| CRM | Free plan |
|---|---|
| Acme CRM | yes |
`;

let openai: FakeProvider;
let anthropic: FakeProvider;
let world: World | null = null;

beforeAll(() => {
  process.env[KEY_ENV] = PROVIDER_KEY;
  openai = startFakeOpenAI({ apiKey: PROVIDER_KEY, fallback: answer(ARTICLE) });
  anthropic = startFakeAnthropic({ apiKey: PROVIDER_KEY, fallback: answer(`\`\`\`markdown\n${ARTICLE}\n\`\`\``) });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await openai.stop();
  await anthropic.stop();
});
afterEach(async () => {
  await world?.close();
  world = null;
});

async function worldWithWriter(api: "openai" | "anthropic", baseUrl: string) {
  world = await makeWorld({
    config: { writer: { api, base_url: baseUrl, model: `${api}-writer`, api_key_env: KEY_ENV, timeout_ms: 5_000, max_retries: 0 } },
  });
  return world;
}

/** A prompt where engines named two competitors (and not the brand) and cited three domains. */
async function seedEvidence(w: World): Promise<string> {
  const db = w.ctx.db;
  const promptId = await addPrompt(w, w.brand.id, "What is the best CRM for startups?");
  const now = Date.now() - 3_600_000;
  const rivals: string[] = [];
  for (const [i, name] of ["Rival One", "Rival Two"].entries()) {
    const id = newId("cmp");
    await db.run("INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, '[]', ?, ?)", [
      id,
      w.brand.id,
      name,
      JSON.stringify([`rival${i + 1}.com`]),
      now + i,
    ]);
    rivals.push(id);
  }
  const cited = [
    ["https://g2.com/crm", "g2.com"],
    ["https://capterra.com/best", "capterra.com"],
    ["https://g2.com/other", "g2.com"],
    ["https://rival1.com/pricing", "rival1.com"],
  ];
  for (let i = 0; i < 3; i++) {
    const row = (await db.get<{ id: number }>(
      "INSERT INTO answers (brand_id, prompt_id, engine, status, text, created_at) VALUES (?, ?, ?, 'ok', ?, ?) RETURNING id",
      [w.brand.id, promptId, i ? "perplexity" : "chatgpt", `Try Rival One or Rival Two (${i}).`, now + i],
    ))!;
    for (const [rank, memberId] of rivals.entries()) {
      if (rank === 1 && i === 2) continue;
      await db.run(
        `INSERT INTO mentions (answer_id, brand_id, member_id, is_brand, "offset", rank, engine, prompt_id, created_at)
         VALUES (?, ?, ?, 0, ?, ?, 'chatgpt', ?, ?)`,
        [row.id, w.brand.id, memberId, rank * 10, rank + 1, promptId, now + i],
      );
    }
    const [url, domain] = cited[i]!;
    await db.run(
      "INSERT INTO citations (answer_id, brand_id, url, domain, engine, prompt_id, created_at) VALUES (?, ?, ?, ?, 'chatgpt', ?, ?)",
      [row.id, w.brand.id, url!, domain!, promptId, now + i],
    );
  }
  return promptId;
}

describe("generate_article with an OpenAI-compatible writer", () => {
  test("sends a brief built from the prompt, the competitors named, the cited domains and the brand profile", async () => {
    const w = await worldWithWriter("openai", openai.url);
    const promptId = await seedEvidence(w);
    const before = openai.requests.length;
    const outcome = await callTool(w, await apiKeyFor(w, w.brand.id), "generate_article", {
      prompt_id: promptId,
      tone: "friendly",
      length: "short",
    });
    expect(outcome.error).toBeNull();
    expect(openai.requests.length).toBe(before + 1);
    const sent = openai.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    const body = sent.body as { model: string; messages: Array<{ role: string; content: string }>; max_tokens: number };
    expect(body.model).toBe("openai-writer");
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const brief = sent.prompt;
    for (const expected of [
      "What is the best CRM for startups?",
      "Acme CRM (acme.com)",
      "AcmeCRM",
      "- Rival One: 3",
      "- Rival Two: 2",
      "- g2.com: 2",
      "- capterra.com: 1",
      "answered this question 3 times and mentioned Acme CRM in 0",
      "Tone: friendly.",
      "about 600 words",
    ]) {
      expect(brief).toContain(expected);
    }
    expect(body.max_tokens).toBe(2000);
    // An internationalised domain is named as people write it, not as it is stored.
    await w.ctx.db.run("UPDATE brands SET domain = 'xn--mller-kchen-thbg.de' WHERE id = ?", [w.brand.id]);
    await callTool(w, await apiKeyFor(w, w.brand.id), "generate_article", { prompt_id: promptId });
    expect(openai.requests.at(-1)!.prompt).toContain("Acme CRM (müller-küchen.de)");

    const article = outcome.data.article;
    expect(article).toMatchObject({
      title: "Best CRM for startups in 2025",
      description: "A fair comparison of CRMs for young teams.",
      slug: "best-crm-for-startups-in-2025",
      status: "draft",
      prompt_id: promptId,
    });
    expect(article.markdown.startsWith("# Best CRM for startups in 2025")).toBe(true);
    expect(article.html).not.toContain("<h1");
    expect(article.html).not.toContain("script");
    expect(article.html).not.toContain("onerror");
    expect(article.html).toContain("<table>");
  });

  test("works from a topic alone, and a given title wins over the writer's", async () => {
    const w = await worldWithWriter("openai", openai.url);
    const outcome = await callTool(w, await apiKeyFor(w, w.brand.id), "generate_article", {
      topic: "CRM migration checklist",
      title: "Moving CRMs",
    });
    expect(outcome.error).toBeNull();
    expect(openai.requests.at(-1)!.prompt).toContain("Topic: CRM migration checklist");
    expect(outcome.data.article).toMatchObject({ title: "Moving CRMs", slug: "moving-crms", prompt_id: null });
    // The writer is told the title; its own heading ("# Best CRM for startups in 2025" here) is not
    // kept under it, where the site would have shown two titles.
    expect(openai.requests.at(-1)!.prompt).toContain('Title, chosen for the article: "Moving CRMs".');
    expect(outcome.data.article.markdown).toStartWith("Acme CRM, Rival One and Rival Two compared.");
    expect(outcome.data.article.html).not.toContain("<h1");
  });

  test("needs a prompt or a topic; another brand's prompt is not found", async () => {
    const w = await worldWithWriter("openai", openai.url);
    const key = await apiKeyFor(w, w.brand.id);
    expect((await callTool(w, key, "generate_article", {})).error).toContain("prompt_id");
    const theirs = await addPrompt(w, w.other.id, "best crm for agencies");
    expect((await callTool(w, key, "generate_article", { prompt_id: theirs })).error).toContain("Prompt not found");
    // A language that is no language code is refused before the writer is asked ("klingon" was sent on).
    const asked = openai.requests.length;
    expect((await callTool(w, key, "generate_article", { topic: "crm tips", language: "klingon" })).error).toBe(
      "Invalid input for generate_article: language must be a language code such as en or pt-BR.",
    );
    expect(openai.requests.length).toBe(asked);
  });

  test("a reply that is only a heading is no article, with a title given or not, and saves nothing", async () => {
    const bare = startFakeOpenAI({ apiKey: PROVIDER_KEY, fallback: answer("# Just a heading") });
    try {
      const w = await worldWithWriter("openai", bare.url);
      const key = await apiKeyFor(w, w.brand.id);
      for (const args of [{ topic: "anything at all" }, { topic: "anything at all", title: "Chosen" }]) {
        const outcome = await callTool(w, key, "generate_article", args);
        expect(outcome.error).toContain("The writer model did not produce an article (its reply had no article body)");
      }
      expect((await callTool(w, key, "list_articles")).data.articles).toEqual([]);
    } finally {
      await bare.stop();
    }
  });

  test("a provider failure is a clear tool error and saves nothing", async () => {
    const failing = startFakeOpenAI({ apiKey: PROVIDER_KEY, fallback: httpError(500, { message: "upstream exploded" }) });
    try {
      const w = await worldWithWriter("openai", failing.url);
      const key = await apiKeyFor(w, w.brand.id);
      const outcome = await callTool(w, key, "generate_article", { topic: "anything at all" });
      expect(outcome.error).toContain("The writer model did not produce an article (HTTP 500: upstream exploded)");
      // What to do instead, for a person in the dashboard as for an AI client.
      expect(outcome.error).toContain("write the article yourself (New article in the dashboard, create_article from an AI client)");
      expect(outcome.error).toContain("create_article");
      expect((await callTool(w, key, "list_articles")).data.articles).toEqual([]);
    } finally {
      await failing.stop();
    }
  });
});

describe("a draft cut off at the output limit", () => {
  test("is a tool error in the writer's words (a shorter length, or [writer] max_tokens), and saves nothing", async () => {
    const cut = startFakeOpenAI({
      apiKey: PROVIDER_KEY,
      fallback: raw({
        model: "m",
        choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: "# Half an article\n\nIt stops" } }],
      }),
    });
    try {
      const w = await worldWithWriter("openai", cut.url);
      const key = await apiKeyFor(w, w.brand.id);
      const outcome = await callTool(w, key, "generate_article", { topic: "anything at all", length: "long" });
      expect(outcome.error).toContain("its draft was cut off at the output limit (max_tokens ");
      expect(outcome.error).toContain("ask for a shorter length, or raise max_tokens in spyglass.toml's [writer]");
      expect((await callTool(w, key, "list_articles")).data.articles).toEqual([]);
    } finally {
      await cut.stop();
    }
  });
});

describe("generate_article with an Anthropic writer", () => {
  test("uses the Messages API with x-api-key and reads a fenced reply", async () => {
    const w = await worldWithWriter("anthropic", anthropic.url);
    const promptId = await seedEvidence(w);
    const outcome = await callTool(w, await apiKeyFor(w, w.brand.id), "generate_article", {
      prompt_id: promptId,
      length: "long",
      language: "de",
    });
    expect(outcome.error).toBeNull();
    const sent = anthropic.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe(PROVIDER_KEY);
    const body = sent.body as { system?: unknown; max_tokens: number };
    expect(body.max_tokens).toBe(8000);
    expect(JSON.stringify(body)).toContain("expert content writer for Acme CRM");
    expect(sent.prompt).toContain("Rival One");
    expect(sent.prompt).toContain("Language: de.");
    expect(outcome.data.article.title).toBe("Best CRM for startups in 2025");
    expect(outcome.data.article.markdown).not.toContain("```");
  });
});

describe("parseWriterOutput", () => {
  test("front matter, a leading H1 when there is none, and a fence around everything", () => {
    expect(parseWriterOutput("# Just a heading\n\nBody")).toEqual({
      title: "Just a heading",
      description: null,
      markdown: "# Just a heading\n\nBody",
    });
    expect(parseWriterOutput("```md\n---\ntitle: 'Quoted'\n---\nBody\n```")).toEqual({
      title: "Quoted",
      description: null,
      markdown: "Body",
    });
    expect(parseWriterOutput("No heading at all")).toEqual({ title: "", description: null, markdown: "No heading at all" });
    expect(parseWriterOutput(`---\ntitle: ${"t".repeat(300)}\n---\nx`).title).toHaveLength(200);
  });

  test("a title taken from the heading is its text, without the markdown", () => {
    expect(parseWriterOutput("# Choosing a *Modern* `CRM` with [Acme](https://acme.com)\n\nBody").title).toBe(
      "Choosing a Modern CRM with Acme",
    );
  });

  test("a fence around the article after a line of preface and before a closing remark", () => {
    const reply =
      "Here is the article you asked for:\n\n```markdown\n---\ntitle: Picking a CRM\n---\n# Picking a CRM\n\nBody.\n```\n\nLet me know if you want changes.";
    expect(parseWriterOutput(reply)).toEqual({ title: "Picking a CRM", description: null, markdown: "# Picking a CRM\n\nBody." });
    // A fenced block inside an article is part of it, a short one ending in a code sample included.
    const article = "# Setup\n\nRun this:\n\n```sh\nnpm install\n```";
    expect(parseWriterOutput(article).markdown).toBe(article);
    const short = "# Installing Acme CLI\nAcme's CLI installs with npm:\n```sh\nnpm install -g acme-cli\n```\nThat's all it takes.";
    expect(parseWriterOutput(short)).toEqual({ title: "Installing Acme CLI", description: null, markdown: short });
    const bare = "Install it with npm:\n```\nnpm install -g acme-cli\n```\nThat's all.";
    expect(parseWriterOutput(bare).markdown).toBe(bare);
    // A closing remark alone, after a fenced article.
    expect(parseWriterOutput("```md\n# Picking a CRM\n\nBody.\n```\nWant changes?").markdown).toBe("# Picking a CRM\n\nBody.");
  });
});
