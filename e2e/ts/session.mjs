// End-to-end session against `vaultd serve` with the official MCP
// TypeScript SDK (the client Claude Code and Cursor are built on). It runs
// the same session as ../session_test.go and asserts on the TEXT of every
// result, as an agent reads it.
//
//   node session.mjs --bin /path/to/vaultd [--vault /path/to/example-vault]
//   VAULTD_BIN=/path/to/vaultd VAULTD_EXAMPLE_VAULT=… node session.mjs
//
// The example vault is copied into a temp dir for every server; the copy
// given is never written. The last line is the summary the Go test
// TestTypeScriptSDK looks for: "ts-sdk session: N passed, M failed".

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: argv } = parseArgs({
  options: { bin: { type: 'string' }, vault: { type: 'string' } },
});
const BIN = argv.bin ?? process.env.VAULTD_BIN;
const EXAMPLE = argv.vault ?? process.env.VAULTD_EXAMPLE_VAULT ?? path.resolve(here, '..', '..', 'example-vault');
if (!BIN) {
  console.error('usage: node session.mjs --bin PATH_TO_VAULTD [--vault EXAMPLE_VAULT] (or set VAULTD_BIN)');
  process.exit(2);
}

// The Go test passes the server's own tool table; run by hand, the core set.
const READ_TOOLS = (process.env.VAULTD_READ_TOOLS ?? 'get_backlinks,list_notes,list_trash,read_note,search_notes,vault_overview').split(',');
const WRITE_TOOLS = (process.env.VAULTD_WRITE_TOOLS ?? 'append_to_note,create_note,delete_note,replace_note,restore_note,update_section').split(',');

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultd-ts-e2e-'));
const servers = [];
const transportErrors = [];
let passed = 0;
let failed = 0;

// check runs one named step and counts it; a failure prints the reason
// and the server's stderr, and the session goes on.
async function check(name, fn, srv) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}\n${indent(err?.stack ?? String(err))}`);
    if (srv) console.log(`     vaultd stderr:\n${indent(srv.stderr())}`);
  }
}

function indent(s, prefix = '     | ') {
  return String(s).trimEnd().split('\n').map((l) => prefix + l).join('\n');
}

// copyVault copies the example vault into a fresh temp dir.
function copyVault() {
  const dst = fs.mkdtempSync(path.join(tmpRoot, 'vault-'));
  fs.cpSync(EXAMPLE, dst, {
    recursive: true,
    filter: (src) => !['.vaultd', '.trash'].includes(path.basename(src)),
  });
  return dst;
}

// start runs `vaultd serve` on a copy of the example vault and connects.
async function start(...extra) {
  const vault = copyVault();
  const state = fs.mkdtempSync(path.join(tmpRoot, 'state-'));
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['serve', '--vault', vault, '--state-dir', state, ...extra],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'vaultd-ts-e2e', version: '0.0.0' });
  // Any line on stdout that is not a JSON-RPC message ends up here.
  client.onerror = (err) => transportErrors.push(`${extra.join(' ') || 'default'}: ${err?.message ?? err}`);
  await client.connect(transport);
  const srv = {
    client, vault, stderr: () => stderr,
    // call returns what an agent sees: the text, and the isError flag.
    async call(name, args = {}) {
      const res = await client.callTool({ name, arguments: args });
      const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      assert.ok(text.trim() !== '', `${name}: the result has no text`);
      return { text, isError: res.isError === true };
    },
    async ok(name, args = {}) {
      const r = await this.call(name, args);
      assert.equal(r.isError, false, `${name} ${JSON.stringify(args)}: want success, got:\n${r.text}`);
      return r.text;
    },
    // waitIndexed waits until searches no longer say "index building".
    async waitIndexed() {
      const deadline = Date.now() + 20000;
      for (;;) {
        const r = await this.call('search_notes', { query: 'Klinikverbund' });
        if (!r.isError && !r.text.startsWith('index building')) return;
        if (Date.now() > deadline) throw new Error(`search index not ready after 20 s:\n${r.text}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    },
  };
  servers.push(srv);
  return srv;
}

// field returns the value of the first "name: value" line.
function field(text, name) {
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    if (l.startsWith(`${name}: `)) return l.slice(name.length + 2).trim();
  }
  return undefined;
}

function mustField(text, name) {
  const v = field(text, name);
  assert.ok(v, `no "${name}:" line in:\n${text}`);
  return v;
}

// parseCall reads `TOOL {json}` as the text spells a suggested call.
function parseCall(s) {
  const i = s.indexOf(' ');
  return { tool: s.slice(0, i), args: JSON.parse(s.slice(i + 1)) };
}

