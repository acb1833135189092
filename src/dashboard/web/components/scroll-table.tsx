// A table that may scroll sideways inside its frame (.table-wrap). While it does (a phone, a long
// name), the frame is a named region that keyboard users can focus to scroll it (axe:
// scrollable-region-focusable); while it fits, it is a plain frame, one Tab stop fewer.
import { type ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

export function ScrollTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <ScrollFrame label={label} class="table-wrap">
      {children}
    </ScrollFrame>
  );
}

/** The same frame around anything that may scroll sideways (a code block's lines), with its own class. */
export function ScrollFrame({ label, class: className, children }: { label: string; class: string; children: ComponentChildren }) {
  const frame = useRef<HTMLElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <section ref={frame} class={className} tabIndex={scrolls ? 0 : undefined} aria-label={scrolls ? label : undefined}>
      {children}
    </section>
  );
}
