// Two clones of a team's vault, each served by its own `vaultd serve
// --git-commit` and driven by the official MCP TypeScript SDK, edit the
// same sections differently; after `vaultd sync` on both, the second clone
// holds the conflict. Its agent must see it everywhere — read_note,
// search_notes, vault_overview —, be refused an edit that keeps the
// markers, and resolve each section with each option (ours, theirs, both,
// text); the last resolution concludes the merge, the next sync pushes it,
// and the first clone gets the resolved note (issue 18, test 1).
//
//   node git-session.mjs --bin VAULTD --a DIR --a-state DIR --b DIR --b-state DIR --note PATH
//
// The Go test TestTypeScriptSDK_GitConflict sets up the bare repository
// and the clones (vaultd's merge driver installed) and checks the remote
// afterwards. The last line is "ts-sdk git: N passed, M failed".

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values: a } = parseArgs({
  options: {
    bin: { type: 'string' }, a: { type: 'string' }, 'a-state': { type: 'string' },
    b: { type: 'string' }, 'b-state': { type: 'string' }, note: { type: 'string' },
  },
});
for (const k of ['bin', 'a', 'a-state', 'b', 'b-state', 'note']) {
  if (!a[k]) {
    console.error(`missing --${k}`);
    process.exit(2);
  }
}
const NOTE = a.note;
const SECTIONS = ['Alpha', 'Beta', 'Gamma', 'Delta'];

// The SDK gives a server only a few safe environment variables; git needs
// the test's (GIT_CONFIG_GLOBAL=/dev/null, PATH).
const env = { ...process.env };

async function start(dir, state, actor) {
  const transport = new StdioClientTransport({
    command: a.bin,
    args: ['serve', '--vault', dir, '--state-dir', state, '--no-sync', '--git-commit', '--actor', actor, '--writes-per-minute', '1000'],
    env,
    stderr: 'pipe',
  });
  const srv = { stderr: '' };
  transport.stderr?.on('data', (d) => { srv.stderr += d; });
  srv.client = new Client({ name: `vaultd-ts-git-${actor}`, version: '0.0.0' });
  await srv.client.connect(transport);
  srv.call = async (name, args = {}) => {
    const res = await srv.client.callTool({ name, arguments: args });
    const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    return { text, isError: res.isError === true };
  };
  return srv;
}

