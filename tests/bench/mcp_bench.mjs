// Row 5b of BENCHMARKS.md: the MCP server's run_command of `true`, round trip from the official
// TypeScript SDK client, against a fresh bwrap start in the same rounds (ABBA).
// node tests/bench/mcp_bench.mjs CLI SESSION ROUNDS   (run by exec_bench.sh, which sets the
// environment and BWRAP_ARGS_JSON)
import { importTestPackage, interleave, report, timeUs } from './bench_support.mjs';

const { Client } = await importTestPackage('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await importTestPackage('@modelcontextprotocol/sdk/client/stdio.js');

const [cli, session, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);

const transport = new StdioClientTransport({
  command: cli, args: ['mcp', '--session', session], env: process.env, stderr: 'ignore',
});
const client = new Client({ name: 'mcp-bench', version: '1' });
await client.connect(transport);

const callOnce = () => timeUs(async () => {
  const result = await client.callTool({ name: 'run_command', arguments: { command: 'true' } });
  if (result.isError || result.structuredContent?.exit_code !== 0) throw new Error(JSON.stringify(result));
});
report('mcp', rounds, await interleave(rounds, callOnce));
await client.close();
