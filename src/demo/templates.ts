// Material of the demo data set: a fictional CRM brand, its competitors, prompts in four tags, and
// sentence templates from which varied, realistic-looking assistant answers are composed.
import { DEMO_ACCOUNT_EMAIL } from "../accounts/service";

// Defined with the accounts, which keep it from being the owner.
export const DEMO_EMAIL = DEMO_ACCOUNT_EMAIL;
export const DEMO_BRAND = {
  name: "Northwind CRM (demo)",
  aliases: ["Northwind CRM", "Northwind"],
  domain: "northwind-demo.com",
};

export const DEMO_COMPETITORS = [
  { name: "Contoso CRM", aliases: ["Contoso"], domains: ["contoso-demo.com"] },
  { name: "Fabrikam", aliases: ["Fabrikam Sales"], domains: ["fabrikam-demo.com"] },
  { name: "Litware", aliases: [], domains: ["litware-demo.com"] },
  { name: "Tailspin Pipeline", aliases: ["Tailspin"], domains: ["tailspin-demo.com"] },
];

// previousFactor / currentFactor: the chance of a mention in the previous 30 days and the last 30,
// relative to brandBias: ChatGPT gains, Claude loses, Perplexity stays (each verdict kind shows).
export const DEMO_ENGINES = [
  {
    id: "chatgpt",
    model: "gpt-4o-mini",
    brandBias: 1.0,
    citationRate: 0.45,
    providerCitations: false,
    previousFactor: 0.6,
    currentFactor: 1.15,
  },
  {
    id: "perplexity",
    model: "sonar",
    brandBias: 1.2,
    citationRate: 0.95,
    providerCitations: true,
    previousFactor: 1.0,
    currentFactor: 1.0,
  },
  {
    id: "claude",
    model: "claude-3-5-haiku",
    brandBias: 0.8,
    citationRate: 0.3,
    providerCitations: false,
    previousFactor: 1.35,
    currentFactor: 0.8,
  },
];

export const DEMO_TAGS = [
  { name: "Comparison", color: "#2563eb" },
  { name: "Best of", color: "#16a34a" },
  { name: "How-to", color: "#d97706" },
  { name: "Pricing", color: "#9333ea" },
];

/** 40 prompts: [tag index, text]. */
export const DEMO_PROMPTS: Array<[number, string]> = [
  [1, "What is the best CRM for a small business?"],
  [1, "Which CRM is best for startups?"],
  [1, "Best CRM for B2B sales teams"],
  [1, "What are the top CRM tools in 2025?"],
  [1, "Best free CRM software"],
  [1, "Which CRM has the best email integration?"],
  [1, "Best CRM for real estate agents"],
  [1, "What CRM do agencies use?"],
  [1, "Best CRM with built-in marketing automation"],
  [1, "Most user-friendly CRM for non-technical teams"],
  [0, "Northwind CRM vs Contoso CRM: which is better?"],
  [0, "Compare Fabrikam and Litware for sales pipelines"],
  [0, "Alternatives to Contoso CRM"],
  [0, "Is Tailspin Pipeline better than Fabrikam?"],
  [0, "Which CRM has better reporting, Litware or Contoso?"],
  [0, "CRM comparison for teams of 20 people"],
  [0, "Open-source vs SaaS CRM: pros and cons"],
  [0, "Which CRM integrates best with Gmail and Outlook?"],
  [0, "What CRM has the best mobile app?"],
  [0, "Which CRM is easiest to migrate to from spreadsheets?"],
  [2, "How do I set up a sales pipeline in a CRM?"],
  [2, "How to automate follow-up emails with a CRM"],
  [2, "How to track deals and forecast revenue"],
  [2, "How can I import contacts from Excel into a CRM?"],
  [2, "How to set up lead scoring"],
  [2, "How do I connect my CRM to Slack?"],
  [2, "How to build a customer onboarding workflow"],
  [2, "How to measure sales team performance"],
  [2, "How to deduplicate contacts in a CRM"],
  [2, "How do I choose a CRM for my company?"],
  [3, "How much does a CRM cost per user?"],
  [3, "Cheapest CRM for a team of five"],
  [3, "Is there a CRM with a free plan and no user limit?"],
  [3, "CRM pricing comparison for small teams"],
  [3, "Which CRM offers the best value for money?"],
  [3, "Are there CRMs without annual contracts?"],
  [3, "What hidden costs should I expect from a CRM?"],
  [3, "Does Northwind CRM have a free trial?"],
  [3, "Affordable CRM for nonprofits"],
  [3, "CRM with per-seat pricing under $20"],
];

