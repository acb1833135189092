// The competitor ranking (get_competitor_ranking) and the overview's per-engine figures, as tables.
// Names are untrusted text: text nodes only.
import { type ToolOutput } from "../../../../catalogue/types";
import { rangeText } from "../../components/figures";
import { ScrollTable } from "../../components/scroll-table";
import { count, meanRange, meanText, type Overview, percent, points, verdict } from "./format";
import { VerdictWord } from "./tiles";

type Ranking = ToolOutput<"get_competitor_ranking">;

export function RankingTable({ ranking }: { ranking: Ranking }) {
  return (
    <ScrollTable label="Competitor ranking, scrollable">
      <table class="ranking cards-narrow cards-facts">
        {/* What the cells hold under their figures is said here once: in each header, it wrapped them onto two to four lines. */}
        <caption>
          Ranked by visibility on the same {count(ranking.valid_answers)} valid answers. Under each figure, its 95% interval; under
          visibility, its change from the previous period.
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="num">
              Visibility
            </th>
            <th scope="col" class="num">
              Share of voice
            </th>
            <th scope="col" class="num">
              Avg. position
            </th>
            <th scope="col" class="num">
              Sentiment
            </th>
          </tr>
        </thead>
        <tbody>
          {ranking.ranking.map((r) => (
            <tr key={r.id} class={r.is_brand ? "is-brand" : undefined}>
              <th scope="row">
                {r.name}
                {r.is_brand && <span class="badge">Your brand</span>}
              </th>
              <td class="num" data-label="Visibility">
                {percent(r.visibility.rate)}
                <span class="cell-meta">{rangeText(r.visibility)}</span>
                {/* Who is gaining: the change from the previous period, with the tool's verdict. */}
                <span class="cell-meta cell-change">
                  <VerdictWord verdict={verdict(r.visibility)} />
                  {/* "· +0.8 points" kept whole: "within noise ·" ended a phone card's line. */}
                  {r.visibility.change_pp !== null && (
                    <>
                      {" "}
                      <span class="nowrap">· {points(r.visibility.change_pp)}</span>
                    </>
                  )}
                </span>
              </td>
              <td class="num" data-label="Share of voice">
                {percent(r.share_of_voice.rate)}
                <span class="cell-meta">{rangeText(r.share_of_voice)}</span>
              </td>
              <td class="num" data-label="Avg. position">
                {meanText(r.avg_position.value, 1)}
                <span class="cell-meta">{meanRange(r.avg_position, 1)}</span>
              </td>
              <td class="num" data-label="Sentiment">
                {meanText(r.sentiment.value, 2)}
                <span class="cell-meta">{meanRange(r.sentiment, 2)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

export function EngineTable({ overview }: { overview: Overview }) {
  return (
    <ScrollTable label="Figures by engine, scrollable">
      <table class="by-engine cards-narrow cards-facts">
        <caption>Each engine's figures on its own answers; under visibility, its 95% interval.</caption>
        <thead>
          <tr>
            <th scope="col">Engine</th>
            <th scope="col" class="num">
              Valid answers
            </th>
            <th scope="col" class="num">
              Visibility
            </th>
            <th scope="col" class="num">
              Share of voice
            </th>
            <th scope="col" class="num">
              Avg. position
            </th>
            <th scope="col" class="num">
              Citation rate
            </th>
            <th scope="col" class="num">
              Retrieval rate
            </th>
            <th scope="col" class="num">
              No-answer rate
            </th>
          </tr>
        </thead>
        <tbody>
          {overview.by_engine.map((e) => (
            <tr key={e.engine}>
              <th scope="row">{e.label}</th>
              <td class="num" data-label="Valid answers">
                {count(e.answers.valid)}
              </td>
              <td class="num" data-label="Visibility">
                {percent(e.visibility.rate)}
                <span class="cell-meta">{rangeText(e.visibility)}</span>
              </td>
              <td class="num" data-label="Share of voice">
                {percent(e.share_of_voice.rate)}
              </td>
              <td class="num" data-label="Avg. position">
                {meanText(e.avg_position.value, 1)}
              </td>
              <td class="num" data-label="Citation rate">
                {percent(e.citation_rate.rate)}
              </td>
              <td class="num" data-label="Retrieval rate">
                {percent(e.retrieval_rate.rate)}
              </td>
              <td class="num" data-label="No-answer rate">
                {percent(e.no_answer_rate.rate)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
