import { readdir, readFile } from 'node:fs/promises';

/**
 * What the harness reads about processes it did not start itself (Airflow's task runners, the
 * `dpone` processes Airflow starts) from /proc, Linux only. A process is named by pid and start
 * time together, so a recycled pid is never mistaken for the process the harness meant.
 */
export interface ProcessRef {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat: start time in clock ticks after boot. */
  readonly startTicks: number;
}

interface Stat {
  readonly ppid: number;
  readonly state: string;
  readonly startTicks: number;
}

async function stat(pid: number): Promise<Stat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is parenthesised and may hold spaces: split after its ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), startTicks: Number(fields[19]) };
  } catch {
    return null;
  }
}

export async function processRef(pid: number): Promise<ProcessRef | null> {
  const found = await stat(pid);
  return found ? { pid, startTicks: found.startTicks } : null;
}

/** The process is still the one referred to, and not a zombie waiting for its parent. */
export async function isAlive(ref: ProcessRef): Promise<boolean> {
  const found = await stat(ref.pid);
  return found !== null && found.startTicks === ref.startTicks && found.state !== 'Z';
}

export async function parentOf(ref: ProcessRef): Promise<ProcessRef | null> {
  const found = await stat(ref.pid);
  if (!found || found.startTicks !== ref.startTicks || found.ppid <= 1) return null;
  return processRef(found.ppid);
}

/** The process's command line, NUL-separated arguments joined by spaces ('' when gone). */
export async function commandLine(ref: ProcessRef): Promise<string> {
  try {
    return (await readFile(`/proc/${ref.pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Sends `signal` only if the pid still names the same process. False when it was gone. */
export async function signalProcess(ref: ProcessRef, signal: NodeJS.Signals): Promise<boolean> {
  if (!(await isAlive(ref))) return false;
  try {
    process.kill(ref.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs every process whose environment holds `marker` exactly (e.g. `AIRFLOW_HOME=/dev/shm/…`,
 * unique per run), so only processes descended from what the harness started are touched.
 */
export async function killProcessesWithEnv(marker: string): Promise<number> {
  let killed = 0;
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').includes(marker)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}
