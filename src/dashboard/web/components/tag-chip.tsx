// A tag as people see it everywhere: its name as text, in the page's own colours, with a dot of the
// tag's colour beside it (so the text keeps its contrast whatever colour the tag has).
export function TagChip({ name, color }: { name: string; color: string | null }) {
  return (
    <span class="tag-chip">
      <span class="tag-dot" aria-hidden="true" style={color ? { background: color } : undefined} />
      {name}
    </span>
  );
}
