// A tag as people see it everywhere: its name as text, in the page's own colours, with a dot of the
// tag's colour beside it (so the text keeps its contrast whatever colour the tag has). A name too long
// for the chip is cut with an ellipsis on screen (whole in its title, and for screen readers).
export function TagChip({ name, color }: { name: string; color: string | null }) {
  return (
    <span class="tag-chip" title={name}>
      <span class="tag-dot" aria-hidden="true" style={color ? { background: color } : undefined} />
      <span class="tag-name">{name}</span>
    </span>
  );
}
