// The attack corpora the sanitizer tests load.
//
// The project's own corpus, test/corpus/xss-vectors.json, is always there: one vector of our own per
// known XSS and mutation-XSS technique (see test/corpus/README.md). The shared corpora (DOMPurify's
// fixtures, the HTML5 Security Cheatsheet) live beside the repository in ../shared/corpus, where CI
// puts them; a clone alone has none, and the suite then says so in one line and runs its own.
// SPYGLASS_SHARED_CORPUS names another directory (a run can point it at an empty one to prove the
// absent case).

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** A vector of the project's own corpus. */
export interface OwnVector {
  id: number;
  technique: string;
  name: string;
  html: string;
  trigger: string | null;
  /**
   * What the harness sees when this vector is loaded raw in Chromium: "script" (script ran: a
   * hooked alert/confirm call or a dialog), "request" (only a blocked request for script, a frame,
   * a stylesheet or a navigation away), or null when Chromium runs nothing (markup aimed at other
   * browsers, inert containers, markdown syntax that is only dangerous once rendered, clobbering).
   */
  fires: "script" | "request" | null;
}

/** A vector as the harness loads it, with a label that says where it came from. */
export interface CorpusVector {
  label: string;
  html: string;
  trigger: string | null;
}

export interface DompurifyFixture {
  /** About half of the fixtures have none. */
  title?: string;
  payload: string;
}

export interface H5scItem {
  id: number;
  category: string;
  name: string;
  data: string;
  trigger: string | null;
}

export interface SharedCorpus {
  dir: string;
  dompurify: DompurifyFixture[];
  h5sc: H5scItem[];
}

export const OWN_CORPUS_FILE = resolve(import.meta.dir, "../corpus/xss-vectors.json");

export const SHARED_CORPUS_DIR = resolve(process.env.SPYGLASS_SHARED_CORPUS ?? resolve(import.meta.dir, "../../../shared/corpus"));

const SHARED_FILES = ["dompurify-expect.json", "h5sc-items.json"] as const;

export async function loadOwnCorpus(): Promise<OwnVector[]> {
  return (await Bun.file(OWN_CORPUS_FILE).json()) as OwnVector[];
}

/**
 * The shared corpora, or null (after one line on the console) when their directory is absent. A
 * directory that holds only some of the files is an error: a half-copied corpus must not pass for
 * an absent one.
 */
export async function loadSharedCorpus(dir = SHARED_CORPUS_DIR): Promise<SharedCorpus | null> {
  const present = SHARED_FILES.filter((file) => existsSync(join(dir, file)));
  if (present.length === 0) {
    console.log(`shared attack corpora not found in ${dir}: running the project's own corpus only`);
    return null;
  }
  if (present.length < SHARED_FILES.length) {
    throw new Error(`${dir} holds ${present.join(", ")} but not ${SHARED_FILES.filter((f) => !present.includes(f)).join(", ")}`);
  }
  return {
    dir,
    dompurify: (await Bun.file(join(dir, "dompurify-expect.json")).json()) as DompurifyFixture[],
    h5sc: (await Bun.file(join(dir, "h5sc-items.json")).json()) as H5scItem[],
  };
}

export function ownVectors(own: readonly OwnVector[]): CorpusVector[] {
  return own.map((vector) => ({
    label: `own #${vector.id}: ${vector.technique}: ${vector.name}`,
    html: vector.html,
    trigger: vector.trigger,
  }));
}

export function sharedVectors(shared: SharedCorpus | null): CorpusVector[] {
  if (!shared) return [];
  return [
    ...shared.dompurify.map((fixture, index) => ({
      label: `DOMPurify #${index}: ${fixture.title ?? fixture.payload.slice(0, 60)}`,
      html: fixture.payload,
      trigger: null,
    })),
    ...shared.h5sc.map((item) => ({ label: `H5SC #${item.id}: ${item.name}`, html: item.data, trigger: item.trigger })),
  ];
}