/** Suffixes that multiply prompts for `--scale` while keeping each text distinct. */
export const SCALE_INDUSTRIES = [
  "a law firm",
  "a dental clinic",
  "a SaaS startup",
  "an e-commerce shop",
  "a consultancy",
  "a manufacturer",
  "a recruiting agency",
  "an insurance broker",
  "a logistics company",
  "a marketing agency",
  "a school",
  "a hotel",
  "a construction company",
  "a fitness studio",
  "a nonprofit",
  "an accounting firm",
  "a wholesaler",
  "a solar installer",
  "a coworking space",
  "a travel agency",
];
export const SCALE_REGIONS = [
  "in Germany",
  "in the UK",
  "in France",
  "in Canada",
  "in Australia",
  "in Spain",
  "in Brazil",
  "in India",
  "in Japan",
  "in the US",
];

export const INTROS = [
  "Here are a few options worth considering.",
  "It depends on your team size and budget, but several tools stand out.",
  "There is no single best answer, but these are commonly recommended.",
  "Based on reviews and feature comparisons, here is a short overview.",
  "Many teams start by comparing a handful of well-known products.",
  "Good question — the market is crowded, so here is a quick rundown.",
];

export const POSITIVE = [
  "{name} is a strong choice, praised for its clean interface and fast setup.",
  "{name} stands out for excellent reporting and reliable automation.",
  "Reviewers love {name} for its helpful support and great value.",
  "{name} is easy to use and integrates well with email and calendars.",
  "{name} offers an impressive free tier and a friendly onboarding.",
];
export const NEUTRAL = [
  "{name} covers the basics: contacts, deals and a simple pipeline.",
  "{name} is another option, mostly used by mid-sized teams.",
  "{name} offers pipelines, reporting and a mobile app.",
  "{name} is available in several plans billed per user.",
];
export const NEGATIVE = [
  "{name} is capable, but users complain about a steep learning curve.",
  "{name} can get expensive, and some reviewers report slow support.",
  "{name} works, although its interface feels dated and clunky.",
  "Some teams find {name} confusing and its reporting limited.",
];

export const CLOSINGS = [
  "Try two or three of them with a free trial before deciding.",
  "Your best pick depends on integrations you already rely on.",
  "Check current pricing, as plans change often.",
  "Start with your must-have features and compare from there.",
];

export const THIRD_PARTY_SOURCES = [
  "https://www.g2.com/categories/crm",
  "https://www.capterra.com/customer-relationship-management-software/",
  "https://www.techradar.com/best/best-crm-software",
  "https://www.forbes.com/advisor/business/software/best-crm-small-business/",
  "https://www.reddit.com/r/sales/comments/crm_recommendations/",
  "https://en.wikipedia.org/wiki/Customer_relationship_management",
  "https://www.pcmag.com/picks/the-best-crm-software",
  "https://zapier.com/blog/best-crm-app/",
  "https://www.trustradius.com/crm",
  "https://blog.hubspot.com/sales/crm-comparison?utm_source=chatgpt.com",
];

export const MEMBER_PAGES = ["", "/pricing", "/features", "/blog/choosing-a-crm", "/customers"];

export const REFUSALS = ["I'm sorry, but I can't help with recommending specific vendors.", "I can't provide that comparison right now."];

export const ERRORS = [
  "HTTP 503: upstream overloaded",
  "timeout after 60000 ms",
  "HTTP 429: Rate limit reached",
  "HTTP 500: internal error",
];

export const DEMO_ARTICLE = {
  title: "How to choose a CRM for a small business (demo article)",
  description: "A demo article published by spyglass demo: a checklist for picking a CRM.",
  markdown: `This is **demo content** seeded by \`spyglass demo\`.

## What matters most

1. **Ease of use**: your team must actually use it.
2. **Integrations** with email, calendar and chat.
3. **Pricing** that grows with you: per-seat plans without annual lock-in.

## Where Northwind CRM fits

Northwind CRM offers a free plan for up to three users, a visual pipeline and email sync.
See the [pricing page](https://northwind-demo.com/pricing) for details.
`,
};
