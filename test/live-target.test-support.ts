import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TARGET_ENGINES, builtInConnector } from '../src/cli/engine-table.ts';
import type { FenceCapabilityKind } from '../src/ports/connector.ts';

/**
 * A built-in target's live test support, for a test in another engine's folder that needs a real
 * target without naming it (a source engine's values through `dpone run` into a server target).
 * An engine offers it as `fixtures/live-target.ts` in its folder (exporting `liveTarget`), found
 * through the engine table the way the harness finds `harness/engine.ts`.
 */
export interface LiveTarget {
  /** This machine cannot run the target's server (and this is not CI, where that fails instead). */
  readonly unverified: boolean;
  /** Registers beforeAll/afterAll for a throw-away server of the file; `label` prefixes its databases. */
  server(label: string): LiveTargetServer;
}

export interface LiveTargetServer {
  /** A fresh, empty database on the server: the workload's `target.url` for it. */
  freshUrl(): Promise<string>;
  /** The rows of `table` in the database of `url` (`columns`, ordered by the first), as text; null for NULL. */
  rows(url: string, table: string, columns: readonly string[]): Promise<(string | null)[][]>;
}

/** A built-in target engine with live test support and the fence capability `capability` asks. */
export async function liveTargetWith(
  capability: (kind: FenceCapabilityKind) => boolean,
): Promise<{ readonly engine: string; readonly target: LiveTarget }> {
  for (const [engine, target] of Object.entries(TARGET_ENGINES)) {
    const file = join(builtInConnector(engine)!.folder, 'fixtures', 'live-target.ts');
    if (!capability(target.capability) || !existsSync(file)) continue;
    const module = (await import(pathToFileURL(file).href)) as { readonly liveTarget: LiveTarget };
    return { engine, target: module.liveTarget };
  }
  throw new TypeError('no built-in target with live test support has the capability asked for');
}
