// Where an OAuth redirect URI leads, as a person reads it: shared by the server's error page
// (src/oauth/clients.ts) and the dashboard's consent page, whose bundle imports nothing else of the
// server's.

/**
 * A web address's host (an international name in its ASCII form, as URL gives it, so a look-alike
 * letter shows), or the app of a private scheme; the URI itself when it does not parse.
 */
export function redirectDestination(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === "https:" || url.protocol === "http:" ? url.host : `the app that handles ${url.protocol}`;
  } catch {
    return uri;
  }
}