// sync runs `vaultd sync` on a clone; it returns the exit code and output.
function sync(dir, state) {
  try {
    const out = execFileSync(a.bin, ['sync', '--vault', dir, '--state-dir', state, '--no-sync'], { env, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, out };
  } catch (err) {
    return { code: err.status, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

let passed = 0;
let failed = 0;
let servers = [];
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}\n${String(err?.stack ?? err)}`);
    for (const s of servers) console.log(`vaultd stderr:\n${s.stderr}`);
  }
}

function field(text, name) {
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    if (l.startsWith(`${name}: `)) return l.slice(name.length + 2).trim();
  }
  return undefined;
}

const A = await start(a.a, a['a-state'], 'mcp:anna');
const B = await start(a.b, a['b-state'], 'mcp:ben');
servers = [A, B];

await check('both agents change the same four sections, each its own way', async () => {
  for (const [srv, who] of [[A, 'anna'], [B, 'ben']]) {
    for (const h of SECTIONS) {
      const r = await srv.call('update_section', { path: NOTE, heading: h, content: `- ${h} nach ${who}`, change_summary: `${h} von ${who}` });
      assert.equal(r.isError, false, r.text);
      assert.match(r.text, /committed to git as [0-9a-f]+/);
    }
  }
});

await check('A syncs first and pushes; B\'s sync stops on the conflict (exit 4)', async () => {
  const ra = sync(a.a, a['a-state']);
  assert.equal(ra.code, 0, ra.out);
  assert.match(ra.out, /pushed 4 commits to origin\/main/);
  const rb = sync(a.b, a['b-state']);
  assert.equal(rb.code, 4, rb.out);
  assert.match(rb.out, /stopped on conflicts in 1 file/);
  assert.ok(rb.out.includes(`in conflict: ${NOTE}`), rb.out);
});

let readText;
await check('read_note says the note is in conflict: each section, both sides, who wrote them, the resolve call', async () => {
  const r = await B.call('read_note', { path: NOTE });
  assert.equal(r.isError, false, r.text);
  readText = r.text;
  assert.match(r.text, /^conflict: 4 unresolved merge conflicts, in "Plan > Alpha", "Plan > Beta", "Plan > Gamma", "Plan > Delta" \(a merge is in progress and git lists the note as unmerged\)$/m);
  for (const h of SECTIONS) {
    assert.ok(r.text.includes(`- ${h} nach ben`) && r.text.includes(`- ${h} nach anna`), `both sides of ${h}:\n${r.text}`);
    assert.ok(r.text.includes(`resolve: resolve_conflict {"path": "${NOTE}", "heading": "Plan > ${h}", "take": "both"`), r.text);
  }
  assert.match(r.text, /^ours \(HEAD, commit [0-9a-f]+ by mcp:ben at .* UTC: Delta von ben\):$/m);
  assert.match(r.text, /^theirs \(origin\/main, commit [0-9a-f]+ by mcp:anna at .* UTC: Delta von anna\):$/m);
});

await check('search_notes shows the hit in conflict, with both sides and the resolve call', async () => {
  let r;
  for (let i = 0; i < 100; i++) { // the index catches up with the merge
    r = await B.call('search_notes', { query: 'Gamma nach anna' });
    if (r.text.includes('conflict: ')) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(field(r.text, 'path'), NOTE, r.text);
  assert.match(r.text, /^conflict: 4 unresolved merge conflicts/m);
  assert.match(r.text, /^ {2}ours: - Gamma nach ben$/m);
  assert.match(r.text, /^ {2}theirs: - Gamma nach anna$/m);
  assert.match(r.text, /^resolve: resolve_conflict \{/m);
});

await check('vault_overview lists the note in conflict', async () => {
  const r = await B.call('vault_overview');
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^in conflict \(1 note with unresolved merge conflicts/m);
  assert.ok(r.text.includes(`\npath: ${NOTE}\n`), r.text);
  assert.match(r.text, /^git sync, last round at .*: the merge of 4 commits from origin\/main stopped on conflicts in 1 file/m);
});

await check('an edit that keeps the markers is refused, and says why', async () => {
  const r = await B.call('append_to_note', { path: NOTE, heading: 'Alpha', content: '- noch etwas', change_summary: 'Nachtrag' });
  assert.equal(r.isError, true, r.text);
  assert.match(r.text, /^error code: merge_conflict$/m);
  assert.match(r.text, /this change would keep the conflict markers; nothing was changed/);
});

await check('resolve_conflict takes each option once: ours, theirs, both (the suggested call, literally), text', async () => {
  let r = await B.call('resolve_conflict', { path: NOTE, heading: 'Alpha', take: 'ours', change_summary: 'Alpha: Bens Stand' });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /3 merge conflicts left/);
  r = await B.call('resolve_conflict', { path: NOTE, heading: 'Beta', take: 'theirs', change_summary: 'Beta: Annas Stand' });
  assert.equal(r.isError, false, r.text);
  const m = readText.match(/^resolve: (resolve_conflict) (\{"path": "[^"]*", "heading": "Plan > Gamma".*\})$/m);
  assert.ok(m, readText);
  r = await B.call(m[1], JSON.parse(m[2]));
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /kept both: ours, then theirs/);
  r = await B.call('resolve_conflict', { path: NOTE, heading: 'Delta', take: 'text', content: '- Delta, gemeinsam', change_summary: 'Delta zusammengeführt' });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /marked resolved in git \(git add\); every conflict of the merge is resolved: vaultd committed the merge as [0-9a-f]+/);
  const n = await B.call('read_note', { path: NOTE });
  assert.ok(!n.text.includes('conflict: '), n.text);
});

await check('B\'s next sync pushes the merge; A\'s brings the resolved note', async () => {
  const rb = sync(a.b, a['b-state']);
  assert.equal(rb.code, 0, rb.out);
  assert.match(rb.out, /pushed \d+ commits to origin\/main/);
  const ra = sync(a.a, a['a-state']);
  assert.equal(ra.code, 0, ra.out);
  assert.match(ra.out, /fast-forward/);
  const r = await A.call('read_note', { path: NOTE });
  assert.ok(!r.text.includes('conflict: '), r.text);
  for (const want of ['- Alpha nach ben', '- Beta nach anna', '- Gamma nach ben\n- Gamma nach anna', '- Delta, gemeinsam']) {
    assert.ok(r.text.includes(want), `missing ${want}:\n${r.text}`);
  }
});

for (const s of servers) await s.client.close();
console.log(`ts-sdk git: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
