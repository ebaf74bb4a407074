import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import { run as doctor } from '../harness/cli/doctor.ts';
import { run as gate } from '../harness/cli/certify-gate.ts';
import { run as verify } from '../harness/cli/certify-verify.ts';
import type { Evidence } from '../harness/evidence/evidence-types.ts';
import { runCertification } from '../harness/run.ts';
import type { ContractName } from '../harness/evidence/contract-schemas.ts';
import {
  CONTRACTS,
  SCHEMAS_DIR,
  contractFile,
  contractProblems,
} from '../harness/evidence/contract-schemas.ts';
import { capturedIo } from '../harness/gate/fixtures/captured-io.ts';
import { acceptanceCells, sealEvidence } from '../harness/gate/fixtures/certified-evidence.ts';
import { writeFixtureScenarios } from '../harness/gate/fixtures/fixture-plan.ts';
import { certificationStatement } from '../harness/gate/certification-record.ts';
import type { GateResult } from '../harness/gate/gate.ts';
import { provenance } from '../harness/evidence/provenance.ts';
import { builtInRouteCode } from '../src/cli/route-code.ts';
import { certificationFor, keyPair, writePolicy, writeSigned } from '../src/cli/fixtures/trusted-record.ts';
import { dpone, exampleCopy } from '../src/cli/commands/example-workload.test-support.ts';
import type { ExampleCopy } from '../src/cli/commands/example-workload.test-support.ts';
import { operationIn } from '../src/cli/commands/recovery-operation.test-support.ts';

