// End-to-end test of `vaultd serve --http` with the official MCP
// TypeScript SDK client (StreamableHTTPClientTransport, the transport Claude
// Code and Cursor use for remote servers): two access keys with different
// rights used at the same time, refusals (401 without or with a wrong key,
// 403 for a foreign Host or Origin), and a key revoked while its client is
// connected. Every assertion reads the TEXT of a result, as an agent does.
//
//   node http-session.mjs --bin /path/to/vaultd [--vault /path/to/example-vault]
//   VAULTD_BIN=/path/to/vaultd VAULTD_EXAMPLE_VAULT=… node http-session.mjs
//
// The example vault is copied into a temp dir; the copy given is never
// written. The last line is the summary the Go test TestHTTP_TypeScriptSDK
// looks for: "ts-sdk http: N passed, M failed".

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: argv } = parseArgs({
  options: { bin: { type: 'string' }, vault: { type: 'string' } },
});
const BIN = argv.bin ?? process.env.VAULTD_BIN;
const EXAMPLE = argv.vault ?? process.env.VAULTD_EXAMPLE_VAULT ?? path.resolve(here, '..', '..', 'example-vault');
if (!BIN) {
  console.error('usage: node http-session.mjs --bin PATH_TO_VAULTD [--vault EXAMPLE_VAULT] (or set VAULTD_BIN)');
  process.exit(2);
}
// The Go test passes the server's own tool tables; run by hand, the core set.
const READ_TOOLS = (process.env.VAULTD_READ_TOOLS ?? 'get_backlinks,list_notes,list_trash,read_note,search_notes,vault_overview').split(',');
const EXACT = process.env.VAULTD_READ_TOOLS !== undefined && process.env.VAULTD_RW_TOOLS !== undefined;
const RW_TOOLS = (process.env.VAULTD_RW_TOOLS ?? 'append_to_note,create_note,get_backlinks,list_notes,list_trash,read_note,replace_note,restore_note,search_notes,update_section,vault_overview').split(',');

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultd-ts-http-'));
const clients = [];
let passed = 0;
let failed = 0;
let serverLog = () => '';

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}\n${indent(err?.stack ?? String(err))}`);
    console.log(`     vaultd stderr:\n${indent(serverLog())}`);
  }
}

function indent(s, prefix = '     | ') {
  return String(s).trimEnd().split('\n').map((l) => prefix + l).join('\n');
}

function includesAll(what, text, ...subs) {
  for (const s of subs) assert.ok(text.includes(s), `${what}: missing ${JSON.stringify(s)} in:\n${text}`);
}

// The vault copy and its state dir, shared by the server and the key commands.
const vault = fs.mkdtempSync(path.join(tmpRoot, 'vault-'));
fs.cpSync(EXAMPLE, vault, { recursive: true, filter: (src) => !['.vaultd', '.trash'].includes(path.basename(src)) });
const state = fs.mkdtempSync(path.join(tmpRoot, 'state-'));

function vaultd(...args) {
  return execFileSync(BIN, [...args, '--vault', vault, '--state-dir', state], { encoding: 'utf8' });
}

function createKey(name, rights) {
  const k = JSON.parse(vaultd('keys', 'create', name, '--allow', rights, '--json'));
  assert.match(k.secret, /^vdk_[A-Za-z0-9_-]{43}$/);
  return k.secret;
}

// startServer runs `vaultd serve --http 127.0.0.1:0` and resolves with its URL.
function startServer() {
  const proc = spawn(BIN, ['serve', '--vault', vault, '--state-dir', state, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  serverLog = () => stderr;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "serving over http" line after 20 s:\n${stderr}`)), 20000);
    proc.stderr.on('data', (d) => {
      stderr += d;
      const m = /msg="serving over http" url=(http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    });
    proc.on('exit', (code) => reject(new Error(`vaultd exited (${code}) before listening:\n${stderr}`)));
  });
}

