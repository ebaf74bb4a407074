import type { FaultKind } from '../scenario/scenario-schema.ts';
import type { FaultModule } from './fault.ts';

/**
 * The fault registry, keyed by kind, apart from the FaultModule interface (fault.ts) so that the
 * interface never imports its implementations. Each entry loads its module only when asked. To add
 * a kind: a module beside this file, a line here, a branch in the scenario schema.
 */
export const FAULTS: Readonly<{ [K in FaultKind]: () => Promise<FaultModule<K>> }> = {
  crash: async () => (await import('./crash-fault.ts')).crashFault,
  pause: async () => (await import('./pause-fault.ts')).pauseFault,
  race: async () => (await import('./race-fault.ts')).raceFault,
  'intent-conflict': async () => (await import('./intent-conflict-fault.ts')).intentConflictFault,
  'airflow-retry': async () => (await import('./airflow-retry-fault.ts')).airflowRetryFault,
  recovery: async () => (await import('./recovery-fault.ts')).recoveryFault,
  network: async () => (await import('./network-fault.ts')).networkFault,
  'lost-ack': async () => (await import('./network-fault.ts')).lostAckFault,
  'server-kill': async () => (await import('./server-fault.ts')).serverKillFault,
  'journal-loss': async () => (await import('./journal-loss-fault.ts')).journalLossFault,
  'fence-loss': async () => (await import('./fence-loss-fault.ts')).fenceLossFault,
  'airflow-live': async () => (await import('./airflow-live-fault.ts')).airflowLiveFault,
  stall: async () => (await import('./stall-fault.ts')).stallFault,
  'lost-commit': async () => (await import('./lost-commit-fault.ts')).lostCommitFault,
  'clock-skew': async () => (await import('./clock-skew-fault.ts')).clockSkewFault,
  statement: async () => (await import('./statement-fault.ts')).statementFault,
  reference: async () => (await import('./reference-fault.ts')).referenceFault,
  shadow: async () => (await import('./shadow-fault.ts')).shadowFault,
  'power-loss': async () => (await import('./power-loss-fault.ts')).powerLossFault,
  'full-disk': async () => (await import('./full-disk-fault.ts')).fullDiskFault,
  'journal-corruption': async () => (await import('./journal-corruption-fault.ts')).journalCorruptionFault,
  'read-only-disk': async () => (await import('./read-only-disk-fault.ts')).readOnlyDiskFault,
};

export async function faultModule(kind: FaultKind): Promise<FaultModule> {
  return (await FAULTS[kind]()) as unknown as FaultModule;
}
