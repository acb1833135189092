// Every path of the dashboard's router (web/app.tsx) is served the page by the server (pages.ts's
// PAGE_PATHS): a path left out was answered 404 (JSON to anything but a browser) while the browser
// still drew it (found by a review: "Your account", /account).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PAGE_PATHS } from "../../src/dashboard/pages";

const served = (path: string) =>
  PAGE_PATHS.some((pattern) => (pattern.endsWith("/*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern));

test("every route of the dashboard's router is one of the server's page paths", () => {
  const app = readFileSync(join(import.meta.dir, "../../src/dashboard/web/app.tsx"), "utf8");
  const routes = [...app.matchAll(/<Route path="([^"]+)"/g)].map((match) => match[1]!.replace(/:[A-Za-z]+/g, "x"));
  expect(routes.length).toBeGreaterThan(10);
  expect(routes.filter((path) => !served(path))).toEqual([]);
});
