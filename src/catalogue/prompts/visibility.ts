// Prompts of the Visibility plan: each starts a conversation from the brand's figures as they stand
// now, read through the catalogue's own analytics tools (so the plan gate, the filters and the error
// sentences are the tools'), and asks the assistant for the analysis a person would want next.
import { NotFound } from "../../errors";
import { labelKey } from "../../labels";
import { completeCompetitor, completeEngine, completeTag } from "../completions";
import { changeText, meanChangeText, meanText, pct, rateText, scopeText, userMessage, utcDay } from "./format";
import { definePrompt, type PromptArgument } from "./registry";

const engineArg: PromptArgument = {
  name: "engine",
  description: "Only this AI engine's answers (an engine id, see get_tracking_status); default: all.",
  required: false,
  complete: completeEngine,
};
const tagArg: PromptArgument = {
  name: "tag",
  description: "Only prompts with this tag (name or id); default: all prompts.",
  required: false,
  complete: completeTag,
};

const weeklyReview = definePrompt({
  name: "weekly_visibility_review",
  title: "Weekly visibility review",
  description:
    "A review of the last 7 days against the 7 before: visibility, share of voice, position, sentiment and citations with their noise verdicts, the competitor ranking, the weakest prompts and the open content gaps, as the brand's figures stand now.",
  arguments: [engineArg, tagArg],
  plan: "visibility",
  build: async (args, ctx) => {
    const filter = { start_date: utcDay(6), end_date: utcDay(0), engine: args.engine, tag: args.tag };
    const overview = await ctx.tool("get_visibility_overview", filter);
    const ranking = await ctx.tool("get_competitor_ranking", filter);
    const weakest = await ctx.tool("get_prompt_performance", { ...filter, order: "visibility_asc", limit: 5 });
    const gaps = await ctx.tool("get_content_gaps", { ...filter, limit: 5 });
    const lines = [
      `Weekly AI-visibility review for the brand "${ctx.brand.name}", ${scopeText(overview.filter)}, compared with ${overview.filter.previous_start_date} to ${overview.filter.previous_end_date}.`,
      "",
      `Answers: ${overview.answers.total} (${overview.answers.valid} valid, ${overview.answers.no_answer} without an answer).`,
      `- Visibility: ${rateText(overview.visibility)}; ${changeText(overview.visibility)}`,
      `- Share of voice: ${rateText(overview.share_of_voice)}; ${changeText(overview.share_of_voice)}`,
      `- Average position (1 is named first): ${meanText(overview.avg_position, 1)}; ${meanChangeText(overview.avg_position, 1, "position")}; top-1 rate ${rateText(overview.avg_position.top1_rate)}`,
      `- Sentiment: ${meanText(overview.sentiment, 2)}; ${meanChangeText(overview.sentiment, 2, "sentiment")}`,
      `- Citation rate: ${rateText(overview.citation_rate)}; ${changeText(overview.citation_rate)}`,
      `- Prompt coverage: ${rateText(overview.prompt_coverage)}; ${changeText(overview.prompt_coverage)}`,
      "",
      "Competitor ranking (by visibility):",
      ...ranking.ranking.map(
        (r, i) =>
          `${i + 1}. ${r.name}${r.is_brand ? " (the brand)" : ""}: visibility ${rateText(r.visibility)}, share of voice ${pct(r.share_of_voice.rate)}, average position ${meanText(r.avg_position, 1)}`,
      ),
      "",
      "Weakest prompts:",
      ...(weakest.prompts.length
        ? weakest.prompts.map(
            (p) =>
              `- "${p.text}" (id ${p.id}): visibility ${rateText(p.visibility)}${p.top_competitor ? `; most named competitor ${p.top_competitor.name}` : ""}`,
          )
        : ["- none with answers this week"]),
      "",
      `Content gaps (prompts where competitors are named and the brand is not): ${gaps.total_gaps}`,
      ...gaps.gaps.map((g) => `- "${g.text}" (id ${g.prompt_id}): competitors ${g.competitors.map((c) => c.name).join(", ") || "none"}`),
      "",
      "Write the weekly review for the team: what changed beyond noise and what did not (say so when a change is within noise), where the brand stands against each competitor, and the three actions most likely to raise visibility next week. Use Spyglass's tools (get_visibility_trend, get_answer, get_top_sources) to check anything you claim.",
    ];
    return { description: `Weekly visibility review, ${scopeText(overview.filter)}`, messages: [userMessage(lines.join("\n"))] };
  },
});

