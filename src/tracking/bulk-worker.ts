// The worker thread's entry for bulk jobs on an SQLite file (db/slice-thread.ts): a large brand's
// re-analysis (reanalysis.ts) and the per-prompt windows' rebuild (prompt-windows.ts). One entry for
// both, so that the executable bundles their code once. The jobs' types live beside their code: a
// module that imported this entry would run serveJobs.
import { serveJobs } from "../db/slice-thread";
import { AnswerWriter } from "./answer-writer";
import { rebuildWindows, type WindowsJob } from "./prompt-windows";
import { type ReanalysisJob, reanalyzeAnswers } from "./reanalysis";
import { loadRoster } from "./roster";

serveJobs<ReanalysisJob | WindowsJob, unknown>(async (db, control, job) => {
  if (job.kind === "windows") return rebuildWindows(db, job.brandId, job.endDay, control);
  const roster = await loadRoster(db, job.brandId);
  return reanalyzeAnswers(db, new AnswerWriter(), job.brandId, roster, { ...control, version: job.version });
});
