import type { EnvironmentResult, StartedEnvironment } from './environment.ts';

/** Disposes in reverse order of acquisition; one failure does not keep the rest running. */
export async function disposeAll(items: AsyncDisposable[]): Promise<void> {
  for (const item of items.splice(0).reverse()) {
    try {
      await item[Symbol.asyncDispose]();
    } catch {
      // best effort: a server that will not stop must not keep the others alive
    }
  }
}

/** A provider's started environment that, on dispose, stops what the provider started (`owned`). */
export function ownedEnvironment(
  environment: Omit<StartedEnvironment, typeof Symbol.asyncDispose>,
  owned: AsyncDisposable[],
): EnvironmentResult {
  return {
    status: 'started',
    environment: { ...environment, [Symbol.asyncDispose]: () => disposeAll(owned) },
  };
}
