// One `vaultd serve` for three vaults (work, privat, team), driven by the
// official MCP TypeScript SDK the way an agent works across them: over
// stdio, the vault argument, the overview of the vaults, a search across
// them whose "read:" calls are sent as printed, NAME:path reads and writes,
// the errors of a wrong vault, of a note held by another vault, of a name
// two vaults hold and of one none holds (each followed by the call it
// suggests), resources named vault://note/NAME:path, a prompt given
// NAME:path, and each vault's rules on its own writes; over HTTP, a key
// limited to team that sees nothing of the other two (subscriptions
// included). Every assertion reads the TEXT of a result, as an agent does.
//
//   node vaults-session.mjs --bin VAULTD --work DIR --privat DIR --team DIR
//
// The vaults are written (the Go test TestTypeScriptSDK_Vaults makes fresh
// ones and checks the files afterwards); their state dirs are the default,
// <vault>/.vaultd, so that the access keys live with the first vault, work.
// The last line is "ts-sdk vaults: N passed, M failed".

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { values: a } = parseArgs({
  options: {
    bin: { type: 'string' }, work: { type: 'string' }, privat: { type: 'string' }, team: { type: 'string' },
  },
});
for (const k of ['bin', 'work', 'privat', 'team']) {
  if (!a[k]) {
    console.error(`missing --${k}`);
    process.exit(2);
  }
}
const VAULTS = ['work', 'privat', 'team'];
const vaultFlags = VAULTS.flatMap((n) => ['--vault', `${n}=${a[n]}`]);

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

function includesNone(what, text, ...subs) {
  for (const s of subs) assert.ok(!text.includes(s), `${what}: ${JSON.stringify(s)} should not appear in:\n${text}`);
}

// session wraps an SDK client: call returns a result's text, ok wants success.
function session(client) {
  return {
    client,
    async call(tool, args = {}) {
      const res = await client.callTool({ name: tool, arguments: args });
      const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      assert.ok(text.trim() !== '', `${tool}: the result has no text`);
      return { text, isError: res.isError === true, structured: res.structuredContent };
    },
    async ok(tool, args = {}) {
      const r = await this.call(tool, args);
      assert.equal(r.isError, false, `${tool} ${JSON.stringify(args)}: want success, got:\n${r.text}`);
      return r;
    },
    // send sends a call as an answer prints it ("read_note {…}"), literally.
    async send(line) {
      const { tool, args } = parseCall(line);
      return this.call(tool, args);
    },
    async resources() {
      const all = [];
      let cursor;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        all.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    },
  };
}

// parseCall splits a suggested call, `tool {json}`, into its parts.
function parseCall(line) {
  const m = /^([a-z_]+) (\{.*\})$/.exec(line.trim());
  assert.ok(m, `not a call: ${JSON.stringify(line)}`);
  return { tool: m[1], args: JSON.parse(m[2]) };
}

// field is the value of the first "name: value" line.
function field(text, name) {
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    if (l.startsWith(`${name}: `)) return l.slice(name.length + 2).trim();
  }
  return undefined;
}

function firstLine(text) {
  return text.split('\n')[0];
}

// hits splits a search answer into its hits: each block with a path line.
function hits(text) {
  return text.split('\n\n').filter((b) => b.startsWith('path: ')).map((b) => ({
    path: field(b, 'path'), vault: field(b, 'vault'), read: field(b, 'read'), block: b,
  }));
}

// wantNote checks a read_note answer: the vault it came from and the path.
function wantNote(r, vault, path) {
  assert.equal(r.isError, false, `want the note ${vault}:${path}, got:\n${r.text}`);
  assert.equal(firstLine(r.text), `vault: ${vault}`, r.text);
  assert.equal(field(r.text, 'path'), path, r.text);
}

// ---- stdio ----

const transport = new StdioClientTransport({
  command: a.bin,
  args: ['serve', ...vaultFlags, '--no-sync'],
  env: { ...process.env },
  stderr: 'pipe',
});
let stdioErr = '';
transport.stderr?.on('data', (d) => { stdioErr += d; });
serverLog = () => stdioErr;
const client = new Client({ name: 'vaultd-ts-vaults', version: '0.0.0' });
await client.connect(transport);
const s = session(client);

