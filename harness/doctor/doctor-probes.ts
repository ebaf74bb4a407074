import { accessSync, constants } from 'node:fs';
import { probeDockerEngine } from '../env/docker/docker-engine-probe.ts';
import { EXTERNAL_ENV } from '../env/external/external-provider.ts';
import { firstLine } from '../env/first-line.ts';
import { findToxiproxyServer } from '../env/local/local-binaries.ts';
import type { ComponentId } from '../env/install-hints.ts';
import { ENGINE_COMPONENTS, ENGINE_SERVICES, INSTALL } from '../routes/engine-services.ts';
import { probeAirflow } from './airflow-probe.ts';

export type { ComponentId };

/** One thing a route, a provider or the test suite needs, as found on this machine. */
export interface Component {
  readonly id: ComponentId;
  readonly name: string;
  readonly present: boolean;
  /** What was found (version, path) or why it is missing: safe text, no credentials. */
  readonly detail: string;
  /** The command that installs it here, or what to do when nothing here can install it. */
  readonly install: string;
}

export const MINIMUM_NODE = [22, 22] as const;
export const CHROMIUM = '/usr/bin/chromium';

export interface ProbeContext {
  readonly env: NodeJS.ProcessEnv;
  /** The running Node's version (`process.versions.node`); a parameter so tests can vary it. */
  readonly nodeVersion: string;
  readonly isRoot: boolean;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function component(
  id: ComponentId,
  name: string,
  present: boolean,
  detail: string,
  install: string,
): Component {
  return { id, name, present, detail, install };
}

export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

function nodeComponent(context: ProbeContext): Component {
  return component(
    'node',
    'Node.js >= 22.22',
    nodeSupported(context.nodeVersion),
    `v${context.nodeVersion} (${process.execPath})`,
    INSTALL.node,
  );
}

async function toxiproxy(context: ProbeContext): Promise<Component> {
  const server = findToxiproxyServer(context.env);
  const toxiVersion = server ? await firstLine(server, ['--version']) : null;
  return component(
    'toxiproxy',
    'Toxiproxy server',
    toxiVersion !== null,
    toxiVersion ? `${toxiVersion} (${server})` : 'not found ($(go env GOPATH)/bin/server, toxiproxy-server)',
    INSTALL.toxiproxy,
  );
}

/** Chromium, Docker, the external provider's variables and Airflow, each with its rank. */
async function otherTools(context: ProbeContext): Promise<(readonly [Component, number])[]> {
  const [chromium, docker, airflow] = await Promise.all([
    executable(CHROMIUM) ? firstLine(CHROMIUM, ['--version']) : Promise.resolve(null),
    probeDockerEngine(context.env, 1_500),
    probeAirflow(context.env),
  ]);
  const server = externalServer();
  const external = [...server.requiredEnv, EXTERNAL_ENV.toxiproxyUrl];
  const unset = external.filter((name) => !context.env[name]);
  return [
    [
      component(
        'chromium',
        'Chromium',
        chromium !== null,
        chromium ? `${chromium} (${CHROMIUM}), for the HTML report browser test` : `not found at ${CHROMIUM}`,
        INSTALL.chromium,
      ),
      60,
    ],
    [component('docker', 'Docker engine', docker === null, docker ?? 'answers /_ping', INSTALL.docker), 70],
    [
      component(
        'external',
        `your own ${server.label} + Toxiproxy`,
        unset.length === 0,
        unset.length === 0 ? 'all set' : `not set: ${unset.join(', ')}`,
        `export ${server.requiredEnv[0]}=${server.example} ${server.requiredEnv
          .slice(1)
          .map((name) => `${name}=…`)
          .join(' ')} ${EXTERNAL_ENV.toxiproxyUrl}=http://host:8474`,
      ),
      80,
    ],
    [component('airflow', 'Airflow venv', airflow.present, airflow.detail, airflow.install), 100],
  ];
}

/**
 * The server doctor's external-provider line is about: the first engine whose service entry gives
 * an example URL (ServiceEntry.doctor.externalExample), with its label and required variables.
 */
function externalServer(): { label: string; requiredEnv: readonly string[]; example: string } {
  const entry = Object.values(ENGINE_SERVICES).find((service) => service.doctor.externalExample);
  if (entry === undefined) throw new TypeError('no engine service gives doctor an external example URL');
  return {
    label: entry.label,
    requiredEnv: entry.external.requiredEnv,
    example: entry.doctor.externalExample!,
  };
}

/**
 * Each engine's components (its entry's probe: the engine inside Node, each server service), with
 * the install hint from its entry.
 */
async function engineTools(context: ProbeContext): Promise<(readonly [Component, number])[]> {
  const probeContext = { ...context, nodeSupported: nodeSupported(context.nodeVersion) };
  const probed = await Promise.all(ENGINE_COMPONENTS.map((engine) => engine.doctor.probe(probeContext)));
  return probed.flat().map(([found, rank]) => {
    const id = found.id;
    return [component(id, found.name, found.present, found.detail, INSTALL[id]!), rank] as const;
  });
}

/**
 * Probes everything at once; every probe has a timeout, so this takes seconds at most. Listed by
 * rank: Node first, each engine's components interleaved by the ranks their entries give (the
 * engine inside Node's right after Node) beside Toxiproxy, Chromium, Docker, the external provider
 * and Airflow.
 */
export async function probeComponents(context: ProbeContext): Promise<Component[]> {
  const [toxi, engines, others] = await Promise.all([
    toxiproxy(context),
    engineTools(context),
    otherTools(context),
  ]);
  const ranked: (readonly [Component, number])[] = [
    [nodeComponent(context), 10],
    [toxi, 40],
    ...engines,
    ...others,
  ];
  return ranked.sort((a, b) => a[1] - b[1]).map(([found]) => found);
}
