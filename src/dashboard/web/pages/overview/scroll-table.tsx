// A table that may scroll sideways inside its frame (.table-wrap): the frame is a named region
// that keyboard users can focus to scroll it (axe: scrollable-region-focusable).
import { type ComponentChildren } from "preact";

export function ScrollTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled
    <section class="table-wrap" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