/**
 * Every public JSON output, produced by the real command, conforms to its published schema
 * (schemas/<name>.v1.json). A change to an output that its schema does not describe fails here.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function conforms(name: ContractName, value: unknown): void {
  expect(contractProblems(name, value), `${name}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
}

function jsonLine(text: string): unknown {
  const lines = text.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

describe('the published schemas', () => {
  it('hold one schema per contract, each named by its $id, compiled strictly', () => {
    const files = readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.json'));
    expect(files.sort()).toEqual([...CONTRACTS.map(contractFile), 'common.v1.json'].sort());
    for (const file of files) {
      const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as Record<string, unknown>;
      expect(schema.$id).toBe(`https://dpone.example/schemas/${file}`);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof schema.title).toBe('string');
    }
    // Compiling happens on first use; a schema with an unknown keyword or a dangling $ref throws.
    expect(contractProblems('identity', {})).not.toEqual([]);
  });

  it('list exactly the error codes the runtime can raise', () => {
    const common = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'common.v1.json'), 'utf8')) as {
      $defs: { errorCode: { enum: string[] } };
    };
    expect([...common.$defs.errorCode.enum].sort()).toEqual(Object.values(ERROR_CODES).sort());
  });

  it('refuse what the outputs must not be: a missing field, an undocumented one, a bad value', () => {
    const op = `sha256:${'a'.repeat(64)}`;
    const ids = { schema: 'dpone.identity/v1', operation_id: op, intent_digest: op };
    expect(contractProblems('identity', ids)).toEqual([]);
    expect(contractProblems('identity', { ...ids, operation_id: undefined })).toEqual([
      "(root) must have required property 'operation_id'",
    ]);
    expect(contractProblems('identity', { ...ids, colour: 'blue' })).toEqual([
      '(root) must NOT have additional properties (colour)',
    ]);
    expect(contractProblems('identity', { ...ids, intent_digest: 'sha256:XYZ' })).toEqual([
      '/intent_digest must match pattern "^sha256:[0-9a-f]{64}$"',
    ]);
  });
});

describe('runtime outputs against their schemas', () => {
  let example: ExampleCopy;
  let xcom: string;
  beforeAll(() => {
    example = exampleCopy();
    xcom = join(example.dir, 'xcom.json');
  });

  it('identity --json', async () => {
    const result = await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir });
    expect(result.exitCode).toBe(0);
    conforms('identity', jsonLine(result.stdout));
  });

  it('run --json and its XCom: committed, then already-complete; inspect and plan on it', async () => {
    for (const status of ['committed', 'already-complete']) {
      const result = await dpone(['run', '--workload', example.workload, '--json', '--xcom', xcom], {
        cwd: example.dir,
      });
      expect(result.exitCode).toBe(0);
      const output = jsonLine(result.stdout) as { status: string; journal: unknown };
      expect(output.status).toBe(status);
      conforms('run', output);
      conforms('run', JSON.parse(readFileSync(xcom, 'utf8')));
    }
    const id = (
      jsonLine(
        (await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir })).stdout,
      ) as { operation_id: string }
    ).operation_id;
    for (const command of ['inspect', 'plan'] as const) {
      const result = await dpone(
        ['recovery', 'target-commit', command, '--operation-id', id, '--route', example.workload, '--json'],
        { cwd: example.dir },
      );
      expect(result.exitCode).toBe(0);
      conforms(`recovery-${command}`, jsonLine(result.stdout));
    }
  });

  it('a failed run: dpone.error/v1 on stderr and the failure XCom', async () => {
    // Another operation (another mapped partition) whose partition holds no rows: refused, exit 32.
    const empty = example.variant('empty.yaml', (text) =>
      text.replace("value: '2026-07-18'", "value: '1999-01-01'").replace('region=eu', 'region=none'),
    );
    const failure = join(example.dir, 'failure.json');
    const result = await dpone(['run', '--workload', empty, '--json', '--xcom', failure], {
      cwd: example.dir,
    });
    expect(result.exitCode).toBe(32);
    expect(result.stdout).toBe('');
    conforms('error', jsonLine(result.stderr));
    const document = JSON.parse(readFileSync(failure, 'utf8')) as { status: string };
    expect(document.status).toBe('failed');
    conforms('run', document);
  });

  it('recovery inspect, plan and apply --json on a COMMITTED_INCOMPLETE operation', async () => {
    const op = await operationIn('COMMITTED_INCOMPLETE');
    const base = ['--operation-id', op.operationId, '--route', op.workloadFile, '--json'];
    const inspect = await dpone(['recovery', 'target-commit', 'inspect', ...base], { cwd: op.dir });
    const view = jsonLine(inspect.stdout) as { entry: { version: number } };
    conforms('recovery-inspect', view);
    const plan = await dpone(['recovery', 'target-commit', 'plan', ...base], { cwd: op.dir });
    conforms('recovery-plan', jsonLine(plan.stdout));
    const applied = await dpone(
      [
        'recovery',
        'target-commit',
        'apply',
        ...base,
        '--action',
        'complete-state',
        '--expected-version',
        String(view.entry.version),
        '--reason',
        'schema test',
      ],
      { cwd: op.dir, env: { DPONE_PLATFORM_IDENTITY: 'platform:oncall@example.com' } },
    );
    expect(applied.exitCode).toBe(0);
    conforms('recovery-apply', jsonLine(applied.stdout));
  });

  it('doctor --json', async () => {
    const io = capturedIo(ROOT);
    await doctor(['--json'], { ...io, env: process.env });
    conforms('doctor', jsonLine(io.out()));
  });
});

describe('certification outputs against their schemas', () => {
  const dir = fileURLToPath(new URL(`../test-output/contract-schemas-${process.pid}/`, import.meta.url));
  afterAll(async () => (await import('node:fs/promises')).rm(dir, { recursive: true, force: true }));

  it('certify gate --json, the record statement, its key-signed bundle, a trust policy; certify verify --json', async () => {
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    // The gate plans again from the scenario files the evidence names, relative to its folder.
    await writeFixtureScenarios(dir);
    const evidence = sealEvidence(acceptanceCells());
    writeFileSync(join(dir, 'evidence.json'), JSON.stringify(evidence));
    const io = capturedIo(dir);
    // The synthetic fixture is never certifiable (not the shipped full suite): exit 1, no record.
    expect(await gate(['--route', 'sqlite', '--evidence', 'evidence.json', '--json'], io)).toBe(1);
    const output = jsonLine(io.out()) as GateResult & { certification: string | null };
    conforms('gate', output);
    expect(output.certification).toBeNull();
    // The record a passing gate would write, from the same lines (as certify run --gate builds it).
    const withCode = sealEvidence(acceptanceCells(), {
      environment: {
        ...evidence.environment,
        ...provenance(builtInRouteCode('sqlite')!, 'full', {}),
      },
    });
    const statement = certificationStatement(withCode, { ...output, passed: true }, new Date(), true);
    conforms('certification', statement);
    conforms('certification', certificationFor('sqlite'));
    const signer = keyPair('ec');
    writeSigned(join(dir, 'record.json'), certificationFor('sqlite'), signer.privatePem);
    conforms('certification-bundle', JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8')));
    writePolicy(
      dir,
      [{ name: 'release', publicPem: signer.publicPem, routes: ['sqlite', '*'] }],
      [{ record: `sha256:${'a'.repeat(64)}`, reason: 'test' }],
    );
    conforms('trust-policy', parse(readFileSync(join(dir, 'dpone-policy.yaml'), 'utf8')));
    const checked = capturedIo(dir);
    expect(await verify(['evidence.json', '--json'], checked)).toBe(0);
    conforms('verify', jsonLine(checked.out()));
  });
});

describe('evidence of a real certify run against dpone.evidence/v1', () => {
  it('cells of every record kind: crash, a caught variant, journal and fence loss, intent conflict, Airflow retries, race', async () => {
    const out = join(ROOT, `test-output/contract-evidence-${process.pid}`);
    try {
      const result = await runCertification({
        scenarioFiles: ['crash', 'journal-loss', 'intent-conflict', 'airflow-retry', 'race'].map((name) =>
          join(ROOT, 'scenarios', `${name}.yaml`),
        ),
        out,
        onlyCells: [
          'crash/d1/target.commit:after#1',
          'crash/d1/target.commit:after#1@no-fence',
          'journal-loss/drop/target.commit:after#1',
          'journal-loss/fork/cas:PREPARED->COMMITTING:after#1',
          'intent-conflict/after-complete',
          'airflow-retry/seed42-4',
          'race/2',
        ],
        concurrency: 2,
        reporters: [],
        cwd: ROOT,
        updateLatest: false,
      });
      const evidence = JSON.parse(readFileSync(join(out, 'evidence.json'), 'utf8')) as Evidence;
      expect(evidence.cells).toHaveLength(7);
      expect(evidence.cells.filter((cell) => cell.loss !== undefined)).toHaveLength(2);
      conforms('evidence', evidence);
      expect(result.exitCode).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('input files against their schemas', () => {
  it('the example workloads', () => {
    for (const file of ['examples/workload.yaml', 'examples/postgres/workload.yaml'])
      conforms('workload', parse(readFileSync(join(ROOT, file), 'utf8')));
  });

  it('every shipped scenario', () => {
    const folders = ['scenarios', 'scenarios/airflow', 'scenarios/large'];
    const files = folders.flatMap((folder) =>
      readdirSync(join(ROOT, folder))
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => join(ROOT, folder, name)),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) conforms('scenario', parse(readFileSync(file, 'utf8')));
  });
});
