#!/usr/bin/env node
// Entry point and composition root of the two halves: the runtime CLI (src/cli) and the
// certification commands of the harness, which src never imports. Node >= 22.22 runs the
// TypeScript sources directly (type stripping). This file itself is plain JavaScript and loads the
// sources only after checking the Node version, so an older Node gets one line, not a stack trace:
// it runs under the Node 24 that `npm run …` keeps in ~/.cache/dpone-node when there is one.
import nodeModule from 'node:module';
import launcher from './supported-node.cjs';

function start() {
  return Promise.all([import('../src/cli/main.ts'), import('../harness/cli/commands.ts')]).then(
    function (modules) {
      return modules[0].main(process.argv.slice(2), modules[1].CERTIFY_COMMANDS);
    },
  );
}

if (launcher.isSupported(process.versions.node)) {
  // V8's compiled code of the sources, kept between processes (in the OS temp folder, keyed by each
  // file's content, so an edited file is compiled afresh): a certification spawns a `dpone run`
  // worker per attempt, and compiling the ~55k lines again was most of each spawn's start-up
  // (measured in docs/development.md). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache();
  start().then(
    function (code) {
      process.exitCode = code;
    },
    function (error) {
      // Only a broken install gets here (main() reports every error itself): one line.
      process.stderr.write(
        'dpone: DPONE_INTERNAL: the CLI could not start (' +
          (error && error.code ? error.code : 'error') +
          ')\n',
      );
      if (process.env.DPONE_DEBUG === '1') process.stderr.write(String(error && error.stack) + '\n');
      process.exitCode = 70;
    },
  );
} else {
  const decision = launcher.decide({
    version: process.version,
    execPath: process.execPath,
    platform: process.platform,
    arch: process.arch,
    env: process.env,
  });
  if (decision.kind === 'cached') {
    process.stderr.write(
      'dpone: ' + launcher.tooOld(process.version) + '; running under Node ' + decision.version + '\n',
    );
    launcher.runChild(decision.node, process.argv.slice(1), process.env);
  } else {
    process.stderr.write(
      'dpone: ' +
        (decision.kind === 'unsupported'
          ? decision.message
          : launcher.tooOld(process.version) +
            ': run it through npm (`npm run dpone -- ARGS…` fetches Node 24 once) or install Node.js 24 LTS') +
        '\n',
    );
    process.exitCode = launcher.EXIT_UNAVAILABLE;
  }
}
