import { describe, expect, it } from 'vitest';
import { maskedDigest, maskVolatile } from './state-fingerprint.ts';

describe('maskVolatile: what two kills that left the same durable state may differ by', () => {
  it('masks a holder name (host:pid:hex8) wherever it stands, and epoch milliseconds', () => {
    expect(maskVolatile('{"holder":"ci-runner-7.local:4242:deadbeef","at":1764590000123}')).toBe(
      '{"holder":"<holder>","at":<ms>}',
    );
    expect(maskVolatile('lease h:1:0123abcd then x-y.z:99:abcdef01')).toBe('lease <holder> then <holder>');
  });

  it('masks a journal row checksum: a digest of the fields, it differs wherever holder and instant do', () => {
    const row = (holder: string, checksum: string) =>
      `{"state":"PREPARED","lease_holder":"${holder}","row_checksum":"${checksum}"}`;
    expect(maskedDigest(row('a:1:0123abcd', 'a'.repeat(64)))).toBe(
      maskedDigest(row('b:2:89abcdef', 'b'.repeat(64))),
    );
    expect(maskVolatile(row('a:1:0123abcd', 'c'.repeat(64)))).toBe(
      '{"state":"PREPARED","lease_holder":"<holder>","row_checksum":"<checksum>"}',
    );
  });

  it('leaves text that only resembles one alone (a short hex, a 12-digit number, long labels)', () => {
    const long = 'x'.repeat(4096);
    expect(maskVolatile(`h:1:0123abc ${long} 123456789012`)).toBe(`h:1:0123abc ${long} 123456789012`);
  });

  it('two states that differ only in holder and instant have one digest; a row changed does not', () => {
    const a = maskedDigest('events 1 a\njournal h:1:0123abcd 1764590000123');
    expect(maskedDigest('events 1 a\njournal other-host:77:ffffffff 1764590999999')).toBe(a);
    expect(maskedDigest('events 1 b\njournal h:1:0123abcd 1764590000123')).not.toBe(a);
  });
});
