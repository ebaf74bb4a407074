/**
 * The public surface of `dpone-cert` for connector authors (named exports only). A connector
 * plug-in builds on these and nothing else; the test kit is `dpone-cert/testing`.
 */

// The plug-in contract.
export type {
  ConnectorEndpoint,
  ConnectorPlugin,
  FenceRaiser,
  FenceReader,
  HostContext,
  JournalEngine,
  JournalOpenOptions,
  LeftoverJSON,
  Leftovers,
  PluginSource,
  PluginTarget,
  RecoveryContext,
  SourceOpenContext,
  TargetOpenContext,
  WorkloadRules,
} from './ports/connector-plugin.ts';
export { CONNECTOR_PLUGIN_API, defineConnector, pluginConnectorVersion } from './ports/connector-plugin.ts';

// The ports a connector implements.
export type {
  CellValue,
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  FenceStatus,
  LoadStrategy,
  MutationReceipt,
  MutationRequest,
  PrepareFenceMode,
  Row,
  RowChunk,
  RowStream,
  SourceConnector,
  SourceReadRequest,
  TargetConnector,
} from './ports/connector.ts';
export type { FaultPoints } from './ports/fault-points.ts';
export { NO_FAULTS } from './ports/fault-points.ts';
export type { FaultPointName } from './contracts/fault-point-names.ts';
export { StatementPoints, isStatementPoint, statementPoint } from './ports/statement-points.ts';
export { DEFAULT_CHUNK_ROWS, chunked, collectRows, rowStream, rowStreamOf } from './ports/row-stream.ts';
export type { TargetCommitJournalPort } from './ports/journal.ts';
export type { UnsafeVariant } from './ports/unsafe-variants.ts';
// The whole catalogue: the shared flaws and the built-in engines' own (src/cli/unsafe-catalogue.ts).
export { UNSAFE_VARIANTS, fenceContractVariantsFor, unsafeVariantsFor } from './cli/unsafe-catalogue.ts';

// Errors: one class, stable codes.
export type { ErrorCode, SafeErrorFields } from './contracts/errors.ts';
export { DponeError, ERROR_CODES, EXIT_CODES, invalidInput, isDponeError } from './contracts/errors.ts';

// Identity (docs/identity.md).
export { deriveIntentDigest, deriveOperationId, intentFieldDigests } from './contracts/identity.ts';
export type { IntentData } from './contracts/identity.ts';
export { intentDataOf } from './contracts/workload.ts';

// The transactional-marker kernel: a transactional database supplies a dialect, the protocol is here.
export type {
  FenceParams,
  MarkerDialect,
  MutationTx,
  SqlResult,
  SqlRunner,
} from './adapters/connectors/marker-fence/marker-dialect.ts';
export type { FenceSql, FenceSqlStyle } from './adapters/connectors/marker-fence/marker-sql.ts';
export {
  FENCE_COLUMNS,
  fenceSql,
  onConflictStyle,
  positional,
  usedParameters,
} from './adapters/connectors/marker-fence/marker-sql.ts';
export { FENCE_TABLE } from './adapters/connectors/marker-fence/marker-fence.ts';
export type { MarkerTargetOptions } from './adapters/connectors/marker-fence/marker-target.ts';
export { MarkerTarget } from './adapters/connectors/marker-fence/marker-target.ts';
export { unsafeMarkerTarget } from './adapters/connectors/marker-fence/marker-unsafe-target.ts';
// Capability none: the same dialect's plain writes, no fence (a plug-in's `openPlain`).
export { NO_FENCE_LOCATION, PlainTarget } from './adapters/connectors/marker-fence/plain-target.ts';
