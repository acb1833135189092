// The prompt catalogue's own rules, without a server: declarations are checked when it is built, an
// unexpected failure inside a prompt reaches the client as a generic sentence with the request id.
import { describe, expect, test } from "bun:test";
import { PROMPTS } from "../../src/catalogue/prompts";
import { buildPromptCatalog, definePrompt } from "../../src/catalogue/prompts/registry";
import { buildCatalog } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { Invalid } from "../../src/errors";
import { asProtocolErrors } from "../../src/mcp/prompts";
import { captureLog } from "../support/log";

const tools = buildCatalog(TOOLS);
const valid = definePrompt({
  name: "sample_prompt",
  title: "Sample",
  description: "A prompt declared for this test only.",
  arguments: [],
  plan: "visibility",
  build: async () => ({ description: "d", messages: [] }),
});

describe("prompt catalogue", () => {
  test("the declared prompts build, and their names are snake_case and unique", () => {
    expect(() => buildPromptCatalog(PROMPTS, tools)).not.toThrow();
    for (const p of PROMPTS) expect(p.name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  test("a bad declaration fails at start, naming the prompt", () => {
    expect(() => buildPromptCatalog([{ ...valid, name: "Sample Prompt" }], tools)).toThrow('prompt name "Sample Prompt" is not snake_case');
    expect(() => buildPromptCatalog([valid, valid], tools)).toThrow('prompt "sample_prompt" is declared twice');
    expect(() => buildPromptCatalog([{ ...valid, description: "short" }], tools)).toThrow(
      'prompt "sample_prompt" needs a title and a description',
    );
  });

  test("every prompt's plan is a paid plan, and the content prompt needs Autopilot", () => {
    const plans = Object.fromEntries(PROMPTS.map((p) => [p.name, p.plan]));
    expect(plans).toEqual({
      weekly_visibility_review: "visibility",
      competitor_deep_dive: "visibility",
      audit_cited_sources: "visibility",
      close_content_gap: "autopilot",
    });
  });
});

describe("protocol errors of prompts and resources", () => {
  test("a catalogue error keeps its sentence as -32602; anything else is -32603 with the request id, no detail", async () => {
    const invalid = await asProtocolErrors("req_1", "prompts/get x", () => {
      throw new Invalid("The prompt x needs the argument y.");
    }).catch((e: { code: number; message: string }) => e);
    expect(invalid).toMatchObject({ code: -32602, message: "The prompt x needs the argument y." });
    let crash = { code: 0, message: "" };
    const logged = await captureLog(async () => {
      crash = await asProtocolErrors("req_2", "prompts/get x", () => {
        throw new Error("SQLITE_BUSY: database is locked at /secret/path");
      }).catch((e: { code: number; message: string }) => e);
    });
    // The details go to the log, with the request id, for the operator.
    expect(logged).toContain('"request_id":"req_2"');
    expect(logged).toContain("SQLITE_BUSY");
    expect(crash).toMatchObject({ code: -32603 });
    expect(crash.message).toBe(
      "Something went wrong on our side while answering prompts/get x (request req_2); try again, and quote the request id if it persists.",
    );
  });
});
