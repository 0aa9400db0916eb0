// `sandbench-cli serve` driven by E2B's Code Interpreter SDK (npm `@e2b/code-interpreter`), as a
// data-analysis agent written for E2B drives it: template code-interpreter-v1, runCode, contexts.
// The kernels are Sandbench's own (Debian's ipykernel in the sandbox, docs/e2b.md); each sandbox
// is a session whose processes the policy sees.
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { Sandbox } from '@e2b/code-interpreter';
import { TimeoutError } from 'e2b';

import { TEST_POLICY, UNAVAILABLE, World, cliTest, spawnServe, stopServe, waitUntil } from './support.mjs';

const TEST_MS = 120_000;

let world;
let server; // { process, url, stderr }
const sandboxes = [];

// Debian's kernel packages, which the sandbox sees from this machine's /usr.
function kernelMissing() {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import ipykernel, jupyter_client, matplotlib'], { stdio: 'ignore' });
    return '';
  } catch {
    return 'python3-ipykernel, python3-jupyter-client or python3-matplotlib is not installed (scripts/deps.sh)';
  }
}

function rKernel() {
  try {
    execFileSync('/usr/bin/Rscript', ['-e', 'library(IRkernel)'], { stdio: 'ignore' });
    return true;
  } catch {
    return process.env.SANDBENCH_MUST_WORK === '1'; // then its absence fails the test
  }
}

function ciTest(name, fn) {
  cliTest(name, async (t, context) => {
    const missing = kernelMissing();
    if (missing) {
      if (process.env.SANDBENCH_MUST_WORK === '1') assert.fail(`would skip, but SANDBENCH_MUST_WORK=1: ${missing}`);
      t.skip(missing);
      return;
    }
    await fn(t, context);
  }, {
    timeout: TEST_MS,
    describeFailure: () => (server ? `--- serve's stderr ---\n${server.stderr.slice(-6000)}` : ''),
  });
}

async function create(opts = {}) {
  const sbx = await Sandbox.create({ timeoutMs: 120_000, ...opts });
  sandboxes.push(sbx);
  return sbx;
}

before(async () => {
  if (UNAVAILABLE) return;
  world = new World({ policy: TEST_POLICY });
  server = await spawnServe(world);
  const { stdout } = await world.cli(['serve', '--print-key']);
  process.env.E2B_API_URL = server.url;
  process.env.E2B_SANDBOX_URL = server.url;
  process.env.E2B_API_KEY = stdout.trim();
});

after(async () => {
  for (const s of sandboxes) await s.kill().catch(() => {});
  if (server) await stopServe(server).catch(() => server.process.kill('SIGKILL'));
  if (world) await world.cleanUp('code-interpreter.test.mjs');
});

