// The overview's KPI tiles: each figure with its n, its 95% interval and its change against the
// previous period, in words ("up", "down", "within noise") from the tool's own within_noise.
import { type ComponentChildren } from "preact";
import { useId, useState } from "preact/hooks";
import { formatDays } from "../../components/dates";
import { Interval } from "../../components/figures";
import {
  count,
  meanRange,
  meanText,
  meanVerdict,
  type Overview,
  type PeriodMean,
  type PeriodRate,
  percent,
  points,
  signed,
  verdict,
} from "./format";

const ARROWS: Record<string, string> = { up: "▲", down: "▼", "within noise": "≈" };

/**
 * A verdict on a change as the pages write it beside a figure ("▲ up", "≈ within noise"), in its
 * colour: the tiles, the ranking's changes and the article impact's say it the same way. For a
 * figure where higher is worse (the no-answer rate), "up" is coloured as bad.
 */
export function VerdictWord({ verdict: v, higherIsWorse = false }: { verdict: string; higherIsWorse?: boolean }) {
  return (
    <span class={`verdict-word ${v.replace(/ /g, "-")}${higherIsWorse && (v === "up" || v === "down") ? " worse-when-up" : ""}`}>
      {ARROWS[v] && <span aria-hidden="true">{ARROWS[v]} </span>}
      <span class="verdict-text">{v}</span>
    </span>
  );
}

/**
 * A change as the tiles write it: the verdict in its colour ("▲ up"; for a figure where higher is worse,
 * the no-answer rate, "up" is coloured as bad), then the change and the previous figure in the text's,
 * as the tables write theirs. With no previous figure, that is all it says.
 */
function ChangeLine({
  verdict: v,
  change,
  previous,
  higherIsWorse = false,
}: {
  verdict: string;
  change: string;
  previous: string;
  higherIsWorse?: boolean;
}) {
  return (
    <p class="kpi-change">
      <VerdictWord verdict={v} higherIsWorse={higherIsWorse} />
      {change && (
        <>
          {" "}
          <span class="nowrap">· {change}</span>
        </>
      )}
      {v !== "no previous figure" && (
        <>
          {" "}
          <span class="kpi-previous nowrap">(previous: {previous})</span>
        </>
      )}
    </p>
  );
}

/**
 * A tile: its figure's name, what the figure counts behind an ⓘ (METRICS.md's definition, in a
 * sentence), and the figure. The definitions made the tiles of a row as tall as the longest one.
 */
function Tile({ title, definition, children }: { title: string; definition: string; children: ComponentChildren }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  return (
    <section class="kpi" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <button
        type="button"
        class="kpi-info"
        aria-expanded={open}
        aria-controls={`${id}-def`}
        aria-label={`What ${title} counts`}
        title={`What ${title} counts`}
        onClick={() => setOpen(!open)}
      >
        {/* Drawn, not the character ⓘ: a system without a font that has it showed a box. */}
        <svg aria-hidden="true" width="18" height="18" viewBox="0 0 20 20" fill="none" stroke="currentColor" stroke-width="1.6">
          <circle cx="10" cy="10" r="8.2" />
          <path d="M10 9v5.2" stroke-linecap="round" />
          <circle cx="10" cy="6.1" r="1.05" fill="currentColor" stroke="none" />
        </svg>
      </button>
      {children}
      {/* Under the figure, which stays where it is when the definition opens (above it, the figure dropped ~140 px). */}
      <p id={`${id}-def`} class="kpi-definition" hidden={!open}>
        {definition}
      </p>
    </section>
  );
}

function RateTile({
  title,
  rate,
  what,
  higherIsWorse,
  definition,
  compared,
}: {
  title: string;
  rate: PeriodRate;
  /** What n counts, for one and for more (or none): "valid answer", "valid answers". */
  what: readonly [string, string];
  higherIsWorse?: boolean;
  definition: string;
  /** Whether the previous period has answers to compare with (when not, the period's heading says so once). */
  compared: boolean;
}) {
  return (
    <Tile title={title} definition={definition}>
      <p class="kpi-value">{percent(rate.rate)}</p>
      <p class="kpi-meta">
        n = {count(rate.n)} {rate.n === 1 ? what[0] : what[1]}
        {rate.n > 0 && (
          <>
            {" "}
            · <Interval low={rate.low} high={rate.high} />
          </>
        )}
      </p>
      {compared && (
        <ChangeLine
          verdict={verdict(rate)}
          change={points(rate.change_pp)}
          previous={percent(rate.previous.rate)}
          higherIsWorse={higherIsWorse}
        />
      )}
    </Tile>
  );
}

