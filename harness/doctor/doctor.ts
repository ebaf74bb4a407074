import type { Component, ComponentId, ProbeContext } from './doctor-probes.ts';
import { probeComponents } from './doctor-probes.ts';

/** One way to use this project (a route on a provider, or the test suite) and what it needs. */
export interface Use {
  readonly route: string;
  readonly provider: string;
  /** The command it enables. */
  readonly command: string;
  readonly needs: readonly ComponentId[];
}

/**
 * The routes the README certifies, on each provider that can run them, plus the test suite and
 * Airflow. Every other composition (`dpone certify run --route SOURCE-to-TARGET`) needs the
 * servers of its two ends.
 */
export const USES: readonly Use[] = [
  { route: 'sqlite-to-sqlite', provider: 'embedded', command: 'npm run certify', needs: ['node', 'sqlite'] },
  {
    route: 'postgres-to-postgres',
    provider: 'local',
    command: 'dpone certify run --route postgres --provider local',
    // pgbouncer: the PostgreSQL suite's pooler lane (without it those cells are UNVERIFIED).
    needs: ['node', 'postgres', 'postgres-user', 'toxiproxy', 'pgbouncer'],
  },
  {
    route: 'postgres-to-postgres',
    provider: 'docker',
    command: 'dpone certify run --route postgres --provider docker',
    needs: ['node', 'docker'],
  },
  {
    route: 'postgres-to-postgres',
    provider: 'external',
    command: 'dpone certify run --route postgres --provider external',
    needs: ['node', 'external'],
  },
  {
    route: 'sqlite-to-clickhouse',
    provider: 'local',
    command: 'dpone certify run --route sqlite-to-clickhouse --provider local',
    needs: ['node', 'clickhouse', 'toxiproxy'],
  },
  {
    route: 'postgres-to-clickhouse',
    provider: 'local',
    command: 'dpone certify run --route postgres-to-clickhouse --provider local',
    needs: ['node', 'postgres', 'postgres-user', 'clickhouse', 'toxiproxy'],
  },
  {
    route: 'mssql-to-clickhouse',
    provider: 'docker',
    command: 'dpone certify run --route mssql-to-clickhouse --provider docker',
    needs: ['node', 'docker'],
  },
  {
    route: 'mssql',
    provider: 'url',
    command: 'MSSQL live tests in npm test (else UNVERIFIED)',
    needs: ['node', 'mssql'],
  },
  {
    route: 'npm test',
    provider: 'live tests',
    command: 'npm test (a missing server makes its live tests UNVERIFIED; with CI=true, FAIL)',
    needs: ['node', 'postgres', 'postgres-user', 'toxiproxy', 'clickhouse', 'chromium'],
  },
  {
    route: 'airflow',
    provider: 'venv',
    command: 'examples/airflow and Airflow cells',
    needs: ['airflow'],
  },
];

/** The use whose readiness decides doctor's exit code: what `npm run certify` runs. */
export const DEFAULT_USE = USES[0]!;

export interface UseReport extends Use {
  readonly ready: boolean;
  readonly missing: readonly ComponentId[];
}

/** `dpone doctor --json`: schema `dpone.doctor/v1`. */
export interface DoctorReport {
  readonly schema: 'dpone.doctor/v1';
  readonly uses: readonly UseReport[];
  readonly components: readonly Component[];
  /** True when the default route (sqlite on the embedded provider) can run here. */
  readonly default_ready: boolean;
}

export function assess(components: readonly Component[]): DoctorReport {
  const present = new Set(components.filter((c) => c.present).map((c) => c.id));
  const uses = USES.map((use) => {
    const missing = use.needs.filter((id) => !present.has(id));
    return { ...use, ready: missing.length === 0, missing };
  });
  return {
    schema: 'dpone.doctor/v1',
    uses,
    components,
    default_ready: uses[0]!.ready,
  };
}

export async function diagnose(context: ProbeContext): Promise<DoctorReport> {
  return assess(await probeComponents(context));
}

export function renderDoctor(report: DoctorReport): string {
  const names = new Map(report.components.map((c) => [c.id, c.name]));
  const lines = ['routes and providers'];
  for (const use of report.uses) {
    const state = use.ready ? 'ready  ' : 'MISSING';
    lines.push(`  ${state}  ${use.route.padEnd(22)} ${use.provider.padEnd(10)} ${use.command}`);
    if (!use.ready)
      lines.push(`           needs: ${use.missing.map((id) => names.get(id) ?? id).join('; ')}`);
  }
  lines.push('', 'components');
  const width = Math.max(...report.components.map((c) => c.name.length));
  for (const c of report.components) {
    lines.push(`  ${c.present ? 'ok     ' : 'MISSING'}  ${c.name.padEnd(width)}  ${c.detail}`);
    if (!c.present) lines.push(`  ${' '.repeat(9 + width)}  install: ${c.install}`);
  }
  const head = DEFAULT_USE;
  lines.push(
    '',
    report.default_ready
      ? `the default route (${head.route} on ${head.provider}) can run here: ${head.command}`
      : `the default route (${head.route} on ${head.provider}) cannot run here: install what is MISSING above`,
    '',
  );
  return lines.join('\n');
}
