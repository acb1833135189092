// A failure that repeats while its cause lasts (the tracking loops' database reads during an outage)
// is one line at error, one more when the message changes, and one at info when it works again.
import { expect, test } from "bun:test";
import { RepeatedFailure } from "../src/log";
import { captureLog } from "./support/log";

test("a repeated failure is logged once, again when it changes, and its end once", async () => {
  const logged = await captureLog(async () => {
    const failure = new RepeatedFailure("tracking could not look for work");
    failure.succeeded();
    for (let i = 0; i < 60; i++) failure.failed(new Error("connection refused"));
    failure.failed(new Error("the database is starting up"));
    failure.failed(new Error("the database is starting up"));
    failure.succeeded();
    failure.succeeded();
    failure.failed(new Error("connection refused"));
  });
  const lines = logged
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { level: string; msg: string; message?: string; failures?: number });
  expect(lines.map((l) => [l.level, l.msg, l.message ?? l.failures])).toEqual([
    ["error", "tracking could not look for work", "connection refused"],
    ["error", "tracking could not look for work", "the database is starting up"],
    ["info", "tracking could not look for work: works again", 62],
    ["error", "tracking could not look for work", "connection refused"],
  ]);
});

test("a failure whose end reads better in words of its own says them (the public API's stale answers)", async () => {
  const logged = await captureLog(async () => {
    const failure = new RepeatedFailure(
      "serving its last good answers: the database does not answer",
      {},
      "answers from the database again",
    );
    failure.failed(new Error("connection refused"));
    failure.succeeded();
  });
  expect(logged).toContain('"msg":"answers from the database again"');
  expect(logged).not.toContain("does not answer: works again");
});
