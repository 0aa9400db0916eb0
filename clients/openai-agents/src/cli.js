// sandbench-cli, which the client runs to start, resume and stop sessions and to list their
// changes, and where a session's control socket is.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import { SandboxProviderError } from '@openai/agents/sandbox';

/** The sandbench-cli to run, and its environment. */
export function cliOf(options) {
  return {
    program: options.cli ?? process.env.SANDBENCH_CLI ?? 'sandbench-cli',
    env: options.env ?? process.env,
  };
}

/** Runs sandbench-cli with `args`; resolves with its stdout, rejects with its stderr. */
export function runCli(options, args) {
  const { program, env } = cliOf(options);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { stderr += c; });
    child.on('error', (e) => reject(new SandboxProviderError(`cannot run ${program}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) return resolve(stdout);
      reject(new SandboxProviderError(`${program} ${args[0]} failed (${code}): ${stderr.trim()}`));
    });
  });
}

export function socketPathOf(sessionId, env) {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime ? path.join(runtime, 'sandbench', `${sessionId}.sock`)
    : path.join('/tmp', `sandbench-${process.getuid()}`, `${sessionId}.sock`);
}

export function stateHome(env) {
  return env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
}
