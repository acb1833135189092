// The address the login and registration throttles count: the peer's, or behind trusted reverse
// proxies (loopback, and trusted_proxies in spyglass.toml), the client's as they forwarded it.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Server } from "bun";
import { clientAddress, proxyMatcher } from "../../src/accounts/guard";
import { loadConfig } from "../../src/config";

/** A request as Bun hands it over from `peer`, with the X-Forwarded-For it carried. */
function from(peer: string, forwardedFor?: string): [Request, Server<unknown>] {
  const request = new Request("http://spyglass.test/api/auth/login", {
    method: "POST",
    headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
  });
  return [request, { requestIP: () => ({ address: peer, family: peer.includes(":") ? "IPv6" : "IPv4", port: 40000 }) } as never];
}

describe("the throttled address", () => {
  test("a proxy on another host (a Docker network, the README's nginx pair) is trusted only when listed", () => {
    const listed = proxyMatcher(["10.0.0.0/24", "192.0.2.7"]);
    expect(clientAddress(...from("10.0.0.5", "203.0.113.9"), listed)).toBe("203.0.113.9");
    expect(clientAddress(...from("192.0.2.7", "203.0.113.9"), listed)).toBe("203.0.113.9");
    expect(clientAddress(...from("::ffff:10.0.0.5", "203.0.113.9"), listed)).toBe("203.0.113.9");
    // Not listed: its own address, whatever it forwards (every user behind it shared one throttle before).
    expect(clientAddress(...from("10.0.0.5", "203.0.113.9"))).toBe("10.0.0.5");
    expect(clientAddress(...from("10.0.1.5", "203.0.113.9"), listed)).toBe("10.0.1.5");
  });

  test("loopback is always trusted; a chain of trusted proxies is walked back to the first hop that is not", () => {
    const listed = proxyMatcher(["10.0.0.0/24"]);
    expect(clientAddress(...from("127.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    expect(clientAddress(...from("::1", "203.0.113.9"))).toBe("203.0.113.9");
    expect(clientAddress(...from("127.0.0.1", "203.0.113.9, 10.0.0.8"), listed)).toBe("203.0.113.9");
  });

  test("a client cannot choose its address: what it wrote comes before the trusted hops", () => {
    const listed = proxyMatcher(["10.0.0.0/24"]);
    // The client sent "X-Forwarded-For: 1.2.3.4"; the proxy appended the client's real address.
    expect(clientAddress(...from("10.0.0.5", "1.2.3.4, 198.51.100.20"), listed)).toBe("198.51.100.20");
    // Straight to the server, its header is not believed at all.
    expect(clientAddress(...from("198.51.100.20", "1.2.3.4"), listed)).toBe("198.51.100.20");
    // A trusted proxy that forwarded nothing: its own address.
    expect(clientAddress(...from("10.0.0.5"), listed)).toBe("10.0.0.5");
  });
});

describe("trusted_proxies in spyglass.toml", () => {
  const load = (toml: string) => {
    const dir = mkdtempSync(join(tmpdir(), "spyglass-proxies-"));
    writeFileSync(join(dir, "spyglass.toml"), toml);
    return loadConfig({ flags: { data: dir }, env: {} });
  };

  test("takes addresses and CIDR ranges, and names an entry that is neither", () => {
    expect(load(`trusted_proxies = ["10.0.0.5", "172.16.0.0/12", "fd00::/8"]`).trustedProxies).toEqual([
      "10.0.0.5",
      "172.16.0.0/12",
      "fd00::/8",
    ]);
    expect(load("").trustedProxies).toEqual([]);
    expect(() => load(`trusted_proxies = ["10.0.0.5", "proxy.internal"]`)).toThrow(
      'trusted_proxies[1]: must be an IP address or a CIDR range, such as "10.0.0.5" or "172.16.0.0/12"',
    );
  });
});
