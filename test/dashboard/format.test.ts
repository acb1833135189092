// The overview's signed figures: the sign is the shown figure's (a review saw "−0.0 against the
// previous period" for a change that rounds to nothing).
import { describe, expect, test } from "bun:test";
import { points, signed } from "../../src/dashboard/web/pages/overview/format";

describe("signed figures", () => {
  test("a change that rounds to zero has no sign of its own", () => {
    expect(signed(-0.02, 1)).toBe("±0.0");
    expect(signed(0.04, 1)).toBe("±0.0");
    expect(points(-0.04)).toBe("±0.0 points");
  });

  test("others keep theirs", () => {
    expect(signed(-0.05, 1)).toBe("−0.1");
    expect(signed(1.26, 1)).toBe("+1.3");
    expect(points(3.2)).toBe("+3.2 points");
    expect(points(-1)).toBe("−1.0 points");
    expect(signed(null, 1)).toBe("");
  });
});
