// The one rendering error that is the author's to fix. Its own module: the thread that serves HTTP
// raises it from a worker's answer without loading the sanitizer (and so jsdom) itself.
import { Invalid } from "../errors";

/** The article body cannot be brought to a stable, safe form; the user has to change it. */
export class UnsafeHtmlError extends Invalid {
  constructor() {
    super("The article body contains HTML that cannot be made safe: remove the raw HTML (or simplify it) and try again.", "unsafe_html");
  }
}