await check('tools/list: every tool takes an optional "vault" string', async () => {
  const { tools } = await client.listTools();
  assert.ok(tools.length > 10, `only ${tools.length} tools`);
  for (const t of tools) {
    assert.equal(t.inputSchema?.properties?.vault?.type, 'string', `${t.name}: no "vault" string property in ${JSON.stringify(t.inputSchema)}`);
    assert.ok(!(t.inputSchema.required ?? []).includes('vault'), `${t.name}: "vault" is required`);
  }
});

await check('prompts take NAME:path, and every call they name names the vault', async () => {
  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === 'summarize_note'), `no summarize_note: ${prompts.map((p) => p.name)}`);
  const got = await client.getPrompt({ name: 'summarize_note', arguments: { path: 'team:Onboarding/Erste Woche.md' } });
  const text = got.messages.map((m) => m.content?.text ?? '').join('\n');
  includesAll('summarize_note', text, 'read_note {"vault": "team", "path": "Onboarding/Erste Woche.md"}');
});

await check('vault_overview {} lists the three vaults, each with its own overview call, which works', async () => {
  const r = await s.ok('vault_overview');
  assert.match(firstLine(r.text), /^this server serves 3 vaults; /);
  for (const n of VAULTS) {
    includesAll('overview', r.text, `- vault: ${n}\n`, `overview: vault_overview {"vault": "${n}"}`);
  }
  includesAll('overview', r.text, 'search every vault: search_notes {"query": "…"}');
  const block = r.text.split('\n\n').find((b) => b.startsWith('- vault: team\n'));
  const team = await s.send(field(block, 'overview'));
  assert.equal(team.isError, false, team.text);
  assert.equal(firstLine(team.text), 'vault: team', team.text);
  includesAll('team overview', team.text, 'Onboarding');
  includesNone('team overview', team.text, '1_Projekte', 'Finanzen/Steuer');
});

await check('search_notes without vault searches all three; every hit\'s read call works as printed', async () => {
  const r = await s.ok('search_notes', { query: 'Zugangsdaten' });
  assert.equal(firstLine(r.text), 'searched 3 vaults: work, privat, team');
  const hs = hits(r.text);
  assert.ok(hs.length >= 3, `want hits, got:\n${r.text}`);
  const seen = new Set(hs.map((h) => h.vault));
  assert.ok(seen.size >= 2, `hits from ${[...seen].join(', ')} only:\n${r.text}`);
  for (const n of ['privat', 'team']) assert.ok(seen.has(n), `no hit in ${n}:\n${r.text}`);
  for (const h of hs) {
    assert.ok(VAULTS.includes(h.vault), `a hit without its vault line:\n${h.block}`);
    assert.ok(h.read?.startsWith(`read_note {"vault": "${h.vault}", `), `the read call does not name the vault:\n${h.block}`);
    const got = await s.send(h.read);
    wantNote(got, h.vault, h.path);
  }
  const sh = r.structured?.hits ?? [];
  assert.equal(sh.length, hs.length, JSON.stringify(r.structured));
  for (const [i, h] of sh.entries()) {
    assert.equal(h.vault, hs[i].vault, `structured hit ${i}: ${JSON.stringify(h)}`);
    assert.equal(h.path, hs[i].path);
  }
});

const appended = '- Zqxvaults: Schlüssel am Empfang abholen (ts-vaults)';
await check('NAME:path reads and writes in that vault: append to team:Onboarding/Erste Woche.md, read it back', async () => {
  const before = await s.call('read_note', { path: 'team:Onboarding/Erste Woche.md' });
  wantNote(before, 'team', 'Onboarding/Erste Woche.md');
  includesAll('read', before.text, 'Laptop abholen, Konten anlegen.');
  const ap = await s.ok('append_to_note', { path: 'team:Onboarding/Erste Woche.md', content: appended, change_summary: 'Schlüssel ergänzt' });
  assert.equal(firstLine(ap.text), 'vault: team', ap.text);
  includesAll('append', ap.text, 'path: Onboarding/Erste Woche.md');
  const after = await s.call('read_note', { path: 'team:Onboarding/Erste Woche.md' });
  wantNote(after, 'team', 'Onboarding/Erste Woche.md');
  includesAll('read after the append', after.text, 'Laptop abholen, Konten anlegen.', appended);
  const found = await s.ok('search_notes', { query: 'zqxvaults' });
  const fh = hits(found.text);
  assert.deepEqual(fh.map((h) => `${h.vault}:${h.path}`), ['team:Onboarding/Erste Woche.md'], found.text);
});

