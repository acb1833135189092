// Domain names as users type them ("https://www.Example.com/pricing") reduced to the bare host we
// store and match against ("example.com"). Shared by brands and competitors.
import { Invalid } from "../errors";
import { publicSuffixes } from "../public-suffixes";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Lowercases, drops scheme, credentials, port, path, query, a trailing dot and a leading `www.`,
 * converts internationalised names to punycode, and checks that the result is a hostname under a
 * known public suffix (not an IP address, not a bare suffix such as `co.uk`). Throws Invalid with a
 * sentence naming `field` otherwise.
 */
export function normalizeDomain(input: string, field = "domain"): string {
  const invalid = () =>
    new Invalid(`${field}: "${truncate(input)}" is not a domain name; give a host such as example.com.`, "invalid_domain");
  if (typeof input !== "string") throw invalid();
  let text = input.trim().toLowerCase();
  if (text === "" || text.length > 2048) throw invalid();
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/^\/\//, "");
  text = text.split(/[/?#]/, 1)[0] ?? "";
  text = text.slice(text.lastIndexOf("@") + 1);
  let host: string;
  try {
    // The WHATWG parser does IDNA (bücher.de → xn--bcher-kva.de) and strips the port.
    host = new URL(`http://${text}`).hostname;
  } catch {
    throw invalid();
  }
  host = host.replace(/\.$/, "").replace(/^www\./, "");
  if (host.length > 253 || !host.split(".").every((label) => LABEL.test(label))) throw invalid();
  const info = publicSuffixes().parse(host, { allowPrivateDomains: true });
  if (info.isIp || info.hostname !== host) throw invalid();
  if (host.includes(".") && !(info.isIcann || info.isPrivate)) {
    // A well-formed name whose ending is no public suffix (.example, .test, .local, .internal, a typo such as .comm).
    throw new Invalid(
      `${field}: "${truncate(input)}" does not end in a public domain ending (such as .com or .co.uk): AI answers cite sites on the public web; give a host such as example.com.`,
      "invalid_domain",
    );
  }
  if (info.domain === null) throw invalid();
  return host;
}

function truncate(value: unknown): string {
  const text = String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
