import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ContractName } from '../harness/evidence/contract-schemas.ts';
import { contractProblems } from '../harness/evidence/contract-schemas.ts';
import { dpone, exampleCopy } from '../src/cli/commands/example-workload.test-support.ts';

/** The rollout modes' outputs and the deployment policy file against their published schemas. */
function conforms(name: ContractName, value: unknown): void {
  expect(contractProblems(name, value), `${name}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
}

const ENV = { DPONE_POLICY: '', DPONE_DEPLOYMENT_POLICY: '' };

describe('rollout outputs conform to their schemas', () => {
  it('legacy, shadow and unmanaged run results, the shadow report, the policy file and exit 17', async () => {
    const example = exampleCopy();
    const policyFile = join(example.dir, 'dpone-deployment.yaml');
    const run = () =>
      dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir, env: ENV });

    const unmanaged = await run();
    conforms('run', JSON.parse(unmanaged.stdout));

    writeFileSync(
      policyFile,
      'schema: dpone.deployment-policy/v1\ndeployment: prod\ndefault: legacy\nroutes:\n  sqlite: shadow\nworkloads:\n  other: enforced\nshadow:\n  timeout_ms: 500\n',
    );
    conforms('deployment-policy', parse(readFileSync(policyFile, 'utf8')));
    for (const _ of [1, 2]) conforms('run', JSON.parse((await run()).stdout));
    writeFileSync(policyFile, 'deployment: prod\n');
    conforms('run', JSON.parse((await run()).stdout));
    expect(contractProblems('deployment-policy', { deployment: 'x', default: 'sometimes' })).not.toEqual([]);

    const report = await dpone(['shadow', 'report', '--workload', example.workload, '--json'], {
      cwd: example.dir,
    });
    conforms('shadow-report', JSON.parse(report.stdout));

    writeFileSync(policyFile, 'deployment: prod\ndefault: enforced\n');
    const refused = await run();
    expect(refused.exitCode).toBe(17);
    conforms('error', JSON.parse(refused.stderr.trim()));
  });
});