await check('a wrong vault name: the error lists the vaults, and its first suggested call reaches the note', async () => {
  const r = await s.call('read_note', { vault: 'tem', path: 'Erste Woche' });
  assert.equal(r.isError, true, r.text);
  includesAll('wrong vault', r.text, 'error: vault "tem": there is no such vault', 'vaults: work, privat, team');
  const lines = r.text.split('\n');
  const i = lines.indexOf('Send the call again in one of them:');
  assert.ok(i >= 0 && lines[i + 1], `no suggested call:\n${r.text}`);
  const got = await s.send(lines[i + 1]); // the second call reaches the note
  wantNote(got, 'team', 'Onboarding/Erste Woche.md');
});

await check('a note the named vault lacks but another has: the error names it, and its next: call reads it', async () => {
  const r = await s.call('read_note', { vault: 'work', path: 'Steuer 2026' });
  assert.equal(r.isError, true, r.text);
  // An error's first line is the error (clients tell errors by it); the
  // vault follows its error code.
  assert.match(r.text, /^error: [^\n]*\nerror code: not_found\nvault: work\n/, r.text);
  const call = 'read_note {"vault": "privat", "path": "Steuer 2026"}';
  includesAll('note in another vault', r.text, 'error code: not_found', `vault privat has "Steuer 2026": ${call}`);
  assert.equal(field(r.text, 'next'), call, r.text);
  wantNote(await s.send(field(r.text, 'next')), 'privat', 'Finanzen/Steuer 2026.md');
});

await check('a name two vaults hold: error ambiguous, one call per vault, each reads its own note', async () => {
  const r = await s.call('read_note', { path: 'Zugangsdaten' });
  assert.equal(r.isError, true, r.text);
  includesAll('ambiguous', r.text, '"Zugangsdaten" is in 2 vaults (privat, team)', 'error code: ambiguous');
  assert.deepEqual(r.structured?.vaults, ['privat', 'team'], JSON.stringify(r.structured));
  for (const n of ['privat', 'team']) {
    const call = `read_note {"vault": "${n}", "path": "Zugangsdaten"}`;
    assert.ok(r.text.split('\n').includes(call), `missing ${call}:\n${r.text}`);
    wantNote(await s.send(call), n, 'Zugangsdaten.md');
  }
});

await check('a name no vault holds: the closest notes by vault, each a call that works', async () => {
  const r = await s.call('read_note', { path: 'Onbording/Erste Wohce' });
  assert.equal(r.isError, true, r.text);
  includesAll('in none', r.text, 'is in none of the 3 vaults (work, privat, team)', 'closest, by vault:');
  const line = r.text.split('\n').find((l) => l.startsWith('- team: '));
  assert.ok(line, `no closest note in team:\n${r.text}`);
  wantNote(await s.send(line.slice('- team: '.length)), 'team', 'Onboarding/Erste Woche.md');
});

await check('resources/list: every URI is vault://note/NAME: or vault://file/NAME:, all three vaults; one reads', async () => {
  const rs = await s.resources();
  const re = /^vault:\/\/(note|file)\/(work|privat|team):/;
  for (const r of rs) assert.match(r.uri, re);
  const seen = new Set(rs.map((r) => re.exec(r.uri)[2]));
  assert.deepEqual([...seen].sort(), ['privat', 'team', 'work']);
  const uri = rs.map((r) => r.uri).find((u) => decodeURIComponent(u) === 'vault://note/team:Onboarding/Erste Woche.md');
  assert.ok(uri, `team:Onboarding/Erste Woche.md not listed: ${rs.filter((r) => r.uri.includes('team:')).map((r) => r.uri).join(', ')}`);
  const got = await client.readResource({ uri });
  assert.equal(got.contents.length, 1);
  includesAll('resource', got.contents[0].text, '# Erste Woche', appended);
});

