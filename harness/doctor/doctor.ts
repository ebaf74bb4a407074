import type { Component, ComponentId, ProbeContext } from './doctor-probes.ts';
import { probeComponents } from './doctor-probes.ts';
import { routeIdOf } from '../../src/contracts/route-id.ts';
import { ENVIRONMENT_PROVIDERS } from '../env/environment-registry.ts';
import { ENGINE_USES } from '../routes/engine-services.ts';
import { ROUTES } from '../routes/route-registry.ts';

/** One way to use this project (a route on a provider, or the test suite) and what it needs. */
export interface Use {
  readonly route: string;
  readonly provider: string;
  /** The command it enables. */
  readonly command: string;
  readonly needs: readonly ComponentId[];
}

/** What each provider needs of its own when a route has a server: its Toxiproxy, Docker, the user's servers. */
const PROVIDER_TOOLS: Readonly<Record<string, readonly ComponentId[]>> = {
  local: ['toxiproxy'],
  docker: ['docker'],
  external: ['external'],
};

type Engine = (typeof ENGINE_USES)[number];

const unique = (ids: readonly ComponentId[]): readonly ComponentId[] => [...new Set(ids)];

/** Node, each end's components on `provider`, then the provider's tools when an end is a server. */
function routeNeeds(ends: readonly Engine[], provider: string, extra: readonly ComponentId[] = []) {
  const tools = ends.some((end) => end.server) ? (PROVIDER_TOOLS[provider] ?? []) : [];
  return unique(['node', ...ends.flatMap((end) => end.uses.providers[provider] ?? []), ...tools, ...extra]);
}

/** Each engine's own route on each provider its entry lists (the engine inside Node's first). */
function ownRoutes(): Use[] {
  const engines = [...ENGINE_USES].sort((a, b) => Number(b.embedded) - Number(a.embedded));
  return engines.flatMap((engine) =>
    (engine.uses.ownRoute ?? []).map((own) => ({
      route: routeIdOf(engine.engine, engine.engine),
      provider: own.provider,
      command: own.command,
      needs: routeNeeds([engine], own.provider, own.needs),
    })),
  );
}

/**
 * Every route into a target that has no route of its own (a target only), from each source, on
 * the first provider (the registry's order) that runs both ends: a target only is certified in
 * these compositions alone.
 */
function composedRoutes(): Use[] {
  return ENGINE_USES.flatMap((source) =>
    ENGINE_USES.filter(
      (target) =>
        Object.hasOwn(ROUTES, routeIdOf(source.engine, target.engine)) &&
        !Object.hasOwn(ROUTES, routeIdOf(target.engine, target.engine)),
    ).flatMap((target) => {
      const provider = Object.keys(ENVIRONMENT_PROVIDERS).find(
        (name) => Object.hasOwn(source.uses.providers, name) && Object.hasOwn(target.uses.providers, name),
      );
      if (provider === undefined) return [];
      const route = routeIdOf(source.engine, target.engine);
      return [
        {
          route,
          provider,
          command: `dpone certify run --route ${route} --provider ${provider}`,
          needs: routeNeeds([source, target], provider),
        },
      ];
    }),
  );
}

/** The uses an engine's entry lists that are no route (its live tests), named by the engine. */
function lanes(): Use[] {
  return ENGINE_USES.flatMap((engine) =>
    (engine.uses.lanes ?? []).map((lane) => ({
      route: engine.engine,
      provider: lane.provider,
      command: lane.command,
      needs: unique(['node', ...lane.needs]),
    })),
  );
}

/** `npm test`: every server its live tests start on this machine (the local provider's), and Chromium. */
function testSuite(): Use {
  const local = ENGINE_USES.filter(
    (engine) => engine.server && Object.hasOwn(engine.uses.providers, 'local'),
  );
  return {
    route: 'npm test',
    provider: 'live tests',
    command: 'npm test (a missing server makes its live tests UNVERIFIED; with CI=true, FAIL)',
    needs: unique([...local.flatMap((engine) => routeNeeds([engine], 'local')), 'chromium']),
  };
}

/**
 * The uses derived from the engines' entries (routes/engine-services.ts ENGINE_USES): each
 * engine's own route on the providers it lists, the routes into a target only from each source,
 * each engine's other lanes, then the test suite and Airflow. Every other composition
 * (`dpone certify run --route SOURCE-to-TARGET`) needs what its two ends need.
 */
export const USES: readonly Use[] = [
  ...ownRoutes(),
  ...composedRoutes(),
  ...lanes(),
  testSuite(),
  {
    route: 'airflow',
    provider: 'venv',
    command: 'examples/airflow and Airflow cells',
    needs: ['airflow'],
  },
];

/**
 * The use whose readiness decides doctor's exit code: what `npm run certify` runs, the engine
 * inside Node's own route (listed first).
 */
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
  /** True when the default route (the engine inside Node, on the embedded provider) can run here. */
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
