import { Toxiproxy } from 'toxiproxy-node-client';
import type { ICreateToxicBody } from 'toxiproxy-node-client';

/** The five network faults of a cell, and the lost acknowledgement's toxic. */
export const TOXICS = ['reset_peer', 'timeout', 'limit_data', 'latency', 'down'] as const;
export type ToxicName = (typeof TOXICS)[number] | 'lost-ack';

/**
 * Toxic bodies. `timeout` is a black hole on the client→server stream that closes after 6 s; the
 * workers' own 4 s query timeout ends their call first. `lost-ack` holds every server→client byte
 * (timeout 0: never closes) so a COMMIT the server received commits while its reply never arrives.
 */
const BODIES: Readonly<Record<Exclude<ToxicName, 'down'>, ICreateToxicBody<unknown>>> = {
  reset_peer: {
    name: 'dpone-reset-peer',
    type: 'reset_peer',
    stream: 'upstream',
    toxicity: 1,
    attributes: { timeout: 0 },
  },
  timeout: {
    name: 'dpone-black-hole',
    type: 'timeout',
    stream: 'upstream',
    toxicity: 1,
    attributes: { timeout: 6000 },
  },
  limit_data: {
    name: 'dpone-limit-data',
    type: 'limit_data',
    stream: 'upstream',
    toxicity: 1,
    attributes: { bytes: 48 },
  },
  latency: {
    name: 'dpone-latency',
    type: 'latency',
    stream: 'downstream',
    toxicity: 1,
    attributes: { latency: 250, jitter: 50 },
  },
  'lost-ack': {
    name: 'dpone-lost-ack',
    type: 'timeout',
    stream: 'downstream',
    toxicity: 1,
    attributes: { timeout: 0 },
  },
};

/** What was installed on which proxy, for the evidence. */
export interface InstalledToxic extends AsyncDisposable {
  readonly proxy: string;
  readonly toxic: ToxicName;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/**
 * Installs one fault on a Toxiproxy proxy through toxiproxy-node-client; disposing removes the
 * toxic (or re-enables a downed proxy), so the next worker sees a clean network.
 */
export async function installToxic(
  apiUrl: string,
  proxyName: string,
  toxic: ToxicName,
): Promise<InstalledToxic> {
  const client = new Toxiproxy(apiUrl);
  const proxy = await client.get(proxyName);
  if (toxic === 'down') {
    await proxy.update({ enabled: false, listen: proxy.listen, upstream: proxy.upstream });
    return {
      proxy: proxyName,
      toxic,
      attributes: { enabled: false },
      [Symbol.asyncDispose]: async () => {
        await proxy.update({ enabled: true, listen: proxy.listen, upstream: proxy.upstream });
      },
    };
  }
  const body = BODIES[toxic];
  const installed = await proxy.addToxic(body);
  return {
    proxy: proxyName,
    toxic,
    attributes: { type: body.type, stream: body.stream, ...(body.attributes as Record<string, unknown>) },
    [Symbol.asyncDispose]: async () => {
      await installed.remove();
    },
  };
}
