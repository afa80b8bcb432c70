// End-to-end test of the owner's page in headless Chromium: Debian's
// /usr/bin/chromium driven by playwright-core (no Playwright browser
// download), with the official MCP TypeScript SDK as the agent over HTTP.
// Run by ../browser_test.go, which starts `vaultd serve --http`, makes the
// agent's key and a one-time sign-in link, and passes them in:
//
//   VAULTD_BASE=http://127.0.0.1:PORT VAULTD_LINK=… VAULTD_AGENT_KEY=vdk_…
//   VAULTD_VAULT=/path/to/vault VAULTD_ARTIFACTS=/dir/for/screenshots node page.mjs
//
// The last line is the summary the Go test looks for:
// "browser: N passed, M failed".

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { steps } from './steps.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BASE = process.env.VAULTD_BASE;
const LINK = process.env.VAULTD_LINK;
const KEY = process.env.VAULTD_AGENT_KEY;
const VAULT = process.env.VAULTD_VAULT;
const ART = process.env.VAULTD_ARTIFACTS;
for (const [k, v] of Object.entries({ BASE, LINK, KEY, VAULT, ART })) {
  if (!v) {
    console.error(`VAULTD_${k} is not set; run this through go test ./e2e -run TestBrowser`);
    process.exit(2);
  }
}
fs.mkdirSync(ART, { recursive: true });

const run = steps((name) => shot(`failed-${name.replace(/[^a-z0-9]+/gi, '-')}`));
const check = run.check;

function field(text, name) {
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    if (l.startsWith(`${name}: `)) return l.slice(name.length + 2).trim();
  }
  assert.fail(`no "${name}:" line in:\n${text}`);
}

