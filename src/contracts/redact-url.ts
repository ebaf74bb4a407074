/**
 * Redacts credentials from a connection URL before it appears in an error, a log or evidence: the
 * password of the userinfo part and password-like query parameters become "***". Text that does
 * not parse as a URL is redacted by pattern, so a malformed URL cannot leak its password either.
 */
const SECRET_PARAMS = /^(password|pwd|pass|passwd|secret|token|sslpassword|access_token)$/i;

export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    for (const key of [...url.searchParams.keys()]) {
      if (SECRET_PARAMS.test(key)) url.searchParams.set(key, '***');
    }
    return url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return text
      .replace(/(\/\/[^/@:]*:)[^@/]*@/g, '$1***@')
      .replace(/\b(password|pwd|pass|passwd|secret|token|sslpassword|access_token)=[^&;\s]*/gi, '$1=***');
  }
}
