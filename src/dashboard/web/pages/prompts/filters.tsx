// The list's selection (search, tag, archived), kept in the URL so a reload or a shared link opens
// the same list, and the form that sets it.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FilterFold } from "../../components/filters";
import { Button } from "../../components/ui";
import { type Tag } from "./shared";

export interface Filters {
  query: string;
  tag: string;
  archived: boolean;
}

export function useFilters(): [Filters, (next: Partial<Filters>) => void] {
  const { query, path, route } = useLocation();
  const filters = { query: query.query ?? "", tag: query.tag ?? "", archived: query.archived === "1" };
  const set = (next: Partial<Filters>) => {
    const merged = { ...filters, ...next };
    const params = new URLSearchParams();
    if (merged.query.trim()) params.set("query", merged.query.trim());
    if (merged.tag) params.set("tag", merged.tag);
    if (merged.archived) params.set("archived", "1");
    const search = params.toString();
    route(search ? `${path}?${search}` : path);
  };
  return [filters, set];
}

export function Filter({ filters, setFilters, tags }: { filters: Filters; setFilters: (f: Partial<Filters>) => void; tags: Tag[] }) {
  const [query, setQuery] = useState(filters.query);
  const search = (event: Event) => {
    event.preventDefault();
    setFilters({ query });
  };
  const summary = [
    filters.query ? `“${filters.query}”` : "Every prompt",
    filters.tag || "All tags",
    filters.archived ? "Archived shown" : "Tracked only",
  ];
  return (
    <form onSubmit={search} class="filters" aria-label="Filter prompts">
      <FilterFold summary={summary}>
        <div class="field">
          <label for="prompt-search">Search</label>
          <input id="prompt-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        <Button type="submit">Search</Button>
        <div class="field">
          <label for="prompt-tag">Tag</label>
          <select id="prompt-tag" value={filters.tag} onChange={(e) => setFilters({ tag: e.currentTarget.value })}>
            <option value="">All tags</option>
            {filters.tag && !tags.some((t) => t.name === filters.tag) && <option value={filters.tag}>{filters.tag}</option>}
            {tags.map((t) => (
              <option key={t.id} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <label class="check">
          <input type="checkbox" checked={filters.archived} onChange={(e) => setFilters({ archived: e.currentTarget.checked })} />
          Show archived
        </label>
      </FilterFold>
    </form>
  );
}
