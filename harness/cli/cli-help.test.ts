import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, RUNTIME_COMMANDS } from '../../src/cli/main.ts';
import { routeIds } from '../routes/route-registry.ts';
import { CERTIFY_COMMANDS } from './commands.ts';

/** Issue 35 item 6: a CLI a newcomer can guess: --help per command, --version, "did you mean". */

function sink() {
  let text = '';
  return {
    stream: { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

async function dpone(...argv: string[]) {
  return dponeIn(process.cwd(), ...argv);
}

async function dponeIn(cwd: string, ...argv: string[]) {
  const out = sink();
  const err = sink();
  const code = await main(argv, CERTIFY_COMMANDS, {
    stdout: out.stream,
    stderr: err.stream,
    env: { CI: 'true' },
    cwd,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

const COMMANDS = Object.keys({ ...RUNTIME_COMMANDS, ...CERTIFY_COMMANDS });

describe('dpone COMMAND --help', () => {
  it.each(COMMANDS)(
    '%s answers --help with its usage, every flag it parses and one example, and runs nothing',
    async (name) => {
      const result = await dpone(...name.split(' '), '--help');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^usage: dpone ${name}`));
      expect(result.stdout).toMatch(/\nexample:\n {2}dpone \S/);
      const example = result.stdout.split('example:\n  ')[1]!;
      expect(example.startsWith(`dpone ${name}`)).toBe(true);
    },
  );

  it('lists the flags the command really parses, with what they do', async () => {
    const result = await dpone('certify', 'run', '--help');
    for (const flag of [
      '--route VALUE',
      '--suite VALUE',
      '--scenario VALUE (repeatable)',
      '--gate',
      '--every-variant-cell',
    ])
      expect(result.stdout).toContain(flag);
    expect(result.stdout).toMatch(/--suite VALUE +default \(what npm run certify runs\) or full/);
  });
});

describe('dpone --version and did-you-mean', () => {
  it('prints the package version', async () => {
    const result = await dpone('--version');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^dpone \d+\.\d+\.\d+ \(node \d+/);
  });

  it('names the flag meant by a typo, keeping exit 2', async () => {
    const result = await dpone('certify', 'run', '--suit', 'full');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--suit'");
    expect(result.stderr).toContain('dpone: hint: did you mean --suite?');
  });

  it('names the command and the route meant by a typo', async () => {
    const command = await dpone('certfy', 'run');
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('did you mean "dpone certify run"?');
    // Any composed route of the registry, its last letter dropped.
    const id = routeIds().find((route) => new Set(route.split('-to-')).size === 2)!;
    const route = await dpone('certify', 'run', '--route', id.slice(0, -1));
    expect(route.code).toBe(2);
    expect(route.stderr).toContain(`did you mean --route ${id}?`);
  });

  it('suggests nothing for a word that is not near any flag', async () => {
    const result = await dpone('certify', 'gate', '--zzzzzzzz');
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('did you mean');
  });
});

describe('did you mean, for a cell id', () => {
  it('certify replay names the cell meant by a typo', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-cli-help-'));
    try {
      writeFileSync(
        join(dir, 'small.yaml'),
        'name: small\nvariants: false\nfaults:\n  - kind: intent-conflict\n',
      );
      const made = await dponeIn(dir, 'certify', 'run', '--scenario', 'small.yaml', '--out', 'out');
      expect(made.code, made.stderr).toBe(0);
      // No silent start: what runs before the first cell (environment, clean traces) is said first.
      const [opening, tracing, start] = made.stdout.split('\n');
      const route = /^dpone certify: route (\S+): opening the embedded environment…$/.exec(opening!)?.[1];
      expect(route, opening).toBeDefined();
      expect(tracing).toBe(
        `dpone certify: route ${route}: recording the protocol's clean traces (1 scenario file), then planning the cells…`,
      );
      expect(start).toMatch(
        new RegExp(`^dpone certify: run \\S+, route ${route}, seed 42, up to \\d+ cells`),
      );
      // The reports land in the command's folder, not the process's (they were written relative to it).
      for (const file of ['index.html', 'summary.md', 'junit.xml'])
        expect(existsSync(join(dir, 'out', file)), file).toBe(true);
      const replay = await dponeIn(
        dir,
        'certify',
        'replay',
        'small/afterr-complete',
        '--evidence',
        'out/evidence.json',
      );
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain("did you mean 'small/after-complete'?");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('relative paths say where they were resolved', () => {
  it('a --scenario path typed in another folder names that folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-cli-help-'));
    try {
      const result = await dponeIn(dir, 'certify', 'run', '--scenario', 'scenarios/crash.yaml');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--scenario scenarios/crash.yaml matches no file (resolved against ${dir})`,
      );
      expect(result.stderr).toContain('dpone: hint: run from the folder it is relative to');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
