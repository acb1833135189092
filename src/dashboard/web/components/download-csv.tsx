// A table's "Download CSV" link onto the export route (src/dashboard/export.ts): the same tool and
// filter as the table on screen, every page of it, in one file named after the filter.
import { type ToolInput, type ToolName } from "../../../catalogue/types";

/** The export's address: the input's fields as query parameters (the export sets limit and cursor itself). */
export function exportPath<N extends ToolName>(brandId: string, tool: N, input: ToolInput<N> | Record<string, never> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (value === undefined || value === null || key === "limit" || key === "cursor" || typeof value === "object") continue;
    query.set(key, String(value));
  }
  const search = query.toString();
  return `/api/brands/${encodeURIComponent(brandId)}/export/${tool}.csv${search ? `?${search}` : ""}`;
}

/** `label` says what is downloaded, in the plural ("prompts"): the link reads "Download the prompts as CSV". */
export function DownloadCsv<N extends ToolName>({
  brandId,
  tool,
  input,
  label,
}: {
  brandId: string;
  tool: N;
  input?: ToolInput<N>;
  label: string;
}) {
  return (
    <a class="btn btn-secondary" href={exportPath(brandId, tool, input)} download>
      Download<span class="offscreen"> the {label} as</span> CSV
    </a>
  );
}
