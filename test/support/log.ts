// Reads what the server logs while `fn` runs: every line, the batched access-log lines included.
import { configureLog, flushLog, setLogWriter } from "../../src/log";

export async function captureLog(fn: () => Promise<void>, options: { settleMs?: number } = {}): Promise<string> {
  const chunks: string[] = [];
  configureLog({ quiet: false });
  setLogWriter((text) => void chunks.push(text));
  try {
    await fn();
    await Bun.sleep(options.settleMs ?? 10);
    flushLog();
  } finally {
    setLogWriter(null);
  }
  return chunks.join("");
}
