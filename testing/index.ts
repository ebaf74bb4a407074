/**
 * `dpone-cert/testing`: the connector kit. What a connector author runs in their own vitest to
 * check a connector before certifying it, and the types of the harness parts a plug-in exports
 * so that `dpone certify run` can certify it (docs/connector-authoring.md).
 *
 * This folder is the testing module: the conformance suites (they import vitest) live here and
 * nowhere in src/ or harness/; production code never imports it (test/dependency-direction.test.ts).
 */

// The fence contract and its atomicity, against a live target (one test per check, or the checks as data).
export type {
  FenceCheck,
  FenceCheckResult,
  FenceConformanceOptions,
  FenceFactory,
  FenceFactoryOptions,
  FenceUnderTest,
} from './fence-conformance.ts';
export {
  ATOMICITY_CHECKS,
  CONFORMANCE_COLUMNS,
  CONFORMANCE_ROWS,
  FENCE_CHECKS,
  KIT_CHECKS,
  checkFenceContract,
  describeFenceConformance,
  fenceRef,
} from './fence-conformance.ts';

// The journal port's contract (docs/journal-conformance.md).
export type {
  ConformanceOptions as JournalConformanceOptions,
  JournalFactory,
  JournalUnderTest,
} from './journal-conformance.ts';
export { describeJournalConformance } from './journal-conformance.ts';

// A certification run of a plug-in route from a test, and the evidence it wrote.
export type { CertifyRunOptions, CertifyRunResult, ConnectorCopyOptions } from './certify-run.ts';
export { certifyRun, writeConnectorCopy } from './certify-run.ts';
export type { CellEvidence, CheckRecord, Evidence } from '../harness/evidence/evidence-types.ts';

// Harness parts a plug-in exports as `harness`.
export type {
  CellTable,
  PluginHarness,
  PluginRouteDeclaration,
  PrepareOptions,
  PreparedTarget,
  TargetFenceOperations,
  TargetPart,
  TargetRows,
  TargetServerAddress,
  TargetServerControl,
} from '../harness/routes/target-part.ts';
export type { CellScalar } from '../harness/checkers/target-snapshot.ts';
export type { FenceLocationReading, FenceReading } from '../harness/evidence/evidence-types.ts';
