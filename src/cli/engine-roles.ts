import { routeIdOf } from '../contracts/route-id.ts';
import type { ConnectorPlugin } from '../ports/connector-plugin.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';

/*
 * Which built-in engine plays which part in this build, read from the engine table by what each
 * registration declares, never by name: the embedded engine whose file journal is the runtime's
 * default, the first engine whose journal is a server's, the first whose name is a target alias.
 * Messages that give an engine as an example name these, so none names one itself.
 */

type Named = readonly [name: string, engine: ConnectorPlugin];

const engines: readonly Named[] = Object.entries(BUILT_IN_CONNECTORS);

function first(what: string, test: (engine: ConnectorPlugin) => boolean): Named {
  const found = engines.find(([, engine]) => test(engine));
  if (found === undefined) throw new TypeError(`no built-in engine is ${what}`);
  return found;
}

/** The engine whose file journal is the default (JournalEngine.defaultUrl): exactly one declares it. */
export function embeddedEngine(): Named {
  const found = engines.filter(([, engine]) => engine.journal?.defaultUrl !== undefined);
  if (found.length !== 1)
    throw new TypeError(
      `exactly one built-in engine must declare the default journal (found: ${found.map(([name]) => name).join(', ') || 'none'})`,
    );
  return found[0]!;
}

/** The first engine (in the table's order) whose journal is kept on a server. */
export function serverJournalEngine(): Named {
  return first('a server journal', (engine) => engine.journal?.kind === 'server');
}

/** The first engine whose name is a target alias (any source into it, the source URL says which). */
export function targetAliasEngine(): Named {
  return first('a target alias', (engine) => engine.naming?.alias === 'target');
}

/** How prose names an engine (EngineNaming.label), else its name. */
export function engineLabel([name, engine]: Named): string {
  return engine.naming?.label ?? name;
}

/** The journal a workload uses when no flag or `journal:` names one: the embedded engine's, in its state folder. */
export function defaultJournalUrl(stateDir: string): string {
  return embeddedEngine()[1].journal!.defaultUrl!(stateDir);
}

/** What a `--journal` flag takes, as help text says it: `a <embedded> file or a <server>:// URL`. */
export function journalFlagForms(): string {
  return `a ${engineLabel(embeddedEngine())} file or a ${serverJournalEngine()[0]}:// URL`;
}

/**
 * Two route ids a refusal gives as examples: the embedded engine into the first target-alias
 * engine, and the first server-journal engine into itself.
 */
export function exampleRouteIds(): readonly string[] {
  const server = serverJournalEngine()[0];
  return [routeIdOf(embeddedEngine()[0], targetAliasEngine()[0]), routeIdOf(server, server)];
}