// connect opens an SDK client with a key (no header for null).
async function connect(url, secret, name) {
  const headers = secret === null ? {} : { Authorization: `Bearer ${secret}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return {
    client,
    async call(tool, args = {}) {
      const res = await client.callTool({ name: tool, arguments: args });
      const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      assert.ok(text.trim() !== '', `${tool}: the result has no text`);
      return { text, isError: res.isError === true };
    },
    async ok(tool, args = {}) {
      const r = await this.call(tool, args);
      assert.equal(r.isError, false, `${tool} ${JSON.stringify(args)}: want success, got:\n${r.text}`);
      return r.text;
    },
  };
}

// rawPost sends an initialize request with the given headers (node:http,
// because fetch may not set Host) and resolves with status, headers, body.
function rawPost(url, headers) {
  const u = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// refused expects a promise to fail with an HTTP status.
async function refused(promise, status, ...subs) {
  try {
    await promise;
  } catch (err) {
    const code = err instanceof StreamableHTTPError ? err.code : undefined;
    assert.equal(code, status, `want HTTP ${status}, got ${err?.constructor?.name}: ${err?.message}`);
    includesAll('refusal', err.message, ...subs);
    return;
  }
  assert.fail(`want HTTP ${status}, got success`);
}

let server;
try {
  const readerKey = createKey('reader', 'read');
  const writerKey = createKey('writer', 'read,write');
  const tempKey = createKey('temp', 'read');
  server = await startServer();
  const { url } = server;

  const reader = await connect(url, readerKey, 'ts-reader');
  const writer = await connect(url, writerKey, 'ts-writer');

  await check('two keys at once: each tools/list shows exactly its rights', async () => {
    const [r, w] = await Promise.all([reader.client.listTools(), writer.client.listTools()]);
    const rn = r.tools.map((t) => t.name);
    const wn = w.tools.map((t) => t.name);
    if (EXACT) {
      assert.deepEqual(rn, READ_TOOLS);
      assert.deepEqual(wn, RW_TOOLS);
    } else { // run by hand: the core tools
      for (const n of READ_TOOLS) assert.ok(rn.includes(n) && wn.includes(n), `${n} missing`);
      for (const n of RW_TOOLS) assert.ok(wn.includes(n), `${n} missing for the writer`);
    }
    for (const n of ['append_to_note', 'create_note', 'replace_note', 'update_section', 'delete_note']) {
      assert.ok(!rn.includes(n), `the read-only key sees ${n}`);
    }
    assert.ok(!wn.includes('delete_note'), 'the read,write key sees delete_note');
  });

  await check('two keys at once: the reader searches while the writer appends; the reader then finds the append', async () => {
    const line = '- Zqxhttptipp: Das Buch über Streams (ts-http)';
    const [sr, ap] = await Promise.all([
      reader.ok('search_notes', { query: 'Krankenhäuser' }),
      writer.ok('append_to_note', { path: '0_Inbox/Buchtipps.md', content: line, change_summary: 'Buchtipp über HTTP ergänzt' }),
      reader.ok('read_note', { path: '1_Projekte/Klinikverbund Nord.md' }),
      writer.ok('vault_overview'),
    ]);
    includesAll('search', sr, 'path: 1_Projekte/Klinikverbund Nord.md');
    includesAll('append', ap, '(operation: append)', 'path: 0_Inbox/Buchtipps.md', 'recorded in history as change');
    const found = await reader.ok('search_notes', { query: 'zqxhttptipp' });
    includesAll('reader finds the writer\'s append', found, 'path: 0_Inbox/Buchtipps.md');
  });

  await check('the writer is "key:writer:ts-writer" in the history: the key, then the client\'s own name', async () => {
    const hist = vaultd('history', '0_Inbox/Buchtipps.md', '--json');
    includesAll('history', hist, '"key:writer:ts-writer"', 'Buchtipp über HTTP ergänzt');
    includesAll('history --by key:writer (every client of the key)', vaultd('history', '0_Inbox/Buchtipps.md', '--by', 'key:writer'), 'Buchtipp über HTTP ergänzt');
  });

  await check('a tool outside the key\'s rights: the permission error, naming the key command', async () => {
    const r = await reader.call('append_to_note', { path: '0_Inbox/Buchtipps.md', content: 'nein', change_summary: 'soll scheitern' });
    assert.equal(r.isError, true, `want a permission error, got:\n${r.text}`);
    includesAll('denied', r.text, 'permission denied: append_to_note needs the write permission', 'vaultd keys create NAME --allow read,write');
    assert.ok(!fs.readFileSync(path.join(vault, '0_Inbox/Buchtipps.md'), 'utf8').includes('nein\n'), 'the note was changed');
  });

  await check('401 without a key: the SDK client is refused, the message says how to get a key', async () => {
    await refused(connect(url, null, 'ts-nokey'), 401, 'needs an access key', 'vaultd keys create NAME --allow read');
    const raw = await rawPost(url, {});
    assert.equal(raw.status, 401);
    // It names where an OAuth client finds how to sign in (RFC 9728).
    const prm = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(raw.headers['www-authenticate'], `Bearer realm="vaultd", resource_metadata="${prm}"`);
  });

  await check('401 with a wrong key, WWW-Authenticate says invalid_token', async () => {
    await refused(connect(url, 'vdk_wrongwrongwrongwrongwrongwrongwrongwrongwro', 'ts-wrong'), 401, 'unknown or was revoked');
    const raw = await rawPost(url, { Authorization: 'Bearer vdk_wrong' });
    assert.equal(raw.status, 401);
    const prm = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(raw.headers['www-authenticate'], `Bearer realm="vaultd", error="invalid_token", resource_metadata="${prm}"`);
  });

  await check('403 for a foreign Host (DNS rebinding), even with a valid key', async () => {
    const port = new URL(url).port;
    // The Host must be this server exactly: a loopback name and its port.
    for (const host of ['evil.example', 'evil.example:8765', '192.168.1.10:8765', `localhost:${port}.evil.example`, 'localhost:1', 'localhost']) {
      const raw = await rawPost(url, { Host: host, Authorization: `Bearer ${readerKey}` });
      assert.equal(raw.status, 403, `Host ${host}: ${raw.status} ${raw.body}`);
      includesAll(`Host ${host}`, raw.body, 'Host header');
    }
  });

  await check('403 for a foreign Origin (a web page), even with a valid key; local origins pass', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Origin: origin, Authorization: `Bearer ${readerKey}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(res.status, 403, `Origin ${origin}: ${res.status}`);
      includesAll(`Origin ${origin}`, await res.text(), 'web page');
    }
    const local = await rawPost(url, { Host: `localhost:${new URL(url).port}`, Origin: 'http://127.0.0.1:5173', Authorization: `Bearer ${readerKey}` });
    assert.equal(local.status, 200, `local origin: ${local.status} ${local.body}`);
  });

  await check('a key revoked while its client is connected is refused on its next call; the others go on', async () => {
    const temp = await connect(url, tempKey, 'ts-temp');
    await temp.ok('vault_overview');
    assert.match(vaultd('keys', 'revoke', 'temp'), /revoked access key "temp"/);
    await refused(temp.call('vault_overview'), 401, 'unknown or was revoked');
    await reader.ok('vault_overview');
    await writer.ok('vault_overview');
  });

  await check('keys list shows when each key was last used, never a secret', async () => {
    const list = vaultd('keys', 'list');
    assert.match(list, /^reader +read +\S+ \S+ +\d{4}-\d\d-\d\d \d\d:\d\d +server defaults$/m);
    assert.match(list, /^writer +read,write +/m);
    assert.ok(!list.includes('vdk_'), list);
  });
} catch (err) {
  failed++;
  console.log(`FAIL session aborted\n${indent(err?.stack ?? String(err))}`);
  console.log(`     vaultd stderr:\n${indent(serverLog())}`);
} finally {
  for (const c of clients) await c.close().catch(() => {});
  if (server) {
    const exited = new Promise((res) => server.proc.on('exit', res));
    server.proc.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(tmpRoot, { recursive: true, force: true });
}

console.log(`ts-sdk http: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
