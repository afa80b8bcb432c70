// The owner's page of a server of two vaults, work and team, in headless
// Chromium (Debian's /usr/bin/chromium driven by playwright-core; no
// Playwright browser download), with the official MCP TypeScript SDK as
// the agent over HTTP. The owner signs in, sees each vault's changes in
// that vault's Activity, switches vaults in the header (also without
// JavaScript), sees every vault's changes at once with each row naming
// its vault, undoes a change of team from there, and creates a key
// limited to team with read only — which sees team alone and may not
// write. The views are audited as views.mjs audits them (audit.mjs), in
// English and German, on a desktop and a phone.
//
// Run by ../browser_vaults_test.go:
//
//   VAULTD_BASE=http://127.0.0.1:PORT VAULTD_LINK=… VAULTD_AGENT_KEY=vdk_…
//   VAULTD_WORK=/path/to/work VAULTD_TEAM=/path/to/team VAULTD_ARTIFACTS=/dir node vaults.mjs
//
// The last line is "vaults: N passed, M failed".

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { steps } from './steps.mjs';
import { audit } from './audit.mjs';

const BASE = process.env.VAULTD_BASE;
const LINK = process.env.VAULTD_LINK;
const KEY = process.env.VAULTD_AGENT_KEY;
const WORK = process.env.VAULTD_WORK;
const TEAM = process.env.VAULTD_TEAM;
const ART = process.env.VAULTD_ARTIFACTS && path.join(process.env.VAULTD_ARTIFACTS, 'vaults');
for (const [k, v] of Object.entries({ BASE, LINK, KEY, WORK, TEAM, ART })) {
  if (!v) {
    console.error(`VAULTD_${k} is not set; run this through go test ./e2e -run TestBrowser_Vaults`);
    process.exit(2);
  }
}
fs.rmSync(ART, { recursive: true, force: true });
fs.mkdirSync(ART, { recursive: true });

const BOOKS = '0_Inbox/Buchtipps.md';
const WEEK = 'Onboarding/Erste Woche.md';
const inWork = (p) => fs.readFileSync(path.join(WORK, p), 'utf8');
const inTeam = (p) => fs.readFileSync(path.join(TEAM, p), 'utf8');

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

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(10000);
let current = page;
const shot = (name) => current.screenshot({ path: path.join(ART, `${name}.png`), fullPage: true });
const run = steps((name) => shot(`failed-${name.replace(/[^a-z0-9]+/gi, '-')}`));
const check = run.check;
const switcher = (p = page) => p.locator('nav.vaults');
const vaultOf = (p = page) => new URL(p.url()).searchParams.get('vault');

// audited opens a view in a language at both sizes, keeps a screenshot
// of each and audits it (audit.mjs).
const sizes = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
async function audited(p, lang, name, url) {
  for (const [size, vp] of Object.entries(sizes)) {
    await p.setViewportSize(vp);
    await p.goto(url);
    await p.screenshot({ path: path.join(ART, `${lang}-${size}-${name}.png`), fullPage: true });
    await audit(p, lang, `${lang} ${size} ${name}`);
  }
}

const booksBefore = inWork(BOOKS);
const weekBefore = inTeam(WEEK);
let agent;
let phone;

