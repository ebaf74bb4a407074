import type { CommandTable } from '../../src/cli/command.ts';
import { routeIdOf } from '../../src/contracts/route-id.ts';
import { BUILT_IN_CONNECTORS, runtimeRouteIds } from '../../src/cli/engine-table.ts';
import { ROUTE_ALIASES } from '../../src/cli/route-names.ts';

/**
 * The help's route examples, from the engine table: the embedded engine's route (the default: its
 * journal is a file), another alias, and a route from the embedded source into a server target.
 */
const EMBEDDED = Object.keys(BUILT_IN_CONNECTORS).find(
  (name) => BUILT_IN_CONNECTORS[name]!.journal?.kind === 'file',
)!;
const OTHER_ALIAS = Object.keys(ROUTE_ALIASES).find((alias) => alias !== EMBEDDED)!;
const COMPOSED = runtimeRouteIds()
  .sort()
  .find((id) => id.startsWith(`${EMBEDDED}-to-`) && id !== routeIdOf(EMBEDDED, EMBEDDED))!;

/** The certification commands (and `doctor`), plugged into the `dpone` CLI by bin/dpone.js. */
export const CERTIFY_COMMANDS: CommandTable = {
  doctor: {
    summary: 'say what this machine has and lacks for each route and provider, and how to install it',
    load: async () => (await import('./doctor.ts')).run,
    help: { flags: { json: 'print JSON' }, example: 'dpone doctor' },
  },
  'certify run': {
    summary:
      'run the certification suite (default: scenarios/*.yaml on the embedded route) and write evidence',
    load: async () => (await import('./certify-run.ts')).run,
    help: {
      flags: {
        route: `the route (default ${EMBEDDED}); e.g. ${OTHER_ALIAS}, ${COMPOSED}`,
        suite: 'default (what npm run certify runs) or full (the gating suite)',
        scenario: 'scenario FILE or GLOB instead of a suite',
        seed: 'the seed every random choice derives from (default 42)',
        out: 'output folder (default reports/<run-id>/)',
        provider: 'where the servers come from: embedded, local, docker, external',
        shard: 'run shard I/N of the cells',
        concurrency: 'cells in flight at once',
        reporter: 'progress, html, markdown, junit (default all)',
        connector: 'a connector plug-in module',
        'every-variant-cell': 'also run variant cells once their variant is caught',
        gate: 'gate the evidence and write the certification record',
        sign: 'sign (the record with --gate, else the evidence)',
        key: 'PEM private key to sign with',
        keyless: 'sign keyless through Sigstore (CI)',
      },
      example: `dpone certify run --route ${EMBEDDED} --suite full --gate`,
    },
  },
  'certify replay': {
    summary: 're-run one cell of an evidence file with the same seed and faults and print its verdict',
    load: async () => (await import('./certify-replay.ts')).run,
    help: {
      args: 'CELL_ID',
      flags: { evidence: 'the evidence file (default reports/latest/evidence.json)', out: 'output folder' },
      example: "dpone certify replay 'race/8' --evidence reports/latest/evidence.json",
    },
  },
  'certify verify': {
    summary: 'recompute an evidence file’s digest and re-run its checkers (exit 1 if anything differs)',
    load: async () => (await import('./certify-verify.ts')).run,
    help: {
      args: 'FILE',
      flags: { json: 'print JSON' },
      example: 'dpone certify verify reports/latest/evidence.json',
    },
  },
  'certify gate': {
    summary:
      'exit 0 only if the evidence passes every mandatory acceptance item; write an unsigned review-only record',
    load: async () => (await import('./certify-gate.ts')).run,
    help: {
      flags: {
        route: 'the route to gate',
        evidence: 'the evidence file',
        out: 'where the unsigned review record goes (default: beside the evidence)',
        json: 'print JSON',
        connector: 'a connector plug-in module',
      },
      example: `dpone certify gate --route ${EMBEDDED} --evidence reports/latest/evidence.json`,
    },
  },
  'certify explain': {
    summary: 'show what a certification record binds and whether this runtime would trust it (offline)',
    load: async () => (await import('./certify-explain.ts')).run,
    help: {
      args: 'RECORD',
      example: 'dpone certify explain reports/latest/certification.review.intoto.json',
    },
  },
  'certify merge': {
    summary: 'combine shard evidence files into one that verifies as if run whole (--out DIR)',
    load: async () => (await import('./certify-merge.ts')).run,
    help: {
      args: 'FILE…',
      flags: { out: 'the merged evidence’s folder', gate: 'gate the merge', sign: 'sign it' },
      example: 'dpone certify merge shard-1/evidence.json shard-2/evidence.json --out merged',
    },
  },
  'certify report': {
    summary: 're-render index.html, summary.md and junit.xml from an evidence file',
    load: async () => (await import('./certify-report.ts')).run,
    help: {
      args: 'FILE',
      flags: { out: 'output folder (default: beside the evidence)' },
      example: 'dpone certify report reports/latest/evidence.json',
    },
  },
};