async function connect(secret) {
  const client = new Client({ name: 'browser-e2e-agent', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(BASE + '/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  }));
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = r.content.map((c) => c.text ?? '').join('\n');
  assert.ok(!r.isError, `${name} failed:\n${text}`);
  return text;
}

const onDisk = (p) => fs.readFileSync(path.join(VAULT, p), 'utf8');
const exists = (p) => fs.existsSync(path.join(VAULT, p));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(10000);
const shot = (name) => page.screenshot({ path: path.join(ART, `${name}.png`), fullPage: true });

const BOOKS = '0_Inbox/Buchtipps.md';
const GARDEN = '1_Projekte/Garten.md';
const BED = '1_Projekte/Garten/Beet.md';
const booksBefore = onDisk(BOOKS);
const gardenBefore = onDisk(GARDEN);
const bedBefore = onDisk(BED);
let agent;

try {
  await check('the page without sign-in redirects to the sign-in page', async () => {
    const resp = await page.goto(BASE + '/');
    assert.equal(new URL(page.url()).pathname, '/signin');
    assert.equal(resp.status(), 200);
    await page.getByText('vaultd owner link').first().waitFor();
    await shot('1-signin-needed');
  });

  await check('sign in with the one-time link', async () => {
    await page.goto(LINK);
    await page.click('#signin');
    await page.waitForURL(BASE + '/');
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
  });

  await check('an agent appends and deletes; the Activity view shows both without a reload', async () => {
    agent = await connect(KEY);
    await call(agent, 'append_to_note', { path: BOOKS, content: '- Der Zauberberg', change_summary: 'added a book for the winter' });
    const rd = await call(agent, 'read_note', { path: GARDEN });
    await call(agent, 'delete_note', { path: GARDEN, change_summary: 'the garden plan is done', expected_version: field(rd, 'version') });
    assert.ok(!exists(GARDEN) && !exists(BED), 'the delete left the note or its sub-note on disk');
    // No reload: the page refreshes itself.
    await page.locator('li.change', { hasText: 'added a book for the winter' }).waitFor();
    await page.locator('li.change', { hasText: 'the garden plan is done' }).waitFor();
    await shot('2-activity');
  });

  await check('Undo the append: the file on disk is back', async () => {
    const row = page.locator('li.change', { hasText: 'added a book for the winter' });
    await row.locator('button.undo').click();
    await page.locator('.flash.ok', { hasText: 'Undone' }).waitFor();
    assert.equal(onDisk(BOOKS), booksBefore);
    await shot('3-undone');
  });

  await check("a note's history shows the changes with diffs", async () => {
    await page.goto(BASE + '/note?path=' + encodeURIComponent(BOOKS));
    await page.getByRole('heading', { name: `History of ${BOOKS}` }).waitFor();
    await page.locator('table.udiff', { hasText: 'Der Zauberberg' }).first().waitFor({ state: 'attached' });
    await shot('4-history');
  });

  await check("Activity filtered to one note, from the note's history a row links to", async () => {
    await page.goto(BASE + '/');
    await page.locator('li.change', { hasText: BOOKS }).first().locator('a.c-note').click();
    await page.waitForURL((u) => new URL(u).pathname === '/note');
    await page.locator('a.note-activity').click();
    await page.waitForURL((u) => new URL(u).searchParams.get('note') === BOOKS);
    await page.getByText(`Changes of ${BOOKS}, across its moves.`).waitFor();
    assert.equal(await page.locator('input[name=note]').inputValue(), BOOKS);
    assert.equal(await page.locator('li.change', { hasText: 'the garden plan is done' }).count(), 0, 'the note filter shows another note');
    await page.locator('li.change', { hasText: 'added a book for the winter' }).first().waitFor();
    await shot('9-activity-note-filter');
  });

  await check('compare two versions of a note, side by side and inline, with the keyboard', async () => {
    await page.goto(BASE + '/note?path=' + encodeURIComponent(BOOKS));
    await page.locator('details.compare-box > summary').click();
    const from = page.locator('form.compare select[name=from]');
    const options = await from.locator('option').count();
    assert.ok(options >= 2, `want at least two versions to compare, got ${options}`);
    await page.check('form.compare input[value=side]');
    await page.focus('#compare');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => new URL(u).pathname === '/note/diff');
    await page.getByRole('heading', { name: `Compare versions of ${BOOKS}` }).waitFor();
    await page.locator('table.sdiff td.del', { hasText: 'Der Zauberberg' }).waitFor();
    assert.match(await page.locator('#diffstat').textContent(), /0 lines added \(\+\), 2 removed/);
    await shot('10-diff-side-by-side');
    await page.check('form.compare input[value=inline]');
    await page.click('#compare');
    await page.locator('table.udiff tr.del', { hasText: 'Der Zauberberg' }).waitFor();
    await shot('11-diff-inline');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('12-diff-phone');
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  await check('Rules & health: the rules as agents get them, a refusal they caused, the index', async () => {
    const r = await agent.callTool({ name: 'append_to_note', arguments: { path: '4_Archiv/Sommerfest 2026.md', content: '- neu', change_summary: 'a line in the archive' } });
    assert.ok(r.isError, 'an append to a protected note was not refused');
    await page.click('nav >> text=Rules & health');
    await page.getByRole('heading', { name: 'Rules and health' }).waitFor();
    await page.locator('tr.refusal[data-kind=rule]', { hasText: '4_Archiv/Sommerfest 2026.md' }).waitFor();
    await page.locator('#index-state', { hasText: 'Healthy' }).waitFor();
    assert.match(await page.locator('#instructions').textContent(), /9_System/);
    await shot('13-health');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('14-health-phone');
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  await check('Restore the deleted note with one click: on disk with its sub-note', async () => {
    await page.click('nav >> text=Trash');
    const row = page.locator('tr', { hasText: GARDEN });
    await row.locator('button.restore').click();
    await page.locator('.flash.ok', { hasText: `Restored: ${GARDEN}` }).waitFor();
    assert.equal(onDisk(GARDEN), gardenBefore);
    assert.equal(onDisk(BED), bedBefore);
    await shot('5-trash-restored');
  });

  await check('create a key, connect with it, revoke it: the next call gets 401', async () => {
    await page.click('nav >> text=Connections');
    await page.fill('form.create input[name=name]', 'phone');
    await page.click('#create-key');
    const secret = (await page.locator('#secret').textContent()).trim();
    assert.match(secret, /^vdk_/);
    await page.getByText('claude mcp add --transport http notes').waitFor();
    await shot('6-key-created');
    const phone = await connect(secret);
    await call(phone, 'list_notes', { folder: '0_Inbox' });
    await page.goto(BASE + '/connections');
    await page.locator('tr[data-key=phone] button.revoke').click();
    await page.locator('.flash.ok', { hasText: 'Revoked phone' }).waitFor();
    await shot('7-key-revoked');
    let err;
    try {
      await phone.callTool({ name: 'list_notes', arguments: { folder: '0_Inbox' } });
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'the revoked key was served');
    assert.ok(err.code === 401 || String(err).includes('401'), `want 401, got ${err}`);
    await phone.close().catch(() => {});
  });

  await check('a forged cross-site POST is refused and changes nothing', async () => {
    await page.goto(BASE + '/');
    const id = await page.locator('li.change[data-change]').first().getAttribute('data-change');
    assert.ok(id, 'no change on the Activity view to aim the forgery at');
    // Another page on this machine (another port: the same site for the
    // browser, so even SameSite cookies go along) posts to the page.
    const evil = http.createServer((req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<form id="f" method="post" action="${BASE}/undo"><input name="change" value="${id}"><input name="csrf" value="guessed"></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const answered = page.waitForResponse((r) => r.url() === BASE + '/undo');
      await page.goto(`http://127.0.0.1:${evil.address().port}/`);
      const resp = await answered;
      assert.equal(resp.status(), 403);
      await page.getByText('did not come from this page').waitFor();
      await shot('8-forged-post-refused');
    } finally {
      evil.close();
    }
    assert.ok(exists(GARDEN) && exists(BED), 'the forged undo took the restored note away');
  });

  await check('German texts for a German browser', async () => {
    const de = await browser.newContext({ locale: 'de-DE' });
    const p = await de.newPage();
    await p.goto(BASE + '/');
    await p.getByRole('heading', { name: 'Anmelden' }).waitFor();
    await de.close();
  });
} finally {
  await agent?.close().catch(() => {});
  await browser.close();
}
console.log(`browser: ${run.passed} passed, ${run.failed} failed`);
process.exit(run.failed ? 1 : 0);