// fenced returns the note text inside read_note's ```markdown fence.
function fenced(text) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^`{3,}markdown$/.test(l));
  assert.ok(start >= 0, `no fenced content in:\n${text}`);
  const fence = lines[start].slice(0, -'markdown'.length);
  const end = lines.findIndex((l, i) => i > start && l === fence);
  assert.ok(end > start, `unterminated fence in:\n${text}`);
  return lines.slice(start + 1, end).join('\n') + '\n';
}

function includesAll(what, text, ...subs) {
  for (const s of subs) assert.ok(text.includes(s), `${what}: missing ${JSON.stringify(s)} in:\n${text}`);
}

function checkAnnotations(tools) {
  for (const t of tools) {
    const a = t.annotations ?? {};
    for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof a[k], 'boolean', `${t.name}: ${k} not set: ${JSON.stringify(a)}`);
    }
    assert.equal(a.openWorldHint, false, `${t.name}: openWorldHint`);
    assert.equal(a.readOnlyHint, READ_TOOLS.includes(t.name), `${t.name}: readOnlyHint`);
  }
}

try {
  // ---- the agent session, default rights (read, write) ----
  const s = await start();
  const st = {};

  await check('initialize: vaultd, instructions point to vault_overview', async () => {
    assert.equal(s.client.getServerVersion()?.name, 'vaultd');
    includesAll('instructions', s.client.getInstructions() ?? '', 'vault_overview', '1_Projekte');
  }, s);

  await check('tools/list: delete_note hidden by default; all four annotations set, openWorldHint false, readOnlyHint exactly for read tools', async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    assert.deepEqual(names, [...READ_TOOLS, ...WRITE_TOOLS.filter((n) => n !== 'delete_note')].sort());
    checkAnnotations(tools);
  }, s);

  await check('vault_overview names the spaces and the next call', async () => {
    const ov = await s.ok('vault_overview');
    includesAll('vault_overview', ov, 'spaces:', '- 1_Projekte (', '9_System/Regeln für Agenten.md', 'next: list_notes');
  }, s);

  await check('search_notes "Krankenhäuser" finds Klinikverbund Nord; the first hit gives a read: call', async () => {
    await s.waitIndexed();
    const sr = await s.ok('search_notes', { query: 'Krankenhäuser' });
    includesAll('search', sr, 'path: 1_Projekte/Klinikverbund Nord.md');
    const firstHit = sr.split('\n\n')[1] ?? '';
    assert.match(firstHit, /Krankenh/, `the first hit shows no Krankenhaus word:\n${sr}`);
    const next = parseCall(mustField(sr, 'read'));
    assert.equal(next.tool, 'read_note');
    assert.ok(next.args.path && next.args.heading, `read: line names no path and heading: ${JSON.stringify(next.args)}`);
    st.path = next.args.path;
    st.heading = next.args.heading;
  }, s);

  await check('read_note of the section the hit names', async () => {
    const rd = await s.ok('read_note', { path: st.path, heading: st.heading });
    assert.equal(mustField(rd, 'path'), st.path);
    // The hit names the section by the shortest heading that names it
    // alone; read_note answers with its full heading path.
    st.section = mustField(rd, 'section');
    assert.ok(st.section === st.heading || st.section.endsWith(' > ' + st.heading),
      `section ${JSON.stringify(st.section)} is not the heading the hit named, ${JSON.stringify(st.heading)}`);
    assert.match(fenced(rd), /Krankenh/);
    st.v1 = mustField(rd, 'version');
  }, s);

  await check('append_to_note under the heading; read back shows the line and a new version', async () => {
    st.line = '- 2026-11-30: Checkliste mit der IT des Klinikverbunds durchgesprochen (ts-e2e)';
    const ap = await s.ok('append_to_note', {
      path: st.path, heading: st.heading, content: st.line, change_summary: 'Abstimmung mit dem Klinikverbund ergänzt',
    });
    includesAll('append', ap, '(operation: append)', `section: ${st.section}`, `previous version: ${st.v1}`, 'recorded in history as change');
    st.v2 = mustField(ap, 'version');
    assert.notEqual(st.v2, st.v1);
    const back = await s.ok('read_note', { path: st.path, heading: st.heading });
    assert.equal(mustField(back, 'version'), st.v2);
    assert.ok(fenced(back).includes(st.line), `the appended line is not in:\n${back}`);
  }, s);

  await check('replace_note with the stale version is a conflict naming both versions and the re-read', async () => {
    const r = await s.call('replace_note', {
      path: st.path, content: '# ersetzt\n', change_summary: 'neu gegliedert', expected_version: st.v1,
    });
    assert.equal(r.isError, true, `want a conflict, got:\n${r.text}`);
    includesAll('conflict', r.text, 'error code: conflict', `expected version: ${st.v1}`, `current version: ${st.v2}`, 'next: read_note');
    assert.ok(!fs.readFileSync(path.join(s.vault, st.path), 'utf8').includes('# ersetzt'), 'the file was changed');
  }, s);

  await check('re-read, then replace_note with the current version succeeds', async () => {
    const whole = await s.ok('read_note', { path: st.path });
    const cur = mustField(whole, 'version');
    assert.equal(cur, st.v2);
    const content = fenced(whole);
    assert.equal(content, fs.readFileSync(path.join(s.vault, st.path), 'utf8'), 'the fenced text differs from the file');
    const next = content + '\n## Nachtrag\n\nNeu gegliedert im TypeScript-Test.\n';
    const rp = await s.ok('replace_note', { path: st.path, content: next, change_summary: 'Nachtrag angefügt', expected_version: cur });
    includesAll('replace', rp, '(operation: replace)', `path: ${st.path}`, `previous version: ${cur}`);
    assert.notEqual(mustField(rp, 'version'), cur);
    assert.equal(fs.readFileSync(path.join(s.vault, st.path), 'utf8'), next);
  }, s);

  await check('delete_note without the delete right is refused like help', async () => {
    const r = await s.call('delete_note', { path: st.path ?? '0_Inbox/Buchtipps.md', change_summary: 'weg', expected_version: '0' });
    assert.equal(r.isError, true, `want a permission error, got:\n${r.text}`);
    includesAll('denied', r.text, 'delete permission', 'vaultd serve --allow read,write,delete');
  }, s);

  // ---- deleting into the trash ----
  const d = await start('--allow', 'read,write,delete');
  await check('--allow read,write,delete: delete_note moves the note to .trash/ under its path; list_trash shows it', async () => {
    const p = '2_Bereiche/Garten/Gartenjahr 2026.md';
    const orig = fs.readFileSync(path.join(d.vault, p), 'utf8');
    const v = mustField(await d.ok('read_note', { path: p }), 'version');
    const del = await d.ok('delete_note', { path: p, change_summary: 'Gartenjahr abgeschlossen', expected_version: v });
    includesAll('delete', del, '(operation: delete)', `trash path: .trash/${p}`, 'undo: restore_note');
    assert.ok(!fs.existsSync(path.join(d.vault, p)), 'the note is still there');
    assert.equal(fs.readFileSync(path.join(d.vault, '.trash', p), 'utf8'), orig);
    const tr = await d.ok('list_trash');
    includesAll('list_trash', tr, `trash path: .trash/${p}`, `original path: ${p}`, `version: ${v}`);
  }, d);

  // ---- read-only ----
  const r = await start('--read-only');
  await check('--read-only: tools/list has exactly the read tools; create_note is refused naming the write permission', async () => {
    const { tools } = await r.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), READ_TOOLS);
    checkAnnotations(tools);
    const res = await r.call('create_note', { path: '0_Inbox/Neu.md', content: '---\ntags: [idee]\n---\n# Neu\n', change_summary: 'Idee festgehalten' });
    assert.equal(res.isError, true, `want a permission error, got:\n${res.text}`);
    includesAll('create_note', res.text, 'write permission', 'vaultd serve --allow');
    assert.ok(!fs.existsSync(path.join(r.vault, '0_Inbox', 'Neu.md')), 'the note was created');
  }, r);

  // ---- rate limit ----
  const l = await start('--writes-per-minute', '2');
  await check('--writes-per-minute 2: 10 writes pass (burst), then "rate limited" with "retry after"', async () => {
    let ok = 0;
    let limited = '';
    for (let i = 0; i < 12; i++) {
      const res = await l.call('append_to_note', { path: '0_Inbox/Buchtipps.md', content: `- Tipp ${i} (ts-e2e)`, change_summary: `Buchtipp ${i} ergänzt` });
      if (!res.isError) ok++;
      else if (res.text.includes('rate limited')) limited = res.text;
      else throw new Error(`append ${i}: unexpected error:\n${res.text}`);
    }
    assert.equal(ok, 10, 'successful writes');
    includesAll('rate limited', limited, 'rate limited', 'retry after', 'error code: rate_limited');
  }, l);

  await check('stdout carried only JSON-RPC messages (no transport or parse errors)', async () => {
    assert.deepEqual(transportErrors, []);
  });
} catch (err) {
  failed++;
  console.log(`FAIL session aborted\n${indent(err?.stack ?? String(err))}`);
} finally {
  for (const srv of servers) await srv.client.close().catch(() => {});
  fs.rmSync(tmpRoot, { recursive: true, force: true });
}

console.log(`ts-sdk session: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
