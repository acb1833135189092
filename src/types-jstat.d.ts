// jstat ships no types; only the Student t quantile is used (analytics/stats.ts).
declare module "jstat" {
  export const jStat: { studentt: { inv(p: number, dof: number): number } };
}
