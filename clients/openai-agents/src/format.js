// What the model reads of a command: the layout the SDK's own sandbox clients give exec_command
// and write_stdin results, so that a model sees the same text whichever sandbox it runs in.
import { randomBytes } from 'node:crypto';

// About four bytes a token, as the SDK estimates.
const BYTES_PER_TOKEN = 4;

/**
 * `text` cut to about `maxTokens` tokens, its start and end kept.
 * @returns {{output: string, originalTokenCount?: number}}
 */
export function truncateOutput(text, maxTokens) {
  const tokens = Math.ceil(text.length / BYTES_PER_TOKEN);
  if (!maxTokens || tokens <= maxTokens) return { output: text };
  const keep = maxTokens * BYTES_PER_TOKEN;
  const head = text.slice(0, Math.floor(keep / 2));
  const tail = text.slice(text.length - Math.ceil(keep / 2));
  const lines = text.split('\n').length;
  return {
    output: `Total output lines: ${lines}\n\n${head}...${tokens - maxTokens} tokens truncated...${tail}`,
    originalTokenCount: tokens,
  };
}

/** The text of a SandboxExecResult. */
export function formatExecResponse(result) {
  const lines = [
    `Chunk ID: ${randomBytes(3).toString('hex')}`,
    `Wall time: ${result.wallTimeSeconds.toFixed(4)} seconds`,
    result.exitCode !== undefined && result.exitCode !== null
      ? `Process exited with code ${result.exitCode}`
      : `Process running with session ID ${result.sessionId}`,
  ];
  if (result.originalTokenCount !== undefined) lines.push(`Original token count: ${result.originalTokenCount}`);
  lines.push('Output:', result.output);
  return lines.join('\n');
}
