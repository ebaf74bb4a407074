import { watchPaths } from './watched-placeholders.ts';

/**
 * Which of a plug-in's declared `stateFiles` an honest attempt never used. The cell folder is
 * watched through inotify while the attempt runs; a declared name the attempt never opened,
 * created, wrote or moved in (a dummy such as `target.conn` that the connector never reads) is
 * not the target's state: sealing it would seal nothing, so the intent-conflict cell does not
 * believe a seal with such a name in it (harness/faults/intent-conflict-fault.ts).
 */
export async function watchStateFilesUse(
  cellDir: string,
  files: readonly string[],
): Promise<{ release(): Promise<readonly string[]> }> {
  const watch = await watchPaths([cellDir]);
  return {
    async release() {
      const used = new Set<string>();
      for (const event of await watch.release()) if (event.entry !== undefined) used.add(event.entry);
      return files.filter((name) => !used.has(name));
    },
  };
}
