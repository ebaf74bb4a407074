#!/usr/bin/env node
// Entry point and composition root of the two halves: the runtime CLI (src/cli) and the
// certification commands of the harness, which src never imports. Node >= 22.22 runs the
// TypeScript sources directly (type stripping). This file itself is plain JavaScript and loads the
// sources only after checking the Node version, so an older Node gets one line, not a stack trace:
// it runs under the Node 24 that `npm run …` keeps in ~/.cache/dpone-node when there is one.
import { readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import launcher from './supported-node.cjs';

/**
 * Installed as a dependency (`npm install dpone-cert-<version>.tgz`, the way a connector author
 * depends on it), this package's sources sit under node_modules, where Node refuses to strip types
 * (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING). This in-thread load hook strips them with Node's own
 * stripper (module.stripTypeScriptTypes: the same erasure, so the same files run as in a clone) for
 * this package's files only; nothing else under node_modules changes. In a clone it is not installed.
 * Every process the harness starts runs this file, so workers get it too.
 */
function loadInstalledSources() {
  const root = fileURLToPath(new globalThis.URL('..', import.meta.url));
  if (!root.split(sep).includes('node_modules')) return;
  if (typeof nodeModule.registerHooks !== 'function' || typeof nodeModule.stripTypeScriptTypes !== 'function')
    return;
  const rootUrl = pathToFileURL(root).href;
  const strip = function (source) {
    // The stripper announces itself as experimental on first use; a CLI's stderr is not the place.
    const emitWarning = process.emitWarning;
    process.emitWarning = function () {};
    try {
      return nodeModule.stripTypeScriptTypes(source);
    } finally {
      process.emitWarning = emitWarning;
    }
  };
  nodeModule.registerHooks({
    load: function (url, context, nextLoad) {
      if (
        !url.startsWith(rootUrl) ||
        !url.endsWith('.ts') ||
        url.slice(rootUrl.length).includes('node_modules/')
      )
        return nextLoad(url, context);
      const source = readFileSync(fileURLToPath(url), 'utf8');
      return { format: 'module', source: strip(source), shortCircuit: true };
    },
  });
}

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
  loadInstalledSources();
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
