// The worker thread's entry for bulk jobs on an SQLite file (db/slice-thread.ts): a large brand's
// re-analysis (reanalysis.ts) and the per-prompt windows' rebuild (prompt-windows.ts). One entry for
// both, so that the executable bundles their code once.
import { serveJobs } from "../db/slice-thread";
import { AnswerWriter } from "./answer-writer";
import { rebuildWindows } from "./prompt-windows";
import { reanalyzeAnswers } from "./reanalysis";
import { loadRoster } from "./roster";

export type BulkJob =
  /** The roster version the pass was started at (PassControl.version). */
  { kind: "reanalysis"; brandId: string; version: number } | { kind: "windows"; brandId: string; endDay: number };

serveJobs<BulkJob, unknown>(async (db, control, job) => {
  if (job.kind === "windows") return rebuildWindows(db, job.brandId, job.endDay, control);
  const roster = await loadRoster(db, job.brandId);
  return reanalyzeAnswers(db, new AnswerWriter(), job.brandId, roster, { ...control, version: job.version });
});
