// The overview's KPI tiles: each figure with its n, its 95% interval and its change against the
// previous period, in words ("up", "down", "within noise") from the tool's own within_noise.
import { type ComponentChildren } from "preact";
import { useId } from "preact/hooks";
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
 * A verdict on a change as the pages write it beside a figure ("▲ up", "≈ within noise"), coloured as
 * the tiles colour theirs: the ranking's changes and the article impact's say it the same way.
 */
export function VerdictWord({ verdict: v }: { verdict: string }) {
  return (
    <span class={`verdict-word ${v.replace(/ /g, "-")}`}>
      {ARROWS[v] && <span aria-hidden="true">{ARROWS[v]} </span>}
      {v}
    </span>
  );
}

/** The verdict's class; for a figure where higher is worse (the no-answer rate) "up" is coloured as bad. */
function changeClass(v: string, higherIsWorse = false): string {
  const name = v.replace(/ /g, "-");
  return `kpi-change ${name}${higherIsWorse && (v === "up" || v === "down") ? " worse-when-up" : ""}`;
}

function Change({ rate, higherIsWorse }: { rate: PeriodRate; higherIsWorse?: boolean }) {
  const v = verdict(rate);
  return (
    <p class={changeClass(v, higherIsWorse)}>
      {ARROWS[v] && <span aria-hidden="true">{ARROWS[v]} </span>}
      <span class="kpi-verdict">{v}</span>
      {rate.change_pp !== null && <> · {points(rate.change_pp)}</>}
      <span class="kpi-previous"> (previous: {percent(rate.previous.rate)})</span>
    </p>
  );
}

function Tile({ title, children }: { title: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="kpi" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

function RateTile({
  title,
  rate,
  what,
  higherIsWorse,
  note,
}: {
  title: string;
  rate: PeriodRate;
  /** What n counts, for one and for more (or none): "valid answer", "valid answers". */
  what: readonly [string, string];
  higherIsWorse?: boolean;
  note?: string;
}) {
  return (
    <Tile title={title}>
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
      {note && <p class="kpi-meta">{note}</p>}
      <Change rate={rate} higherIsWorse={higherIsWorse} />
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
  children,
}: {
  title: string;
  mean: PeriodMean;
  digits: number;
  what: string;
  higherIsWorse?: boolean;
  children?: ComponentChildren;
}) {
  const v = meanVerdict(mean);
  const range = meanRange(mean, digits);
  return (
    <Tile title={title}>
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
      <p class={changeClass(v, higherIsWorse)}>
        {ARROWS[v] && <span aria-hidden="true">{ARROWS[v]} </span>}
        <span class="kpi-verdict">{v}</span>
        {mean.change !== null && <> · {signed(mean.change, digits)}</>}
        <span class="kpi-previous"> (previous: {meanText(mean.previous.value, digits)})</span>
      </p>
      {children}
    </Tile>
  );
}

function SubRate({ label, rate }: { label: string; rate: PeriodRate }) {
  const v = verdict(rate);
  return (
    <li>
      {label}: <strong>{percent(rate.rate)}</strong>{" "}
      <span class="kpi-meta">({rate.n > 0 ? <Interval low={rate.low} high={rate.high} /> : "n = 0"})</span>{" "}
      <span class={`${changeClass(v)} nowrap`}>
        {ARROWS[v] && <span aria-hidden="true">{ARROWS[v]} </span>}
        {v}
      </span>
    </li>
  );
}

export function KpiTiles({ overview }: { overview: Overview }) {
  const o = overview;
  const pos = o.avg_position;
  return (
    <div class="kpi-grid">
      <RateTile title="Visibility" rate={o.visibility} what={["valid answer", "valid answers"]} />
      <RateTile title="Share of voice" rate={o.share_of_voice} what={["roster mention", "roster mentions"]} />
      <MeanTile title="Average position" mean={pos} digits={1} what="1 is named first" higherIsWorse>
        <ul class="kpi-sub">
          <SubRate label="Top 1" rate={pos.top1_rate} />
          <SubRate label="Top 3" rate={pos.top3_rate} />
        </ul>
      </MeanTile>
      <RateTile
        title="Prompt coverage"
        rate={o.prompt_coverage}
        what={["prompt answered", "prompts answered"]}
        note="prompts with at least one answer naming the brand"
      />
      <RateTile title="Citation rate" rate={o.citation_rate} what={["valid answer", "valid answers"]} />
      <RateTile
        title="Retrieval rate"
        rate={o.retrieval_rate}
        what={["valid answer", "valid answers"]}
        note="answers whose provider lists a page of the brand's site among its search's sources (engines with web search only); an address only written in the text is a citation, not a retrieval"
      />
      <MeanTile title="Sentiment" mean={o.sentiment} digits={2} what="from −1 to +1" />
      <RateTile title="No-answer rate" rate={o.no_answer_rate} what={["answer", "answers"]} higherIsWorse />
    </div>
  );
}
