// The rules a client id document URL and its address must meet before Spyglass fetches it.
import { describe, expect, test } from "bun:test";
import { addressKind, isClientDocumentUrl, publicOnlyLookup } from "../../src/oauth/client-metadata";

describe("client id document URLs", () => {
  test("an https URL with a path is one; without a path, with dot segments, credentials or a fragment it is not", () => {
    expect(isClientDocumentUrl("https://claude.ai/oauth/mcp-oauth-client-metadata")).toBe(true);
    for (const id of [
      "http://app.example/client.json",
      "https://app.example",
      "https://app.example/",
      "https://app.example/a/../client.json",
      "https://app.example/./client.json",
      "https://user:pw@app.example/client.json",
      "https://app.example/client.json#x",
      "sgo_client_abc",
    ]) {
      expect({ id, ok: isClientDocumentUrl(id) }).toEqual({ id, ok: false });
    }
  });
});

describe("document host addresses", () => {
  test("only public unicast addresses are public; loopback is told apart for the test mode", () => {
    expect(addressKind("93.184.216.34")).toBe("public");
    expect(addressKind("2606:2800:220:1:248:1893:25c8:1946")).toBe("public");
    for (const address of ["127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1"]) expect(addressKind(address)).toBe("loopback");
    for (const address of [
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "fc00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "224.0.0.1",
      "not an address",
    ]) {
      expect({ address, kind: addressKind(address) }).toEqual({ address, kind: "private" });
    }
  });
});

describe("the connection's own lookup", () => {
  const resolve = (hostname: string, allowLoopback: boolean) =>
    new Promise<string>((done) =>
      publicOnlyLookup(allowLoopback)(hostname, { all: true }, (error, addresses) =>
        done(error ? `refused: ${error.message}` : JSON.stringify(addresses)),
      ),
    );

  test("a name that resolves to loopback is refused when the connection is made, and allowed only in the test mode", async () => {
    expect(await resolve("localhost", false)).toContain("refused: the host localhost has a private or loopback address");
    expect(await resolve("localhost", true)).toMatch(/^\[\{"address":"(127\.0\.0\.1|::1)"/);
  });
});
