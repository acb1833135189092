// RENDERER_VERSION names what the renderer makes of an article: a start renders again every article
// an older version made (content/rerender.ts). This test keeps the two together. It renders a sample
// of what articles hold and compares a digest of the HTML with the one recorded for the version:
// HTML that changed under the same version fails until RENDERER_VERSION is bumped (and the new digest
// recorded with UPDATE_SNAPSHOTS=1), so a renderer or sanitizer fix (or a marked or DOMPurify upgrade)
// cannot reach new saves only.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { renderArticle } from "../../src/content/render";
import { RENDERER_VERSION } from "../../src/content/renderer-version";
import { readSnapshot, UPDATING_SNAPSHOTS } from "../support/snapshot";

const SAMPLES: Array<{ title: string; markdown: string }> = [
  { title: "Choosing a CRM", markdown: "# Choosing a CRM\n\nIntro with *emphasis*, **strong**, `code` and ~~strike~~." },
  { title: "Setext", markdown: "Heading\n=======\n\nSub\n---\n\nText." },
  { title: "Lists", markdown: "- one\n- two\n  1. nested\n  2. more\n\n- [ ] open\n- [x] done" },
  { title: "Table", markdown: "| Tool | Price |\n|:--|--:|\n| Acme | $10 |\n| Other | $12 |" },
  { title: "Code", markdown: "```ts\nconst a = 1 < 2;\n```\n\n    indented\n" },
  {
    title: "Links",
    markdown: '[site](https://acme.com) <https://auto.example> [bad](javascript:alert(1)) ![img](https://acme.com/a.png "t")',
  },
  {
    title: "Raw HTML",
    markdown:
      '<figure><img src="x" onerror="alert(1)"><figcaption>Cap</figcaption></figure>\n\n<script>alert(1)</script><iframe src="https://x"></iframe>',
  },
  { title: "Quote", markdown: "> quoted\n> > twice\n\n---\n\nLine  \nbreak & ampersand < less" },
  { title: "Contents", markdown: '- [Why](#why)\n\n## Why\n\nA claim.[^a] <a id="x" name="y">named</a>\n\n[^a]: Its source.' },
  { title: "Unicode", markdown: "Straße, Œuvre, ソニー, שלום, emoji 🙂 and a footnote-like [^1].\n\n[^1]: Note." },
];

test("the renderer's HTML is the one recorded for RENDERER_VERSION (bump it when the HTML changes)", () => {
  const html = SAMPLES.map(renderArticle).join("\n\u0000\n");
  const digest = new Bun.CryptoHasher("sha256").update(html).digest("hex");
  const file = join(import.meta.dir, "__snapshots__", "renderer-version.json");
  const recorded = readSnapshot(file, { version: RENDERER_VERSION, digest }, false) as { version: number; digest: string };
  if (recorded.version === RENDERER_VERSION && recorded.digest !== digest) {
    throw new Error(
      `The renderer's HTML changed, but RENDERER_VERSION is still ${RENDERER_VERSION}: bump it in src/content/renderer-version.ts (articles saved before are then rendered again at start), and record the new digest with UPDATE_SNAPSHOTS=1.`,
    );
  }
  if (recorded.version !== RENDERER_VERSION && UPDATING_SNAPSHOTS) readSnapshot(file, { version: RENDERER_VERSION, digest }, true);
  else expect({ version: RENDERER_VERSION, digest }).toEqual(recorded);
});