const competitorDeepDive = definePrompt({
  name: "competitor_deep_dive",
  title: "Competitor deep-dive",
  description:
    "A comparison of the brand with one tracked competitor over the last 30 days: both rows of the ranking, the prompts where that competitor is named most and the content gaps it leads, as the figures stand now.",
  arguments: [
    {
      name: "competitor",
      description: "The tracked competitor's name, one of its aliases or its id (see list_competitors).",
      required: true,
      complete: completeCompetitor,
    },
  ],
  plan: "visibility",
  build: async (args, ctx) => {
    // By its id, its name or one of its aliases, compared as names are (case, width and spacing aside):
    // an alias the answers use ("Contoso" for Contoso CRM) was not found.
    const wanted = labelKey(args.competitor ?? "");
    const brand = await ctx.tool("get_brand", {});
    const competitor =
      brand.competitors.find((c) => c.id === args.competitor || labelKey(c.name) === wanted) ??
      brand.competitors.find((c) => c.aliases.some((alias) => labelKey(alias) === wanted));
    if (!competitor)
      throw new NotFound(
        `Competitor "${(args.competitor ?? "").slice(0, 100)}" not found; list_competitors shows the brand's competitors.`,
        "competitor_not_found",
      );
    const ranking = await ctx.tool("get_competitor_ranking", {});
    const performance = await ctx.tool("get_prompt_performance", { limit: 100 });
    const gaps = await ctx.tool("get_content_gaps", { limit: 100 });
    const rows = ranking.ranking.filter((r) => r.is_brand || r.id === competitor.id);
    const leads = performance.prompts.filter((p) => p.top_competitor?.id === competitor.id);
    const theirGaps = gaps.gaps.filter((g) => g.competitors.some((c) => c.id === competitor.id));
    const lines = [
      `Competitor deep-dive: "${ctx.brand.name}" against "${competitor.name}", ${scopeText(ranking.filter)} (${ranking.valid_answers} valid answers).`,
      competitor.domains.length ? `${competitor.name}'s domains: ${competitor.domains.join(", ")}.` : "",
      "",
      ...rows.map(
        (r) =>
          `- ${r.name}${r.is_brand ? " (the brand)" : ""}: visibility ${rateText(r.visibility)}, share of voice ${rateText(r.share_of_voice)}, average position ${meanText(r.avg_position, 1)}, top-1 rate ${pct(r.avg_position.top1_rate.rate)}, sentiment ${meanText(r.sentiment, 2)}`,
      ),
      "",
      `Prompts where ${competitor.name} is the competitor named most (${leads.length}):`,
      ...(leads.length
        ? leads.slice(0, 15).map((p) => `- "${p.text}" (id ${p.id}): the brand's visibility ${rateText(p.visibility)}`)
        : ["- none"]),
      "",
      `Content gaps where ${competitor.name} is named and the brand is not (${theirGaps.length}):`,
      ...(theirGaps.length
        ? theirGaps
            .slice(0, 15)
            .map((g) => `- "${g.text}" (id ${g.prompt_id}), cited domains: ${g.top_domains.map((d) => d.domain).join(", ") || "none"}`)
        : ["- none"]),
      "",
      `Explain where and why ${competitor.name} wins against the brand in AI answers, which of these differences are beyond noise, and what the brand should publish or change to close them. Before drawing conclusions, read a few of the answers behind them: list_answers with a prompt's id above (mentioned: false for those without the brand), then get_answer.`,
    ].filter((line, i, all) => line !== "" || all[i - 1] !== "");
    return { description: `${ctx.brand.name} against ${competitor.name}`, messages: [userMessage(lines.join("\n"))] };
  },
});

const auditSources = definePrompt({
  name: "audit_cited_sources",
  title: "Audit the cited sources",
  description:
    "An audit of the websites the AI engines cite in answers about the brand's prompts over the last 30 days: the most cited domains and pages, which are the brand's own, and the citation rate, as the figures stand now.",
  arguments: [engineArg, tagArg],
  plan: "visibility",
  build: async (args, ctx) => {
    const filter = { engine: args.engine, tag: args.tag };
    const domains = await ctx.tool("get_top_sources", { ...filter, level: "domain", limit: 15 });
    const urls = await ctx.tool("get_top_sources", { ...filter, level: "url", limit: 10 });
    const overview = await ctx.tool("get_visibility_overview", filter);
    const lines = [
      `Audit of the sources AI engines cite for "${ctx.brand.name}"'s prompts, ${scopeText(domains.filter)}: ${domains.total_citations} citations in ${domains.valid_answers} valid answers.`,
      `The brand's own site is cited in ${rateText(overview.citation_rate)} of valid answers (${changeText(overview.citation_rate)}).`,
      "",
      "Most cited domains:",
      ...(domains.sources.length
        ? domains.sources.map(
            (s) =>
              `- ${s.domain}${s.owned ? " (the brand's own)" : s.competitor ? ` (${s.competitor.name}'s site)` : ""}: ${s.citations} citations, ${pct(s.citation_share.rate)} of all, in ${s.answers} answers`,
          )
        : ["- no citations in this period"]),
      "",
      "Most cited pages:",
      ...(urls.sources.length ? urls.sources.map((s) => `- ${s.url ?? s.domain}: ${s.citations} citations`) : ["- none"]),
      "",
      "Audit these sources: group them (review sites, media, communities, competitors' own sites, the brand's own), say which the brand could be covered or listed on, which of its own pages earn citations and which topics lack an owned source. Propose a short outreach and content plan.",
    ];
    return { description: `Cited sources, ${scopeText(domains.filter)}`, messages: [userMessage(lines.join("\n"))] };
  },
});

export const visibilityPrompts = [weeklyReview, competitorDeepDive, auditSources];