await check('rules per vault: privat protects Finanzen/, team does not; the built-in 9_System/ holds in work', async () => {
  const steuer = await s.call('append_to_note', { path: 'privat:Finanzen/Steuer 2026.md', content: '- Zqxsteuer: Quittung (ts-vaults)', change_summary: 'Beleg ergänzt' });
  assert.equal(steuer.isError, true, `privat's protected Finanzen/ was written:\n${steuer.text}`);
  includesAll('privat protected', steuer.text, 'vault: privat', 'is protected', '"Finanzen/**" in 9_System/Regeln.md');
  const budget = await s.call('append_to_note', { vault: 'team', path: 'Finanzen/Budget.md', content: '- Zqxbudget: Weihnachtsfeier 300 Euro (ts-vaults)', change_summary: 'Budget ergänzt' });
  assert.equal(budget.isError, false, `team's Finanzen/ is not protected, got:\n${budget.text}`);
  assert.equal(firstLine(budget.text), 'vault: team', budget.text);
  const sys = await s.call('append_to_note', { path: 'work:9_System/Schreibstil.md', content: 'nein', change_summary: 'soll scheitern' });
  assert.equal(sys.isError, true, `work:9_System/ was written:\n${sys.text}`);
  includesAll('work 9_System', sys.text, 'vault: work', 'is protected');
});

await check('rules per vault: work requires tags on new notes, privat does not', async () => {
  const content = '# Packliste Herbst\n\n- Regenjacke\n- Wanderschuhe\n';
  const w = await s.call('create_note', { vault: 'work', path: '0_Inbox/Packliste Herbst.md', content, change_summary: 'Packliste angelegt' });
  assert.equal(w.isError, true, `work created a note without tags:\n${w.text}`);
  includesAll('work required_properties', w.text, 'vault: work', 'tags');
  const p = await s.call('create_note', { vault: 'privat', path: 'Reisen/Packliste Herbst.md', content, change_summary: 'Packliste angelegt' });
  assert.equal(p.isError, false, `privat refused a note without tags:\n${p.text}`);
  assert.equal(firstLine(p.text), 'vault: privat', p.text);
  wantNote(await s.call('read_note', { path: 'Packliste Herbst' }), 'privat', 'Reisen/Packliste Herbst.md');
});

await client.close();

// ---- HTTP, with a key limited to team ----

function vaultd(...args) {
  // Keys live with the first vault served: its default state dir.
  return execFileSync(a.bin, [...args, '--vault', a.work], { encoding: 'utf8' });
}

