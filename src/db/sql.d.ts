// Migration files are imported as text (`with { type: "text" }`) and embedded in the binary.
declare module "*.sql" {
  const text: string;
  export default text;
}
