// Moves a folder with children through `vaultd serve`, driven by the
// official MCP TypeScript SDK, the way an agent reorganising a vault would:
// overview, list the folder, move it, read a moved note at its new path.
//
//   node move-session.mjs --bin VAULTD --vault DIR --state DIR --from FOLDER --to FOLDER
//
// The Go test TestTypeScriptSDK_MoveFolder counts the vault's unresolved
// links before and after. The last line is "ts-sdk move: N passed, M failed".

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values: a } = parseArgs({
  options: {
    bin: { type: 'string' }, vault: { type: 'string' }, state: { type: 'string' },
    from: { type: 'string' }, to: { type: 'string' },
  },
});
for (const k of ['bin', 'vault', 'state', 'from', 'to']) {
  if (!a[k]) {
    console.error(`missing --${k}`);
    process.exit(2);
  }
}

const transport = new StdioClientTransport({
  command: a.bin,
  args: ['serve', '--vault', a.vault, '--state-dir', a.state],
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'vaultd-ts-move', version: '0.0.0' });
await client.connect(transport);

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}\n${String(err?.stack ?? err)}\nvaultd stderr:\n${stderr}`);
  }
}

async function call(name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { text, isError: res.isError === true };
}

function field(text, name) {
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    if (l.startsWith(`${name}: `)) return l.slice(name.length + 2).trim();
  }
  return undefined;
}

let moved;
await check('list_notes shows the folder to move', async () => {
  const r = await call('list_notes', { folder: a.from });
  assert.equal(r.isError, false, r.text);
  moved = field(r.text, 'path');
  assert.ok(moved, `no note listed:\n${r.text}`);
});

await check(`move_note moves ${a.from}/ with its children to ${a.to}/`, async () => {
  const r = await call("move_note", { path: `${a.from}/`, to: a.to, change_summary: "Ordner umsortiert" });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /files moved in all: \d+/);
});

await check('the moved note reads at its new path, with its new space', async () => {
  const newPath = `${a.to}/${moved.slice(a.from.length + 1)}`;
  const r = await call('read_note', { path: newPath });
  assert.equal(r.isError, false, r.text);
  assert.equal(field(r.text, 'path'), newPath);
  assert.equal(field(r.text, 'space'), a.to.split('/')[0]);
  const old = await call('read_note', { path: moved });
  assert.equal(old.isError, true, `the old path still reads:\n${old.text}`);
});

await client.close();
console.log(`ts-sdk move: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
