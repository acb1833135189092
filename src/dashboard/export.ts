// Every table of the dashboard as a CSV download (issue 15, part 8), through the catalogue like the
// session door: same guard, plan gate, validation and sentences, for a brand the account owns.
//   GET /api/brands/:brand_id/export/:tool.csv?<the tool's input fields>
// The export reads every page (at the tool's largest limit) and streams each page's rows as it gets
// them, so a list of any length is complete and the server holds one page at a time. An error before
// the first byte is the door's JSON answer; an error later ends the stream (a cut download, never a
// file that looks complete), logged with the request id.
import { Elysia } from "elysia";
import { sessionGuard } from "../accounts/guard";
import { type ToolCatalog, UnknownTool } from "../catalogue/registry";
import { type AppContext } from "../context";
import { Invalid, methodNotAllowed, NotFound } from "../errors";
import { requestId } from "../http/observability";
import { log } from "../log";
import { coerceQuery, columnsOf, csvRow, csvRowOf, exportFileName, listFieldOf, maxLimitOf } from "./csv";
import { principalFor } from "./routes";

/** Spreadsheet apps read a file as UTF-8 only when it starts with a byte-order mark. */
const BOM = "\uFEFF";

export function exportRoutes(ctx: AppContext, catalogue: ToolCatalog) {
  return new Elysia({ prefix: "/api/brands/:brand_id/export" })
    .all("/:file", methodNotAllowed("GET"))
    .use(sessionGuard(ctx))
    .get("/:file", async ({ account, params, request }) => {
      const principal = await principalFor(ctx, account, params.brand_id);
      if (!params.file.endsWith(".csv")) throw new NotFound("Exports are CSV: ask for <tool>.csv.", "not_found");
      const name = params.file.slice(0, -".csv".length);
      await catalogue.ready();
      const tool = catalogue.byName.get(name);
      if (!tool) throw new UnknownTool(name);
      const list = listFieldOf(tool.output);
      if (!tool.annotations.readOnlyHint || !list) {
        throw new Invalid(
          `${name} does not return a list, so it has no CSV export; export a tool that lists things, such as list_prompts.`,
          "not_a_list",
        );
      }
      const query = new URL(request.url).searchParams;
      if (query.has("limit") || query.has("cursor")) {
        throw new Invalid("limit and cursor: the export reads every page itself; leave them out of the address.", "invalid_input");
      }
      const filter = coerceQuery(tool.input, query);
      const limit = maxLimitOf(tool.input);
      const paged = limit !== null && "cursor" in tool.input.shape;
      const id = requestId(request);
      const page = (cursor: string | null) =>
        catalogue.call(ctx, principal, id, name, { ...filter, ...(limit !== null ? { limit } : {}), ...(cursor ? { cursor } : {}) });
      const nextOf = (value: Record<string, unknown>) => (paged && typeof value.next_cursor === "string" ? value.next_cursor : null);
      const columns = columnsOf(list.item);
      const rowsOf = (value: Record<string, unknown>) => (value[list.field] as unknown[]).map((item) => csvRowOf(item, columns)).join("");

      const first = await page(null);
      if (!first.ok) throw first.error;
      const encoder = new TextEncoder();
      let pending: string | null = BOM + csvRow(columns) + rowsOf(first.value);
      let cursor = nextOf(first.value);
      // highWaterMark 0: a page is read only when the client has taken the one before.
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (pending !== null) {
              controller.enqueue(encoder.encode(pending));
              pending = null;
            } else if (cursor !== null) {
              // Other requests first: a client that takes the pages as fast as they come would
              // otherwise have the pages read one after the other in one task (216,000 answers: ~2 s
              // during which nothing else was answered, /healthz included).
              await new Promise((resolve) => setImmediate(resolve));
              const next = await page(cursor);
              if (!next.ok) {
                log.error("export stopped", { request_id: id, tool: name, code: next.error.code, message: next.error.message });
                controller.error(next.error);
                return;
              }
              controller.enqueue(encoder.encode(rowsOf(next.value)));
              cursor = nextOf(next.value);
            }
            if (pending === null && cursor === null) controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${exportFileName(principal.brand.name, name, tool.input, filter)}"`,
          "cache-control": "no-store",
        },
      });
    });
}
