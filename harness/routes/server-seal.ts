import { createHash } from 'node:crypto';
import { invalidInput } from '../../src/contracts/errors.ts';
import { Tripwire } from '../env/tripwire.ts';
import type { PartSeal } from './parts.ts';
import type { TargetRows, TargetServerAddress } from './target-part.ts';

/** `host:port` as a URL names it (an IPv6 address in brackets). */
export function serverAuthority(server: TargetServerAddress): string {
  return `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`;
}

/**
 * Refuses a declared server address the harness could not re-point: a port that is not one, or a
 * `host:port` the workload URL does not name exactly once (the seal rewrites that text, so a URL
 * naming it twice, or not at all, would leave the connector aimed at the real server).
 */
export function checkServerAddress(route: string, url: string, server: TargetServerAddress): void {
  const field = 'harness.target.prepare';
  if (
    typeof server.host !== 'string' ||
    server.host === '' ||
    !Number.isInteger(server.port) ||
    server.port < 1 ||
    server.port > 65_535
  )
    throw invalidInput(
      `route ${route}: its prepared target's server must be { host: a non-empty string, port: an integer 1-65535 }`,
      { field: `${field}.server` },
    );
  const count = url.split(serverAuthority(server)).length - 1;
  if (count !== 1)
    throw invalidInput(
      `route ${route}: its prepared target's server host:port appears ${count} times in endpoint.url; the harness seals the target by re-pointing it, so it must appear exactly once`,
      { field: `${field}.server` },
    );
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** A digest of the target as the plug-in's own `read()` sees it: its rows and its audited inserts. */
export async function targetStateDigest(read: () => Promise<TargetRows>): Promise<string> {
  const reading = await read();
  const hash = createHash('sha256');
  // Rows in any order the read returns them (a SELECT without ORDER BY): as a set.
  for (const row of reading.rows.map(canonical).sort()) hash.update(`${row}\n`);
  hash.update('--\n');
  for (const insert of reading.inserts.map(canonical).sort()) hash.update(`${insert}\n`);
  return hash.digest('hex');
}

/**
 * Seals a server-backed plug-in target for one attempt: the workload URL's `host:port` is
 * re-pointed at a listener the harness owns, which counts every connection and every byte sent to
 * it and forwards nothing (the real server stays up, unreached). Afterwards the listener must have
 * seen no connection, and the target read with the plug-in's own `read()` (rows and audited
 * inserts) must be what it was: the listener shows what aimed at it, the read what reached the
 * server some other way.
 */
export async function sealServerTarget(
  url: string,
  server: TargetServerAddress,
  read: () => Promise<TargetRows>,
): Promise<PartSeal> {
  const before = await targetStateDigest(read);
  const wire = await Tripwire.listen({ drain: true });
  return {
    url: url.replace(serverAuthority(server), wire.authority),
    sealed:
      "the target server's host:port re-pointed at a listener the harness watches (it forwards nothing), the target's rows and audited inserts compared",
    async release() {
      const touched: string[] = [];
      await wire[Symbol.asyncDispose]();
      if (wire.connections > 0)
        touched.push(
          `${wire.connections} connection(s) and ${wire.bytes} byte(s) to the listener standing in for the target server`,
        );
      if ((await targetStateDigest(read)) !== before)
        touched.push("the target's rows or audited inserts (read by the harness) changed");
      return touched;
    },
  };
}
