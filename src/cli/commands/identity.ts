import { deriveIntentDigest, deriveOperationId } from '../../contracts/identity.ts';
import { parseFlags, required } from '../args.ts';
import type { CommandRun } from '../command.ts';
import { readWorkloadIdentity } from '../workload-file.ts';

/**
 * `dpone identity --workload FILE [--json]`: prints the workload's operation_id and intent_digest.
 * Reads only the file: its `identity:` and `intent:` maps and what the intent digest also covers
 * (source and target tables, `data:`); URLs, journal and execution may be absent. No journal,
 * target or network access (safe at DAG parse time).
 */
export const run: CommandRun = async (args, io) => {
  const { values } = parseFlags(args, { workload: { type: 'string' }, json: { type: 'boolean' } });
  const workload = await readWorkloadIdentity(required(values.workload, '--workload'), io.cwd);
  const ids = {
    schema: 'dpone.identity/v1',
    operation_id: deriveOperationId(workload.identity),
    intent_digest: deriveIntentDigest(workload.intent, workload.data),
  };
  io.stdout.write(
    values.json
      ? `${JSON.stringify(ids)}\n`
      : `operation_id: ${ids.operation_id}\nintent_digest: ${ids.intent_digest}\n`,
  );
  return 0;
};
