import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The Python reference in docs/identity.md, run against the published vectors: proof that the
// documented encoding alone (not our TypeScript) reproduces every id byte for byte.
const doc = readFileSync(new URL('../../docs/identity.md', import.meta.url), 'utf8');
const reference = /```python\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const vectorsPath = new URL('./identity-vectors.json', import.meta.url).pathname;
const python = spawnSync('python3', ['--version']).status === 0;

const check = `
import json, sys
data = json.load(open(sys.argv[1], encoding="utf-8"))
bad = [v["name"] for v in data["vectors"]
       if operation_id(v["identity"]) != v["operation_id"] or intent_digest(v["intent"], v["data"]) != v["intent_digest"]]
accepted = []
for v in data["invalid"]:
    try:
        (operation_id(v["identity"]) if "identity" in v else intent_digest(v["intent"], v["data"]))
        accepted.append(v["name"])
    except (ValueError, TypeError):
        pass
print(json.dumps({"checked": len(data["vectors"]), "mismatched": bad, "accepted_invalid": accepted}))
`;

describe.skipIf(!python)('Python reference implementation in docs/identity.md', () => {
  it('reproduces every published vector and refuses every invalid one', () => {
    expect(reference).toContain('def operation_id');
    const result = spawnSync('python3', ['-c', `${reference}\n${check}`, vectorsPath], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as {
      checked: number;
      mismatched: string[];
      accepted_invalid: string[];
    };
    expect(report.checked).toBeGreaterThanOrEqual(10);
    expect(report.mismatched).toEqual([]);
    expect(report.accepted_invalid).toEqual([]);
  });
});
