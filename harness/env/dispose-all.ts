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
