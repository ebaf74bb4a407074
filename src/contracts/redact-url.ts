/**
 * One URL policy for every URL dpone reads (a workload's source, target and journal, `--journal`,
 * the harness's service URLs in DPONE_*_URL): a URL never carries a password. Passwords come from
 * environment variables (`password_env`, DPONE_JOURNAL_PASSWORD, …).
 * And whatever is refused or fails is still shown through `redactUrl`, which hides what a password
 * could be in forms a URL parser does not take: an unencoded `@`, `/`, `?` or `#` in a password,
 * `Password = x` with spaces, ADO-style `Server=…;Password=…` strings.
 */
const SECRET_KEYS =
  'password|pwd|pass|passwd|secret|token|sslpassword|access_token|api_key|apikey|auth_token|client_secret';
const SECRET_PARAM = new RegExp(`^(${SECRET_KEYS})$`, 'i');
/** `key = value` up to the next `;` or `&` (ADO strings and query strings), quoted values whole. */
const KEY_VALUE = new RegExp(`\\b(${SECRET_KEYS})(\\s*=\\s*)("[^"]*"|'[^']*'|\\{[^}]*\\}|[^;&]*)`, 'gi');
/** `scheme://user:…@` up to the last `@` of the token: over-redacting a host is safe, a leak is not. */
const USERINFO = /(\/\/[^/?#@:\s]*:)\S*@/g;

export function redactUrl(text: string): string {
  let out = text;
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    for (const key of [...url.searchParams.keys()]) {
      if (SECRET_PARAM.test(key.trim())) url.searchParams.set(key, '***');
    }
    out = url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    // not a URL: the patterns below still apply
  }
  return out.replace(USERINFO, '$1***@').replace(KEY_VALUE, '$1$2***');
}

/**
 * Why a URL breaks the policy (it carries a password), or null. A URL of one of `fileSchemes`
 * names a local file (an embedded engine's: what follows `//` is a path, not an authority), so only
 * its query is looked at; the caller passes the schemes (src/cli/route-names.ts FILE_URL_SCHEMES).
 */
export function urlPasswordProblem(url: string, fileSchemes: readonly string[] = []): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const file = scheme !== undefined && fileSchemes.includes(scheme);
  if (!file && /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*:\S*@/i.test(url)) return 'has a password in its user part';
  try {
    const parsed = new URL(url);
    if (!file && parsed.password !== '') return 'has a password in its user part';
    for (const key of parsed.searchParams.keys())
      if (SECRET_PARAM.test(key.trim())) return `has a secret parameter (${key.trim()})`;
  } catch {
    // an unparseable URL is checked by pattern below, and refused by its own field's check
  }
  const pair = new RegExp(`(^|[?&;\\s])(${SECRET_KEYS})\\s*=`, 'i').exec(url);
  return pair ? `has a secret parameter (${pair[2]})` : null;
}
