import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DponeError, ERROR_CODES, invalidInput } from '../contracts/errors.ts';
import { firstUnsafeCharacter } from '../contracts/safe-text.ts';
import type { ConnectorPlugin } from '../ports/connector-plugin.ts';
import { pluginProblem } from '../ports/connector-plugin.ts';

/** A plug-in loaded once per process, by resolved module URL. */
const LOADED = new Map<string, Promise<LoadedPlugin>>();

export interface LoadedPlugin {
  readonly plugin: ConnectorPlugin;
  /** The specifier as given (an npm package name, or a path as the workload wrote it). */
  readonly specifier: string;
  /** The resolved module URL (for another process to load the very same module). */
  readonly url: string;
}

function isPath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || specifier.startsWith('file:');
}

/** The module URL of a specifier: a path relative to `baseDir`, or a package resolved from there. */
function resolveModule(specifier: string, baseDir: string, field: string): string {
  if (specifier.startsWith('file:')) return specifier;
  if (isPath(specifier)) return pathToFileURL(resolve(baseDir, specifier)).href;
  try {
    // A package installed beside the workload (or above it) wins; else the one dpone itself sees.
    return pathToFileURL(createRequire(join(baseDir, 'workload.js')).resolve(specifier)).href;
  } catch {
    try {
      return import.meta.resolve(specifier);
    } catch (error) {
      throw new DponeError(
        ERROR_CODES.OBJECT_NOT_FOUND,
        `${field}: no connector module ${JSON.stringify(specifier)} is installed (npm install it, or give a path)`,
        { field },
        { cause: error },
      );
    }
  }
}

/**
 * Loads a connector plug-in by npm package name or path (relative to `baseDir`, the workload's
 * folder) and checks its shape before anything calls into it. The module's `default` export, or
 * its `connector` export, is the plug-in.
 */
export function loadConnectorPlugin(
  specifier: string,
  baseDir: string,
  field: string,
): Promise<LoadedPlugin> {
  if (specifier.trim() === '' || firstUnsafeCharacter(specifier) !== null)
    throw invalidInput(`${field} must name a module: an npm package name or a path`, { field });
  const url = resolveModule(specifier, baseDir, field);
  let loading = LOADED.get(url);
  if (!loading) {
    loading = importPlugin(url, specifier, field);
    LOADED.set(url, loading);
  }
  return loading;
}

async function importPlugin(url: string, specifier: string, field: string): Promise<LoadedPlugin> {
  let module: { default?: unknown; connector?: unknown };
  try {
    module = (await import(url)) as typeof module;
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
    throw new DponeError(
      missing ? ERROR_CODES.OBJECT_NOT_FOUND : ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      missing
        ? `${field}: the connector module ${JSON.stringify(specifier)} (or a module it imports) is not found`
        : `${field}: the connector module ${JSON.stringify(specifier)} failed to load`,
      { field },
      { cause: error },
    );
  }
  const plugin = module.default ?? module.connector;
  const problem = pluginProblem(plugin);
  if (problem !== null)
    throw invalidInput(`${field}: ${JSON.stringify(specifier)} is not a dpone connector: ${problem}`, {
      field,
    });
  return { plugin: plugin as ConnectorPlugin, specifier, url };
}
