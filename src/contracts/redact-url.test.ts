import { describe, expect, it } from 'vitest';
import { redactUrl, urlPasswordProblem } from './redact-url.ts';

/*
 * The one URL policy, on URLs of no engine in particular: `server://` stands for any server's URL
 * (a scheme WHATWG URL parsing treats like every database scheme, as not special), `embedded:` for
 * a file URL whose `//` holds a path (the file schemes are the caller's: src/cli/route-names.ts).
 */
const FILE_SCHEMES = ['embedded'];

describe('redactUrl', () => {
  it('hides userinfo passwords and secret query parameters, parseable or not', () => {
    expect(redactUrl('server://u:s3cret@h:5432/db?password=x&sslmode=require')).toBe(
      'server://u:***@h:5432/db?password=***&sslmode=require',
    );
    expect(redactUrl('server://sa:p%40ss@h/db')).toBe('server://sa:***@h/db');
    expect(redactUrl('not a url //u:pw@x?pwd=y')).toBe('not a url //u:***@x?pwd=***');
    expect(redactUrl('embedded:///tmp/j.db')).toBe('embedded:///tmp/j.db');
  });

  it.each([
    ['an unencoded @ in the password', 'server://u:p@ss-hunter2@h/db', 'server://u:***@h/db'],
    ['a / in the password (not a URL any more)', 'server://u:pa/hunter2@h/db', 'server://u:***@h/db'],
    ['a # in the password', 'server://u:p#hunter2@h/db', 'server://u:***@h/db'],
    ['a ? in the password', 'server://u:p?hunter2@h/db', 'server://u:***@h/db'],
    [
      '"Password = x" with spaces in a query',
      'server://h/db?Password = hunter2 x',
      'server://h/db?Password+=***',
    ],
    [
      'an ADO string with spaces',
      'Server=h;Password = hunter2 x;Database=d',
      'Server=h;Password = ***;Database=d',
    ],
    [
      'an ADO string with a quoted value',
      "Server=h;Pwd='hunter2;x';Database=d",
      'Server=h;Pwd=***;Database=d',
    ],
    ['an empty user', 'server://:hunter2@h/db', 'server://:***@h/db'],
    ['a token parameter', 'http://h:8474/?token=hunter2', 'http://h:8474/?token=***'],
  ])('hides the password of %s', (_label, url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
    expect(redactUrl(url)).not.toContain('hunter2');
  });

  it('reads only the query of a file URL, whose `//` holds a path (the schemes the caller passes)', () => {
    expect(urlPasswordProblem('embedded://dir:x@y/j.db', FILE_SCHEMES)).toBeNull();
    expect(urlPasswordProblem('embedded:j.db?password=p', FILE_SCHEMES)).toMatch(/secret parameter/);
    expect(urlPasswordProblem('embedded://dir:x@y/j.db')).toMatch(/password in its user part/);
    expect(urlPasswordProblem('server://u:p@h/db', FILE_SCHEMES)).toMatch(/password in its user part/);
  });

  it('leaves URLs without a password as they are, an @ in a query included', () => {
    for (const url of ['server://u@h:5432/db?application_name=a@b', 'embedded:data/j.db', 'server://sa@h/db'])
      expect(redactUrl(url)).toBe(url);
  });
});