try {
  await check('sign in: the header names both vaults, the first one shown', async () => {
    await page.goto(LINK);
    await page.click('#signin');
    await page.waitForURL((u) => new URL(u).pathname === '/');
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await switcher().getByRole('link', { name: 'team' }).waitFor();
    assert.equal(await switcher().locator('[aria-current]').innerText(), 'work');
    assert.equal(await switcher().getByRole('link', { name: 'All vaults' }).count(), 1);
  });

  await check("an agent changes both vaults; each vault's Activity shows its own change", async () => {
    agent = await connect(KEY);
    await call(agent, 'append_to_note', { vault: 'work', path: BOOKS, content: '- Der Zauberberg', change_summary: 'a book for the winter' });
    await call(agent, 'append_to_note', { vault: 'team', path: WEEK, content: '- Zugang zum Wiki', change_summary: 'wiki access for new people' });
    // No reload: the page refreshes itself (its vault's newest change).
    await page.locator('li.change', { hasText: 'a book for the winter' }).waitFor();
    assert.equal(await page.locator('li.change', { hasText: 'wiki access for new people' }).count(), 0, "work's Activity shows team's change");
    await shot('1-work-activity');
  });

  await check("switch to team: its change, its note's history, links that stay in team", async () => {
    await switcher().getByRole('link', { name: 'team' }).click();
    await page.waitForURL((u) => new URL(u).searchParams.get('vault') === 'team');
    assert.equal(await switcher().locator('[aria-current]').innerText(), 'team');
    const row = page.locator('li.change', { hasText: 'wiki access for new people' });
    await row.waitFor();
    assert.equal(await page.locator('li.change', { hasText: 'a book for the winter' }).count(), 0, "team's Activity shows work's change");
    await shot('2-team-activity');
    await row.locator('a.c-note').click();
    await page.waitForURL((u) => new URL(u).pathname === '/note');
    assert.equal(vaultOf(), 'team');
    await page.getByRole('heading', { name: `History of ${WEEK}` }).waitFor();
    await page.locator('table.udiff', { hasText: 'Zugang zum Wiki' }).first().waitFor({ state: 'attached' });
    // The header's views stay in team.
    await page.click('nav.nav >> text=Trash');
    assert.equal(vaultOf(), 'team');
    assert.equal(await switcher().locator('[aria-current]').innerText(), 'team');
  });

  await check('All vaults: both changes, newest first, each naming its vault', async () => {
    await switcher().getByRole('link', { name: 'All vaults' }).click();
    await page.waitForURL((u) => new URL(u).searchParams.get('vault') === '*');
    const team = page.locator('li.change', { hasText: 'wiki access for new people' });
    const work = page.locator('li.change', { hasText: 'a book for the winter' });
    await team.waitFor();
    await work.waitFor();
    assert.match(await team.locator('.c-vault').innerText(), /team/);
    assert.match(await work.locator('.c-vault').innerText(), /work/);
    const texts = await page.locator('li.change .c-sum').allInnerTexts();
    assert.ok(texts.indexOf('wiki access for new people') < texts.indexOf('a book for the winter'), `not newest first: ${texts}`);
    assert.match(await team.locator('a.c-note').getAttribute('href'), /vault=team/);
    assert.match(await work.locator('a.c-note').getAttribute('href'), /vault=work/);
    await shot('3-all-vaults');
  });

  await check("Undo team's change from All vaults: team's file is back, work's untouched", async () => {
    const workNow = inWork(BOOKS);
    await page.locator('li.change', { hasText: 'wiki access for new people' }).locator('button.undo').click();
    await page.locator('.flash.ok', { hasText: 'Undone' }).waitFor();
    assert.equal(vaultOf(), '*', 'the undo did not come back to All vaults');
    assert.equal(inTeam(WEEK), weekBefore);
    assert.equal(inWork(BOOKS), workNow);
    assert.notEqual(inWork(BOOKS), booksBefore);
    await shot('4-undone-in-team');
  });

  await check('without JavaScript the switcher works too', async () => {
    const nojs = await browser.newContext({ locale: 'en-US', javaScriptEnabled: false });
    await nojs.addCookies(await context.cookies());
    const p = await nojs.newPage();
    current = p;
    await p.goto(BASE + '/');
    await switcher(p).getByRole('link', { name: 'team' }).click();
    await p.waitForURL((u) => new URL(u).searchParams.get('vault') === 'team');
    await p.locator('li.change', { hasText: 'wiki access for new people' }).first().waitFor();
    await shot('5-nojs-team');
    await nojs.close();
    current = page;
  });

  await check('create a key limited to team, read only: the list names team alone', async () => {
    await page.goto(BASE + '/?vault=team');
    await page.click('nav.nav >> text=Connections');
    assert.equal(vaultOf(), 'team');
    await page.fill('form.create input[name=name]', 'phone');
    await page.locator('form.create li.vault-choice[data-vault=work] input[type=checkbox]').uncheck();
    await page.locator('form.create select[name=rights_in_team]').selectOption('read');
    await page.click('#create-key');
    const secret = (await page.locator('#secret').textContent()).trim();
    assert.match(secret, /^vdk_/);
    const row = page.locator('tr[data-key=phone]');
    assert.equal((await row.locator('.in-vault').allInnerTexts()).join(' | '), 'team: read');
    assert.match((await page.locator('tr[data-key=agent] .in-vault').innerText()).trim(), /^every vault$/);
    await shot('6-key-for-team');
    phone = await connect(secret);
  });

  await check('the key sees team alone and may not write there', async () => {
    const overview = await call(phone, 'vault_overview', {});
    assert.match(overview, /vault: team/);
    assert.doesNotMatch(overview, /work/);
    const r = await phone.callTool({ name: 'append_to_note', arguments: { vault: 'team', path: WEEK, content: '- nein', change_summary: 'x' } });
    assert.ok(r.isError, 'a read-only key wrote in team');
    const w = await phone.callTool({ name: 'read_note', arguments: { vault: 'work', path: BOOKS } });
    assert.ok(w.isError, 'the key limited to team read a note of work');
    assert.equal(inTeam(WEEK), weekBefore);
  });

  await check("change the key's vaults on the list: work too, with read", async () => {
    const row = page.locator('tr[data-key=phone]');
    await row.locator('details.change-vaults > summary').click();
    await row.locator('li.vault-choice[data-vault=work] input[type=checkbox]').check();
    await row.locator('select[name=rights_in_work]').selectOption('read');
    await row.locator('button.set-vaults').click();
    await page.locator('.flash.ok', { hasText: 'phone now reaches' }).waitFor();
    assert.equal((await page.locator('tr[data-key=phone] .in-vault').allInnerTexts()).join(' | '), 'team: read | work: read');
    assert.match(await call(phone, 'read_note', { vault: 'work', path: BOOKS }), /Buchtipps/);
  });

  for (const lang of ['en', 'de']) {
    await check(`${lang}: the views of several vaults pass the audit (language, phone, names)`, async () => {
      const ctx = await browser.newContext({ locale: lang === 'de' ? 'de-DE' : 'en-US' });
      await ctx.addCookies(await context.cookies());
      const p = await ctx.newPage();
      current = p;
      await audited(p, lang, 'team-activity', BASE + '/?vault=team');
      await audited(p, lang, 'all-vaults', BASE + '/?vault=*');
      await audited(p, lang, 'connections', BASE + '/connections?vault=team');
      await audited(p, lang, 'unknown-vault', BASE + '/?vault=privat');
      if (lang === 'de') {
        await p.goto(BASE + '/?vault=*');
        await switcher(p).getByRole('link', { name: 'Alle Vaults' }).waitFor();
      }
      await ctx.close();
      current = page;
    });
  }
} finally {
  await agent?.close().catch(() => {});
  await phone?.close().catch(() => {});
  await browser.close();
}
console.log(`vaults: ${run.passed} passed, ${run.failed} failed`);
process.exit(run.failed ? 1 : 0);
