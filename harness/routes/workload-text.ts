/**
 * A cell's workload file as its workers read it. It is written as JSON, which is YAML too (the file
 * keeps its `.yaml` name and means the same): `dpone run` reads a JSON workload without loading the
 * YAML library, which is most of a worker's start, and a suite starts thousands of workers. The
 * YAML reader still runs wherever a workload is refused (for `file:line:column`) and on the sealed
 * intent-conflict attempt's workload (part-seal.ts), which stays YAML.
 */
export function workloadText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
