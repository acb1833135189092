// The competitor ranking (get_competitor_ranking) and the overview's per-engine figures, as tables.
// Names are untrusted text: text nodes only.
import { type ToolOutput } from "../../../../catalogue/types";
import { ScrollTable } from "../../components/scroll-table";
import { count, meanRange, meanText, type Overview, percent, points, range, verdict } from "./format";

type Ranking = ToolOutput<"get_competitor_ranking">;

export function RankingTable({ ranking }: { ranking: Ranking }) {
  return (
    <ScrollTable label="Competitor ranking, scrollable">
      <table class="ranking cards-narrow">
        <caption>Ranked by visibility on the same {count(ranking.valid_answers)} valid answers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Visibility (95% interval; change)</th>
            <th scope="col">Share of voice</th>
            <th scope="col">Avg. position (95% interval)</th>
            <th scope="col">Sentiment (95% interval)</th>
          </tr>
        </thead>
        <tbody>
          {ranking.ranking.map((r) => (
            <tr key={r.id} class={r.is_brand ? "is-brand" : undefined}>
              <th scope="row">
                {r.name}
                {r.is_brand && <span class="badge">Your brand</span>}
              </th>
              <td data-label="Visibility">
                {percent(r.visibility.rate)}
                <span class="cell-meta">{range(r.visibility)}</span>
                {/* Who is gaining: the change from the previous period, with the tool's verdict. */}
                <span class="cell-meta cell-change">
                  {r.visibility.change_pp === null ? "no previous figure" : `${points(r.visibility.change_pp)}, ${verdict(r.visibility)}`}
                </span>
              </td>
              <td data-label="Share of voice">{percent(r.share_of_voice.rate)}</td>
              <td data-label="Avg. position">
                {meanText(r.avg_position.value, 1)}
                <span class="cell-meta">{meanRange(r.avg_position, 1)}</span>
              </td>
              <td data-label="Sentiment">
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
      <table class="by-engine cards-narrow">
        <thead>
          <tr>
            <th scope="col">Engine</th>
            <th scope="col">Valid answers</th>
            <th scope="col">Visibility (95% interval)</th>
            <th scope="col">Share of voice</th>
            <th scope="col">Avg. position</th>
            <th scope="col">Citation rate</th>
            <th scope="col">Retrieval rate</th>
            <th scope="col">No-answer rate</th>
          </tr>
        </thead>
        <tbody>
          {overview.by_engine.map((e) => (
            <tr key={e.engine}>
              <th scope="row">{e.label}</th>
              <td data-label="Valid answers">{count(e.answers.valid)}</td>
              <td data-label="Visibility">
                {percent(e.visibility.rate)}
                <span class="cell-meta">{range(e.visibility)}</span>
              </td>
              <td data-label="Share of voice">{percent(e.share_of_voice.rate)}</td>
              <td data-label="Avg. position">{meanText(e.avg_position.value, 1)}</td>
              <td data-label="Citation rate">{percent(e.citation_rate.rate)}</td>
              <td data-label="Retrieval rate">{percent(e.retrieval_rate.rate)}</td>
              <td data-label="No-answer rate">{percent(e.no_answer_rate.rate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
