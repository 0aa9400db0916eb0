// Row 5b of BENCHMARKS.md: the MCP server's run_command of `true`, round trip from the official
// TypeScript SDK client, against a fresh bwrap start in the same rounds (ABBA).
// node tests/bench/mcp_bench.mjs CLI SESSION ROUNDS   (run by exec_bench.sh, which sets the
// environment and BWRAP_ARGS_JSON)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../js/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));

const [cli, session, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const bwrapArgs = JSON.parse(process.env.BWRAP_ARGS_JSON);

const transport = new StdioClientTransport({
  command: cli, args: ['mcp', '--session', session], env: process.env, stderr: 'ignore',
});
const client = new Client({ name: 'mcp-bench', version: '1' });
await client.connect(transport);

const callOnce = async () => {
  const t0 = process.hrtime.bigint();
  const result = await client.callTool({ name: 'run_command', arguments: { command: 'true' } });
  if (result.isError || result.structuredContent?.exit_code !== 0) throw new Error(JSON.stringify(result));
  return Number(process.hrtime.bigint() - t0) / 1000;
};
const bwrapOnce = () => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('bwrap', [...bwrapArgs, '/usr/bin/true'], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('bwrap failed');
  return Number(process.hrtime.bigint() - t0) / 1000;
};

for (let i = 0; i < 3; i++) { await callOnce(); bwrapOnce(); }
const mcp = [], bw = [], ratios = [];
for (let r = 0; r < rounds; r++) {
  let a, b;
  if (r % 2) { b = bwrapOnce(); a = await callOnce(); } else { a = await callOnce(); b = bwrapOnce(); }
  mcp.push(a); bw.push(b); ratios.push(a / b);
}
await client.close();
const q = (xs, p) => {
  const v = [...xs].sort((x, y) => x - y);
  const h = (v.length - 1) * p, lo = Math.floor(h), hi = Math.min(lo + 1, v.length - 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
};
console.log(`RESULT mcp n=${rounds} mcp_us=${q(mcp, 0.5).toFixed(0)} bwrap_us=${q(bw, 0.5).toFixed(0)} ` +
  `ratio=${q(ratios, 0.5).toFixed(3)},${q(ratios, 0.25).toFixed(3)},${q(ratios, 0.75).toFixed(3)}`);
