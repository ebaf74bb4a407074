import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { Reporter } from './reporter.ts';
import type { ReportGate } from './report-gate.ts';

/** Renders one report of an evidence as text; with a failed integrity check it carries it at its top. */
export type RenderReport = (evidence: Evidence, integrity?: Integrity, gate?: ReportGate | null) => string;

/** Writes one rendered report into DIR (created when missing); resolves to the file written. */
export type WriteReport = (
  evidence: Evidence,
  dir: string,
  integrity?: Integrity,
  gate?: ReportGate | null,
) => Promise<string>;

/** The writer of a report that is one file of the run's folder: DIR/fileName holds render's text. */
export function reportFileWriter(fileName: string, render: RenderReport): WriteReport {
  return async (evidence, dir, integrity, gate = null) => {
    await mkdir(dir, { recursive: true });
    const file = join(dir, fileName);
    await writeFile(file, render(evidence, integrity, gate));
    return file;
  };
}

/** A reporter that only writes its file at the run's end (the run's integrity is whole then). */
export function fileReporter(name: string, write: WriteReport): Reporter {
  return {
    name,
    onRunEnd: async (evidence, dir, gate) => void (await write(evidence, dir, undefined, gate)),
  };
}