function startServer() {
  const proc = spawn(a.bin, ['serve', ...vaultFlags, '--no-sync', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  serverLog = () => stderr;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "serving over http" line after 60 s:\n${stderr}`)), 60000);
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

const clients = [];
async function connect(url, secret, name) {
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
  const c = new Client({ name, version: '0.0.0' });
  await c.connect(t);
  clients.push(c);
  return session(c);
}

// Words of the other vaults' notes that must not reach the team key.
const FOREIGN = ['vault: work', 'vault: privat', '"work"', '"privat"', '0_Inbox', '1_Projekte', '3_Ressourcen', 'IT-Handbuch', 'Kundenübersicht', 'Steuer', 'Hochbeet', 'Sommerurlaub'];

let server;
try {
  let key;
  await check('vaultd keys create --only team=read: a key limited to team', async () => {
    const k = JSON.parse(vaultd('keys', 'create', 'team-leser', '--allow', 'read', '--only', 'team=read', '--json'));
    assert.match(k.secret, /^vdk_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(k.vaults, { team: 'read' });
    key = k.secret;
  });
  const all = JSON.parse(vaultd('keys', 'create', 'alle', '--allow', 'read', '--json')).secret;
  server = await startServer();
  const t = await connect(server.url, key, 'ts-team');
  const full = await connect(server.url, all, 'ts-alle');

  await check('http, key of every vault: vault_overview lists the three (the contrast)', async () => {
    const r = await full.ok('vault_overview');
    assert.match(firstLine(r.text), /^this server serves 3 vaults; /);
  });

  await check('http, team key: tools/list has the read tools only, each with "vault"', async () => {
    const { tools } = await t.client.listTools();
    const names = tools.map((x) => x.name);
    for (const n of ['read_note', 'search_notes', 'vault_overview']) assert.ok(names.includes(n), `${n} missing: ${names}`);
    for (const n of ['append_to_note', 'create_note', 'replace_note', 'delete_note']) assert.ok(!names.includes(n), `the read key sees ${n}`);
  });

  await check('http, team key: vault_overview shows team alone', async () => {
    const r = await t.ok('vault_overview');
    assert.equal(firstLine(r.text), 'vault: team', r.text);
    includesAll('overview', r.text, 'Onboarding');
    includesNone('overview', r.text, 'serves 3 vaults', ...FOREIGN);
    assert.doesNotMatch(r.text, /\bwork\b|\bprivat\b/);
  });

  await check('http, team key: search finds team\'s notes only, and its read calls work', async () => {
    const r = await t.ok('search_notes', { query: 'Zugangsdaten' });
    includesNone('search', r.text, 'searched 3 vaults', ...FOREIGN);
    assert.doesNotMatch(r.text, /\bwork\b|\bprivat\b/);
    const hs = hits(r.text);
    assert.ok(hs.length >= 1, `no hit:\n${r.text}`);
    for (const h of hs) {
      assert.ok(h.vault === undefined || h.vault === 'team', `a hit of ${h.vault}:\n${h.block}`);
      assert.ok(h.read, `no read call:\n${h.block}`);
      const got = await t.send(h.read);
      assert.equal(got.isError, false, got.text);
      assert.equal(firstLine(got.text), 'vault: team', got.text);
    }
    for (const h of r.structured?.hits ?? []) assert.ok(h.vault === undefined || h.vault === 'team', JSON.stringify(h));
    assert.ok(hs.some((h) => h.path === 'Zugangsdaten.md'), r.text);
  });

  await check('http, team key: resources/list names team\'s files only', async () => {
    const rs = await t.resources();
    assert.ok(rs.length >= 4, `${rs.length} resources`);
    for (const r of rs) assert.match(r.uri, /^vault:\/\/(note|file)\/team:/);
  });

  await check('http, team key: subscriptions to team\'s notes are taken, to work\'s refused', async () => {
    await t.client.subscribeResource({ uri: 'vault://note/team:Zugangsdaten.md' });
    await assert.rejects(t.client.subscribeResource({ uri: 'vault://note/work:3_Ressourcen/IT-Handbuch.md' }), (err) => {
      const msg = String(err?.message);
      includesAll('refusal', msg, 'the vaults: team;');
      includesNone('refusal', msg, 'privat', 'work,', '0_Inbox');
      return true;
    }, 'a team key subscribed to a note of work');
  });

  await check('http, team key: naming work or privat is answered as no such vault, without their notes', async () => {
    const r = await t.call('read_note', { vault: 'work', path: 'Kundenuebersicht' });
    assert.equal(r.isError, true, r.text);
    includesAll('work', r.text, 'error: vault "work": there is no such vault', 'vaults: team');
    includesNone('work', r.text, '2_Bereiche', 'Kundenübersicht', 'vault: privat', '"privat"');
    const p = await t.call('read_note', { path: 'privat:Finanzen/Steuer 2026.md' });
    assert.equal(p.isError, true, p.text);
    includesNone('privat:path', p.text, 'Handwerkerrechnung', 'vault privat has', 'vault: privat');
    const q = await t.call('read_note', { path: 'Steuer 2026' });
    assert.equal(q.isError, true, q.text);
    includesNone('no vault', q.text, 'privat', 'Finanzen/Steuer', 'Handwerkerrechnung');
  });
} catch (err) {
  failed++;
  console.log(`FAIL http session aborted\n${indent(err?.stack ?? String(err))}`);
  console.log(`     vaultd stderr:\n${indent(serverLog())}`);
} finally {
  for (const c of clients) await c.close().catch(() => {});
  if (server) {
    const exited = new Promise((res) => server.proc.on('exit', res));
    server.proc.kill('SIGTERM');
    await exited;
  }
}

console.log(`ts-sdk vaults: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