describe('sandbench-cli serve (the E2B Code Interpreter SDK)', () => {
  ciTest('runCode: the last value as text, printed output as logs, an error with its traceback', async () => {
    const sbx = await create();
    const value = await sbx.runCode('n = 6 * 7\nn');
    assert.equal(value.text, '42');
    assert.equal(value.error, undefined);
    assert.ok(value.executionCount >= 1, 'the execution is counted');

    const printed = await sbx.runCode('import sys\nprint("to stdout")\nprint("to stderr", file=sys.stderr)');
    assert.deepEqual(printed.logs.stdout, ['to stdout\n']);
    assert.deepEqual(printed.logs.stderr, ['to stderr\n']);
    assert.equal(printed.text, undefined, 'print() has no value');

    const failed = await sbx.runCode('def f():\n    return {}["missing"]\nf()');
    assert.equal(failed.error.name, 'KeyError');
    assert.equal(failed.error.value, "'missing'");
    assert.match(failed.error.traceback, /KeyError/);
    assert.match(failed.error.traceback, /return \{\}\["missing"\]/, 'the traceback shows the failing line');
    assert.doesNotMatch(failed.error.traceback, /\x1b\[/, 'without terminal colours');
  });

  ciTest('a context keeps its variables; contexts are separate, restarted and removed', async () => {
    const sbx = await create();
    await sbx.runCode('total = 0');
    await sbx.runCode('total += 5');
    assert.equal((await sbx.runCode('total')).text, '5', 'the default context keeps state');

    const other = await sbx.createCodeContext({ cwd: '/tmp' });
    assert.equal(other.language, 'python');
    assert.equal(other.cwd, '/tmp');
    const unseen = await sbx.runCode('total', { context: other });
    assert.equal(unseen.error?.name, 'NameError', 'a new context starts empty');
    assert.equal((await sbx.runCode('import os; os.getcwd()', { context: other })).text, '/tmp');

    await sbx.runCode('kept = 1', { context: other });
    await sbx.restartCodeContext(other);
    assert.equal((await sbx.runCode('kept', { context: other })).error?.name, 'NameError', 'a restart forgets');

    const ids = (await sbx.listCodeContexts()).map((c) => c.id);
    assert.ok(ids.includes(other.id), `listed: ${ids}`);
    await sbx.removeCodeContext(other);
    assert.ok(!(await sbx.listCodeContexts()).some((c) => c.id === other.id), 'removed');
    assert.equal((await sbx.runCode('total')).text, '5', 'the default context is untouched');
  });

  ciTest('a matplotlib chart comes back as a PNG with its data; a DataFrame as data and HTML', async () => {
    const sbx = await create();
    const chart = await sbx.runCode('import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.title("squares")\nplt.show()');
    const png = chart.results.find((r) => r.png);
    assert.ok(png, `a PNG result: ${JSON.stringify(chart.results.map((r) => r.formats()))}`);
    const bytes = Buffer.from(png.png, 'base64');
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'base64 of a PNG file');
    assert.equal(png.isMainResult, false, 'a displayed figure, not the value');
    // Its data too, as E2B's SDK reads a chart.
    assert.equal(png.chart.type, 'line');
    assert.equal(png.chart.title, 'squares');
    assert.deepEqual(png.chart.elements[0].points, [[0, 1], [1, 4], [2, 9]]);

    const bars = await sbx.runCode('import matplotlib.pyplot as plt\nplt.figure()\nplt.bar(["red", "blue"], [3, 5], label="votes")\nplt.ylabel("Votes (count)")\nplt.show()');
    const barChart = bars.results.find((r) => r.chart).chart;
    assert.equal(barChart.type, 'bar');
    assert.equal(barChart.y_unit, 'count');
    assert.deepEqual(barChart.elements.map((b) => [b.label, b.group, b.value]), [['red', 'votes', 3], ['blue', 'votes', 5]]);

    const table = await sbx.runCode('import pandas as pd\npd.DataFrame({"city": ["Bonn", "Ulm"], "people": [330000, 126000]})');
    const main = table.results.find((r) => r.isMainResult);
    assert.deepEqual(main.data, { city: ['Bonn', 'Ulm'], people: [330000, 126000] });
    assert.match(main.html, /<table/);
  });

  ciTest('the session records each execution: show --json and the export carry the chart, the table and the error', async () => {
    const sbx = await create();
    const chart = await sbx.runCode('import matplotlib.pyplot as plt\nprint("drawing")\nplt.plot([2, 3, 5])\nplt.show()');
    const sent = chart.results.find((r) => r.png).png;
    await sbx.runCode('import pandas as pd\npd.DataFrame({"city": ["Bonn", "Ulm"], "people": [330000, 126000]})');
    await sbx.runCode('1/0');
    // Recorded before runCode returned; read once the session ended (its recording closed).
    await sbx.kill();
    const { stdout } = await world.cli(['show', sbx.sandboxId, '--json']);
    const executions = JSON.parse(stdout).executions;
    assert.equal(executions.length, 3, JSON.stringify(executions.map((x) => x.code)));
    const [drawn, table, failed] = executions;
    assert.match(drawn.code, /plt\.plot\(\[2, 3, 5\]\)/);
    assert.equal(drawn.stdout, 'drawing\n');
    assert.equal(drawn.execution_count, chart.executionCount);
    const png = drawn.results.flatMap((r) => r.parts).find((p) => p.mime === 'image/png');
    assert.equal(png.base64, sent, 'the very PNG the SDK got, as base64 with its MIME type');
    assert.equal(png.bytes, Buffer.from(sent, 'base64').length);
    const main = table.results.find((r) => r.main);
    assert.deepEqual(main.parts.find((p) => p.mime === 'e2b/data').json, { city: ['Bonn', 'Ulm'], people: [330000, 126000] });
    assert.match(main.parts.find((p) => p.mime === 'text/html').text, /<table/);
    assert.equal(failed.error.name, 'ZeroDivisionError');
    assert.match(failed.error.traceback, /1\/0/);

    const text = (await world.cli(['show', sbx.sandboxId])).stdout;
    assert.match(text, /code executions \(3\)/);
    assert.match(text, /image\/png \d+(\.\d)? (B|KiB)/);
    assert.match(text, /error ZeroDivisionError: division by zero/);

    const lines = (await world.cli(['export', sbx.sandboxId, '--format', 'jsonl'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    const exported = lines.filter((l) => l.type === 'code_execution');
    assert.equal(exported.length, 3);
    assert.equal(exported[0].payload.results.flatMap((r) => r.parts).find((p) => p.mime === 'image/png').base64, sent);
  });

  ciTest('streaming callbacks hear output as it comes; envs apply to one execution', async () => {
    const sbx = await create({ envs: { SANDBOX_WIDE: 'everywhere' } });
    const heard = [];
    const execution = await sbx.runCode('import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.2)\n"done"', {
      onStdout: (m) => heard.push(['stdout', m.line]),
      onResult: (r) => heard.push(['result', r.text]),
    });
    assert.deepEqual(heard, [['stdout', '0\n'], ['stdout', '1\n'], ['stdout', '2\n'], ['result', 'done']]);
    assert.equal(execution.text, 'done');

    const errors = [];
    await sbx.runCode('1/0', { onError: (e) => errors.push(e.name) });
    assert.deepEqual(errors, ['ZeroDivisionError']);

    const once = await sbx.runCode('import os; os.environ.get("ONLY_NOW")', { envs: { ONLY_NOW: 'yes' } });
    assert.equal(once.text, 'yes');
    assert.equal((await sbx.runCode('import os; str(os.environ.get("ONLY_NOW"))')).text, 'None', 'gone after it');
    assert.equal((await sbx.runCode('import os; os.environ["SANDBOX_WIDE"]')).text, 'everywhere');
    const over = await sbx.runCode('import os; os.environ["SANDBOX_WIDE"]', { envs: { SANDBOX_WIDE: 'here' } });
    assert.equal(over.text, 'here');
    assert.equal((await sbx.runCode('import os; os.environ["SANDBOX_WIDE"]')).text, 'everywhere', 'restored');
  });

  ciTest('a timeout gives up the execution and interrupts its code: the context goes on', async () => {
    const sbx = await create();
    await sbx.runCode('state = "kept"');
    await assert.rejects(sbx.runCode('import time\ntime.sleep(120)', { timeoutMs: 1_500 }));
    // The next execution runs once the interrupt ended the sleep, not after 120 s.
    const next = await sbx.runCode('state', { timeoutMs: 20_000 });
    assert.equal(next.text, 'kept');
  });

  ciTest('language bash: a shell per context that keeps its variables and folder', async () => {
    const sbx = await create({ envs: { SANDBOX_WIDE: 'everywhere' } });
    const first = await sbx.runCode('cd /tmp; COUNT=1; echo "$SANDBOX_WIDE $ONCE"; pwd', { language: 'bash', envs: { ONCE: 'now' } });
    assert.deepEqual(first.logs.stdout, ['everywhere now\n', '/tmp\n']);
    const second = await sbx.runCode('echo "$((COUNT + 1)) ${ONCE:-gone}"; pwd; echo oops >&2; false', { language: 'bash' });
    assert.deepEqual(second.logs.stdout, ['2 gone\n', '/tmp\n']);
    assert.deepEqual(second.logs.stderr, ['oops\n']);
    assert.equal(second.error?.value, 'exit status 1', 'a failing last command is an error');
    assert.equal((await sbx.runCode('x = "python"; x')).text, 'python', 'Python is another context');

    const own = await sbx.createCodeContext({ language: 'bash' });
    assert.equal(own.language, 'bash');
    const fresh = await sbx.runCode('echo "${COUNT:-unset}"; pwd', { context: own });
    assert.deepEqual(fresh.logs.stdout, ['unset\n', '/home/user\n']);
    await assert.rejects(sbx.runCode('sleep 60', { context: own, timeoutMs: 1_500 }));
    const after = await sbx.runCode('echo still here', { context: own, timeoutMs: 20_000 });
    assert.deepEqual(after.logs.stdout, ['still here\n'], 'the interrupt ended the sleep, not the shell');
  });

  ciTest('language r: an R kernel in the sandbox (Debian\'s IRkernel)', async (t) => {
    if (!rKernel()) return t.skip('r-cran-irkernel is not installed (scripts/deps.sh)');
    const sbx = await create();
    await sbx.runCode('scores <- c(3, 5, 10)', { language: 'r' });
    const mean = await sbx.runCode('mean(scores)', { language: 'r' });
    assert.equal(mean.results[0]?.text, '[1] 6', 'the context keeps its variables');
    const where = await sbx.runCode('paste(getwd(), Sys.getenv("ONLY_NOW"))', { language: 'r', envs: { ONLY_NOW: 'yes' } });
    assert.equal(where.results[0]?.text, '[1] "/home/user yes"');
    const gone = await sbx.runCode('Sys.getenv("ONLY_NOW", unset = "gone")', { language: 'r' });
    assert.equal(gone.results[0]?.text, '[1] "gone"');
    const failed = await sbx.runCode('stop("no data")', { language: 'r' });
    assert.match(failed.error?.value ?? '', /no data/);
  });

  ciTest('code in a kernel is supervised: a command the policy denies does not run', async () => {
    const sbx = await create();
    await sbx.files.write('victim/keep.txt', 'still here');
    const denied = await sbx.runCode('import subprocess\nsubprocess.run(["rm", "-rf", "victim"])');
    assert.ok(denied.error, 'the exec was refused inside the kernel');
    assert.equal(await sbx.files.read('victim/keep.txt'), 'still here');
    const allowed = await sbx.runCode('import subprocess\nprint(subprocess.run(["echo", "ran"], capture_output=True, text=True).stdout, end="")');
    assert.deepEqual(allowed.logs.stdout, ['ran\n']);
  });

  ciTest('a sandbox killed during an execution ends it with the SDK\'s TimeoutError', async () => {
    const sbx = await create();
    const running = sbx.runCode('import time\ntime.sleep(120)', { timeoutMs: 60_000 });
    const outcome = running.then(() => 'resolved', (e) => e);
    await sbx.runCode('1', { context: await sbx.createCodeContext() }); // the sleep has begun
    await sbx.kill();
    const e = await outcome;
    assert.ok(e instanceof TimeoutError, `not a TimeoutError: ${e}`);
    assert.match(e.message, /killed/);
  });

  ciTest('options and languages not served are refused, naming them', async () => {
    const sbx = await create();
    // (Through the SDK, a 400 is a SandboxError "400 Bad Request" that leaves the body unread,
    // which keeps Node's connection to serve busy: the requests here read their answers.)
    const res = await fetch(`${server.url}/execute`, {
      method: 'POST',
      headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'E2b-Sandbox-Port': '49999', 'X-Access-Token': sbx.envdAccessToken },
      body: JSON.stringify({ code: '1', language: 'java' }),
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /language 'java' is not served: .*Python .*R .*bash/);
    const unknown = await fetch(`${server.url}/execute`, {
      method: 'POST',
      headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'E2b-Sandbox-Port': '49999', 'X-Access-Token': sbx.envdAccessToken },
      body: JSON.stringify({ code: '1', background: true }),
    });
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /field 'background' is not supported/);
    const anonymous = await fetch(`${server.url}/contexts`, {
      headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'E2b-Sandbox-Port': '49999' },
    });
    assert.equal(anonymous.status, 401, 'no token, no kernels');
    assert.match(await anonymous.text(), /X-Access-Token/);
  });
  ciTest('a create takes serve\'s spare: a kernel of its own, nothing of the sandbox before; one with envs starts fresh', async () => {
    // A server of its own, whose spares are told apart in its log.
    const own = await spawnServe(world, ['--workspace-root', path.join(world.root, 'spare-ws')]);
    const at = { apiUrl: own.url, sandboxUrl: own.url, timeoutMs: 120_000 };
    const spares = () => [...own.stderr.matchAll(/spare sandbox (\S+) started ahead for template code-interpreter-v1/g)].map((m) => m[1]);
    try {
      const first = await Sandbox.create(at);
      await first.runCode('secret = "first"');
      await first.files.write('kept.txt', 'first');
      await waitUntil(() => spares().length >= 1, 60_000, 'the spare and its kernel to start');
      const second = await Sandbox.create({ ...at, metadata: { n: '2' } });
      assert.equal(second.sandboxId, spares()[0], 'the second create took the spare');
      assert.equal((await second.runCode('secret')).error?.name, 'NameError', 'its kernel is its own');
      assert.equal(await second.files.exists('kept.txt'), false);
      assert.deepEqual((await second.getInfo()).metadata, { n: '2' });
      // The kernel starts with the sandbox's envs: a create with envs does not take a spare.
      await waitUntil(() => spares().length >= 2, 60_000, 'the next spare to start');
      const third = await Sandbox.create({ ...at, envs: { WHO: 'third' } });
      assert.ok(!spares().includes(third.sandboxId), 'a fresh start');
      assert.equal((await third.runCode('import os; os.environ.get("WHO")')).text, 'third');
    } finally {
      await stopServe(own).catch(() => own.process.kill('SIGKILL'));
    }
  });
});
