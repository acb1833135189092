import { describe, expect, test } from "bun:test";
import { FailureWindow, LoginThrottle, throttleAddress } from "../../src/accounts/throttle";

const MINUTE = 60_000;

describe("login throttle memory", () => {
  test("entries idle for a whole window are dropped as new failures arrive", () => {
    const window = new FailureWindow({ maxFailures: 5, windowMs: 15 * MINUTE });
    for (let i = 0; i < 1000; i++) window.fail(`old-${i}`, 0);
    expect(window.size).toBe(1000);
    window.fail("new", 16 * MINUTE);
    expect(window.size).toBe(1);
  });

  test("a flood of distinct keys within the window stays under the cap", () => {
    const window = new FailureWindow({ maxFailures: 5, windowMs: 15 * MINUTE }, 500);
    for (let i = 0; i < 5000; i++) window.fail(`key-${i}`, i);
    expect(window.size).toBe(500);
  });

  test("100,000 failures from distinct addresses hold a bounded number of entries", () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 100_000; i++) throttle.begin(`user${i % 7}@example.com`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, i);
    expect(throttle.size).toBeLessThanOrEqual(2 * 20_000 + 7);
  });
});

describe("throttle addresses", () => {
  test("IPv6 addresses count by their /64, IPv4-mapped ones as IPv4, anything else cut to 64 characters", () => {
    expect(throttleAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(throttleAddress("2001:0db8:0001:0002:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(throttleAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(throttleAddress("::1")).toBe("0:0:0:0::/64");
    expect(throttleAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(throttleAddress("192.0.2.1")).toBe("192.0.2.1");
    expect(throttleAddress("y".repeat(10_000))).toHaveLength(64);
  });
});

describe("login throttle rules", () => {
  test("failures spread over many addresses lock the account for new addresses, not for one the owner used before", () => {
    const throttle = new LoginThrottle();
    const owner = throttle.begin("owner@example.com", "198.51.100.1", 0);
    throttle.succeeded(owner.attempt);
    let now = 1_000;
    for (let address = 0; address < 20; address++) {
      for (let i = 0; i < 5; i++) expect(throttle.begin("owner@example.com", `203.0.113.${address}`, now++).wait).toBe(0);
    }
    expect(throttle.begin("owner@example.com", "192.0.2.200", now).wait).toBeGreaterThan(0);
    expect(throttle.begin("owner@example.com", "198.51.100.1", now).wait).toBe(0);
  });

  test("five failures lock the pair; the same address may still try another account", () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) expect(throttle.begin("a@example.com", "203.0.113.1", i).wait).toBe(0);
    expect(throttle.begin("a@example.com", "203.0.113.1", 10).wait).toBeGreaterThan(0);
    expect(throttle.begin("b@example.com", "203.0.113.1", 10).wait).toBe(0);
    expect(throttle.begin("a@example.com", "203.0.113.2", 10).wait).toBe(0);
  });
});
