// The executable starts with JavaScriptCore's tier-up thresholds raised (build/compile.ts: jitPolicy):
// the code a start runs once (migrations, building the app, the warm-up's imports) stays in the
// interpreter longer instead of being compiled by the JIT's threads, which competed with the serving
// thread for the CPU, and whose code stayed in memory. Each process puts the usual thresholds back
// as soon as it does its real work: `serve` once it has warmed up, every other command (and the
// reader process) at once.
//
// Measured (scratch, the binary on an empty data directory, 3 starts each): idle RSS 10 s after start
// 98 → 94 MiB (89.7 → 85.5 with the bytecode laid out by build/bytecode-profile.ts); spawn → first
// /healthz 93 → 81 ms (median of 7); the steady door (tools/list) unchanged.

/** The thresholds' multiplier the executable starts with (Bun's `compile.jitPolicy`). */
export const START_JIT_POLICY = 10;

/** JavaScriptCore's usual thresholds, from now on. */
export function jitAtUsualThresholds(): void {
  Bun.unsafe.setJITPolicy(1);
}