/** A mean's tile: its value, n and Student t interval, and its change with the tool's verdict. */
function MeanTile({
  title,
  mean,
  digits,
  what,
  higherIsWorse,
  definition,
  compared,
  children,
}: {
  title: string;
  mean: PeriodMean;
  digits: number;
  what: string;
  higherIsWorse?: boolean;
  definition: string;
  compared: boolean;
  children?: ComponentChildren;
}) {
  const range = meanRange(mean, digits);
  return (
    <Tile title={title} definition={definition}>
      <p class="kpi-value">{meanText(mean.value, digits)}</p>
      <p class="kpi-meta">
        {what} · n = {count(mean.n)} {mean.n === 1 ? "answer" : "answers"} naming the brand
        {range && (
          <>
            {" "}
            · 95% interval <span class="nowrap">{range}</span>
          </>
        )}
      </p>
      {compared && (
        <ChangeLine
          verdict={meanVerdict(mean)}
          change={signed(mean.change, digits)}
          previous={meanText(mean.previous.value, digits)}
          higherIsWorse={higherIsWorse}
        />
      )}
      {children}
    </Tile>
  );
}

function SubRate({ label, rate, compared }: { label: string; rate: PeriodRate; compared: boolean }) {
  const v = verdict(rate);
  return (
    <li>
      {label}: <strong>{percent(rate.rate)}</strong>{" "}
      <span class="kpi-meta">({rate.n > 0 ? <Interval low={rate.low} high={rate.high} /> : "n = 0"})</span>{" "}
      {compared && <VerdictWord verdict={v} />}
    </li>
  );
}

/** Whether the overview's previous period has any answer: without one, no tile has a change to show. */
function hasPrevious(overview: Overview): boolean {
  return overview.no_answer_rate.previous.n > 0;
}

/**
 * What the tiles' changes are from, said once above them: "compared with Sep 30 – Oct 29, 2026", or
 * that the period before has no answers (each tile said "no previous figure" on its own).
 */
export function comparedWith(overview: Overview): string {
  const previous = formatDays(overview.filter.previous_start_date, overview.filter.previous_end_date);
  return hasPrevious(overview) ? `compared with ${previous}` : `nothing to compare with: no answer in ${previous}`;
}

export function KpiTiles({ overview }: { overview: Overview }) {
  const o = overview;
  const pos = o.avg_position;
  const compared = hasPrevious(o);
  return (
    <div class="kpi-grid">
      <RateTile
        title="Visibility"
        rate={o.visibility}
        what={["valid answer", "valid answers"]}
        definition="Valid answers that name the brand, out of all valid answers. An answer that came back empty, refused or failed counts in neither."
        compared={compared}
      />
      <RateTile
        title="Share of voice"
        rate={o.share_of_voice}
        what={["roster mention", "roster mentions"]}
        definition="The brand's mentions out of all the mentions of the brand and its competitors, each counted once per answer."
        compared={compared}
      />
      <MeanTile
        title="Average position"
        mean={pos}
        digits={1}
        what="1 is named first"
        higherIsWorse
        definition="The brand's place among the brand and its competitors, in the order each is first named in an answer, averaged over the answers naming the brand. Top 1 and Top 3: how often it is named first, or among the first three."
        compared={compared}
      >
        <ul class="kpi-sub">
          <SubRate label="Top 1" rate={pos.top1_rate} compared={compared} />
          <SubRate label="Top 3" rate={pos.top3_rate} compared={compared} />
        </ul>
      </MeanTile>
      <RateTile
        title="Prompt coverage"
        rate={o.prompt_coverage}
        what={["prompt answered", "prompts answered"]}
        definition="Prompts with at least one answer naming the brand, out of the prompts with at least one valid answer."
        compared={compared}
      />
      <RateTile
        title="Citation rate"
        rate={o.citation_rate}
        what={["valid answer", "valid answers"]}
        definition="Valid answers citing at least one address on the brand's domains, out of all valid answers."
        compared={compared}
      />
      <RateTile
        title="Retrieval rate"
        rate={o.retrieval_rate}
        what={["valid answer", "valid answers"]}
        definition="Valid answers whose provider lists a page of the brand's site among its search's sources (engines with web search only), out of all valid answers. An address only written in the text is a citation, not a retrieval."
        compared={compared}
      />
      <MeanTile
        title="Sentiment"
        mean={o.sentiment}
        digits={2}
        what="from −1 to +1"
        definition="How the answers speak of the brand, from −1 (negative) to +1 (positive), scored on the sentences that name it and averaged over the answers naming it."
        compared={compared}
      />
      <RateTile
        title="No-answer rate"
        rate={o.no_answer_rate}
        what={["answer", "answers"]}
        higherIsWorse
        definition="Answers that came back empty, refused or failed, out of all answers. They are left out of every other figure."
        compared={compared}
      />
    </div>
  );
}
