// Links to pages outside Spyglass whose URL comes from elsewhere (a provider's source list, an AI
// answer): only http(s) URLs become links, anything else (javascript:, data:) is shown as text. The
// page's CSP would stop a script URL from running; this keeps such a URL from being a link at all.
import { type ComponentChildren } from "preact";

/** Whether `url` may be a link: an http(s) address. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** A link opening in a new tab, or its text alone when the URL is not a web address. */
export function WebLink({ url, class: className, children }: { url: string; class?: string; children: ComponentChildren }) {
  return isWebUrl(url) ? (
    <a class={className} href={url} rel="noopener noreferrer nofollow" target="_blank">
      {children}
    </a>
  ) : (
    <span class={className}>{children}</span>
  );
}
