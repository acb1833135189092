// The event hub that carries one feature's changes to another (roster changes to tracking, article
// changes to the public cache): a listener that throws neither undoes the change nor silences the rest.
import { expect, test } from "bun:test";
import { EventHub } from "../src/events";
import { captureLog } from "./support/log";

test("every listener of an event hears it, in order, even after one of them throws", async () => {
  const hub = new EventHub();
  const heard: string[] = [];
  hub.on("rosterChanged", ({ brandId }) => heard.push(`first ${brandId}`));
  hub.on("rosterChanged", () => {
    throw new Error("listener broke");
  });
  hub.on("rosterChanged", ({ brandId }) => heard.push(`third ${brandId}`));
  hub.on("articlesChanged", ({ brandId }) => heard.push(`articles ${brandId}`));
  const logs = await captureLog(async () => {
    hub.emit("rosterChanged", { brandId: "brd_1" });
  });
  expect(heard).toEqual(["first brd_1", "third brd_1"]);
  expect(logs).toContain("listener broke");
});
