import { request } from 'node:http';

/** Where a Docker engine would answer, from DOCKER_HOST or the default socket. */
export interface DockerEndpoint {
  readonly socketPath?: string;
  readonly host?: string;
  readonly port?: number;
  /** For messages: the endpoint without credentials. */
  readonly label: string;
}

export function dockerEndpoint(env: NodeJS.ProcessEnv = process.env): DockerEndpoint {
  const value = env.DOCKER_HOST;
  if (!value) return { socketPath: '/var/run/docker.sock', label: 'unix:///var/run/docker.sock' };
  if (value.startsWith('unix://')) return { socketPath: value.slice('unix://'.length), label: value };
  try {
    const url = new URL(value.replace(/^tcp:/, 'http:'));
    return {
      host: url.hostname,
      port: Number(url.port || 2375),
      label: `${url.hostname}:${url.port || 2375}`,
    };
  } catch {
    return { label: 'DOCKER_HOST (unparseable)' };
  }
}

/**
 * Asks the engine's `/_ping` with a short timeout. Resolves null when an engine answers, else a
 * one-line reason. Never throws, never waits longer than `timeoutMs`.
 */
export function probeDockerEngine(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 2000,
): Promise<string | null> {
  const endpoint = dockerEndpoint(env);
  if (!endpoint.socketPath && !endpoint.host) return Promise.resolve(`no Docker engine: ${endpoint.label}`);
  return new Promise((resolve) => {
    const req = request(
      {
        socketPath: endpoint.socketPath,
        host: endpoint.host,
        port: endpoint.port,
        path: '/_ping',
        method: 'GET',
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve(
          res.statusCode === 200
            ? null
            : `Docker engine at ${endpoint.label} answered HTTP ${res.statusCode}`,
        );
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve(`no Docker engine answered at ${endpoint.label} within ${timeoutMs} ms`);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve(`no Docker engine answers at ${endpoint.label} (${error.code ?? 'connection failed'})`);
    });
    req.end();
  });
}
