import { describe, expect, it } from 'vitest';
import { cellsDatabaseName, externalLogin, serverLogin } from './external-env.ts';

const SERVER = { port: 5432, user: 'admin', passwordVar: 'PW', upstreamVar: 'UP' };

describe('external server login', () => {
  it("takes the URL's host, port and user, the password from its variable, and forwards to the URL's host:port", () => {
    expect(serverLogin({ PW: 'pw' }, new URL('server://etl%40corp@db.example:6543/x'), SERVER)).toEqual({
      host: 'db.example',
      port: 6543,
      user: 'etl@corp',
      password: 'pw',
      proxyUpstream: 'db.example:6543',
    });
  });

  it("falls back to the engine's port (forwarded to as well) and user, with no password", () => {
    expect(serverLogin({}, new URL('server://db.example/x'), SERVER)).toEqual({
      host: 'db.example',
      port: 5432,
      user: 'admin',
      password: '',
      proxyUpstream: 'db.example:5432',
    });
  });

  it('forwards to the upstream the variable names (e.g. a container alias)', () => {
    const login = serverLogin({ UP: 'pg-alias:5432' }, new URL('server://u@127.0.0.1:15432/x'), SERVER);
    expect([login.host, login.port, login.proxyUpstream]).toEqual(['127.0.0.1', 15432, 'pg-alias:5432']);
  });

  it('reads the URL and login the variables name, or says why not (a password belongs in its variable)', () => {
    const variables = { url: 'URL', password: 'PW', upstream: 'UP' };
    const found = externalLogin({ URL: 'server://u@db.example/x', PW: 'pw' }, variables, {
      port: 5432,
      user: 'admin',
    });
    expect(found).toEqual({
      url: new URL('server://u@db.example/x'),
      login: { host: 'db.example', port: 5432, user: 'u', password: 'pw', proxyUpstream: 'db.example:5432' },
    });
    expect(externalLogin({ URL: 'server://u:pw@db.example/x' }, variables, { port: 1, user: 'a' })).toBe(
      'put the password in PW, not in URL',
    );
    expect(externalLogin({}, variables, { port: 1, user: 'a' })).toBe('URL is not a URL');
  });

  it('names every run its own cells database', () => {
    const [a, b] = [cellsDatabaseName(), cellsDatabaseName()];
    expect(a).toMatch(/^dpone_cells_[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
  });
});
