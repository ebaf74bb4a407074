/**
 * Verdicts that survive a busy machine (issue 35 item 7): certification runs, one after another,
 * beside CPU hogs that keep the machine at `--load` times its cores, and the count of cells that
 * came back UNKNOWN (the harness could not decide) in each. A benchmark, not a test: it prints the
 * counts and the load it saw, and decides nothing.
 *
 *   node bench/contention.ts                                # the full suite on sqlite, 3 runs, 3x load
 *   node bench/contention.ts --runs 1 --scenario scenarios/airflow/airflow-live.yaml
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Evidence } from '../harness/evidence/evidence-types.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    load: { type: 'string', default: '3' },
    route: { type: 'string', default: 'sqlite' },
    scenario: { type: 'string', multiple: true },
  },
});
const runs = Math.max(1, Number(values.runs));
const hogs = Math.round(availableParallelism() * Number(values.load));
const dpone = fileURLToPath(new URL('../bin/dpone.js', import.meta.url));
const selection = values.scenario?.length
  ? values.scenario.flatMap((file) => ['--scenario', file])
  : ['--suite', 'full'];

/** Busy loops, one process each, so the machine stays at `load` times its cores. */
class Hogs implements Disposable {
  readonly #children: ChildProcess[] = [];
  constructor(count: number) {
    for (let i = 0; i < count; i++)
      this.#children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
  [Symbol.dispose](): void {
    for (const child of this.#children) child.kill('SIGKILL');
  }
}

function certify(out: string): Promise<number | null> {
  const args = [dpone, 'certify', 'run', '--route', values.route, ...selection, '--out', out];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore', env: { ...process.env, CI: 'true' } });
    child.on('exit', (code) => done(code));
  });
}

console.log(
  `contention: ${runs} run(s) of ${selection.join(' ')} on ${values.route} beside ${hogs} CPU hogs (${values.load}x ${availableParallelism()} cores)`,
);
let unknown = 0;
{
  using _hogs = new Hogs(hogs);
  for (let run = 1; run <= runs; run++) {
    const out = await mkdtemp(join(tmpdir(), 'dpone-contention-'));
    const started = performance.now();
    const exit = await certify(out);
    const evidence = JSON.parse(await readFile(join(out, 'evidence.json'), 'utf8')) as Evidence;
    const route = evidence.cells.filter((cell) => cell.variant === null);
    const undecided = route.filter((cell) => cell.verdict === 'UNKNOWN');
    unknown += undecided.length;
    console.log(
      `run ${run}: exit ${exit}, ${route.length} route cells, ${undecided.length} UNKNOWN, ` +
        `${route.filter((cell) => cell.verdict === 'FAIL').length} FAIL, ${Math.round((performance.now() - started) / 1000)} s, ` +
        `load average ${loadavg()[0]!.toFixed(1)}${undecided.length ? `: ${undecided.map((cell) => cell.id).join(', ')}` : ''}`,
    );
    await rm(out, { recursive: true, force: true });
  }
}
console.log(
  `UNKNOWN cells in ${runs} run(s) under ${values.load}x load: ${unknown} (target 0: ${unknown === 0 ? 'met' : 'not met'})`,
);
