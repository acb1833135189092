// The content prompt of the Autopilot plan: close a content gap. It gathers, for one tracked prompt,
// who the AI engines name instead of the brand and which pages they cite, and asks the assistant to
// draft an article with create_article for review before publish_to_site.
import { getPrompt } from "../../prompts/service";
import { completePromptId } from "../completions";
import { changeText, rateText, scopeText, userMessage } from "./format";
import { definePrompt } from "./registry";

const closeContentGap = definePrompt({
  name: "close_content_gap",
  title: "Close a content gap",
  description:
    "Drafts an article for one tracked prompt where competitors are named and the brand is not: the brief is built from the last 30 days of answers (competitors named, domains and pages cited, the brand's visibility), then saved as a draft with create_article for review.",
  arguments: [
    {
      name: "prompt",
      description: "The tracked prompt's id (from list_prompts or get_content_gaps); completion also matches the prompt's text.",
      required: true,
      complete: completePromptId,
    },
  ],
  plan: "autopilot",
  build: async (args, ctx) => {
    const promptId = args.prompt ?? "";
    // "Prompt not found." for another brand's prompt, as for one that does not exist.
    const text = (await getPrompt(ctx.app.db, ctx.brand.id, promptId)).text;
    const gaps = await ctx.tool("get_content_gaps", { prompt_id: promptId, limit: 1 });
    const overview = await ctx.tool("get_visibility_overview", { prompt_id: promptId });
    const pages = await ctx.tool("get_top_sources", { prompt_id: promptId, level: "url", limit: 8 });
    const gap = gaps.gaps[0];
    const lines = [
      `Close a content gap for "${ctx.brand.name}": the tracked prompt "${text}" (id ${promptId}), ${scopeText(overview.filter)}.`,
      `The brand's visibility on it: ${rateText(overview.visibility)}; ${changeText(overview.visibility)}.`,
      gap
        ? `It is a content gap: ${gap.competitor_answers} of ${gap.valid_answers} valid answers name competitors (${gap.competitors.map((c) => `${c.name} in ${c.answers}`).join(", ")}) and none names the brand.`
        : "It is not a content gap in this period (the brand is named in some answer, or no competitor is); an article can still raise its visibility.",
      gap?.top_domains.length
        ? `Domains those answers cite: ${gap.top_domains.map((d) => `${d.domain} (${d.citations}${d.owned ? ", the brand's own site" : d.competitor ? `, ${d.competitor.name}'s site` : ""})`).join(", ")}.`
        : "",
      pages.sources.length ? `Pages cited for this prompt: ${pages.sources.map((s) => s.url ?? s.domain).join(", ")}.` : "",
      "",
      `Write an article for the brand's site that answers "${text}" better than the cited pages do, naming the brand where it honestly fits. Save it with create_article (prompt_id ${promptId}) as a draft, show me the draft, and publish it with publish_to_site only after I confirm.`,
    ];
    return { description: `Close the content gap on "${text}"`, messages: [userMessage(lines.filter(Boolean).join("\n"))] };
  },
});

export const contentPrompts = [closeContentGap];
