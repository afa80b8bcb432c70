// Every view of the owner's page, in English and in German, on a desktop
// (1280×900) and on a phone (390×844), in headless Chromium (Debian's
// /usr/bin/chromium driven by playwright-core; no Playwright browser
// download). An agent (the official MCP TypeScript SDK over HTTP) makes
// the changes first; then each view — and each refusal — is opened, kept
// as a screenshot, and audited (audit.mjs): no text of the other
// language, no sideways scrolling, nothing interactive below 44 px on the
// phone, nothing interactive without an accessible name. Last, the ways
// forward the refusals offer are followed, and the page is read without
// JavaScript.
//
// Run by ../browser_views_test.go:
//
//   VAULTD_BASE=http://127.0.0.1:PORT VAULTD_LINK=… VAULTD_AGENT_KEY=vdk_…
//   VAULTD_VAULT=/path/to/vault VAULTD_ARTIFACTS=/dir node views.mjs
//
// The last line is "views: N passed, M failed".

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
const VAULT = process.env.VAULTD_VAULT;
const ART = process.env.VAULTD_ARTIFACTS && path.join(process.env.VAULTD_ARTIFACTS, 'views');
for (const [k, v] of Object.entries({ BASE, LINK, KEY, VAULT, ART })) {
  if (!v) {
    console.error(`VAULTD_${k} is not set; run this through go test ./e2e -run TestBrowser_EveryView`);
    process.exit(2);
  }
}
// This run's screenshots only: the folder is this script's.
fs.rmSync(ART, { recursive: true, force: true });
fs.mkdirSync(ART, { recursive: true });

const BOOKS = '0_Inbox/Buchtipps.md';
const CALL = '0_Inbox/Anruf Stadtwerke.md';
const GARDEN = '1_Projekte/Garten.md';
const SHOP = '0_Inbox/Einkauf.md';
const BROKEN = '1_Projekte/Kaputt.base';
const READING = '3_Ressourcen/Leseliste.base';
const PROJECTS = '1_Projekte/Projekte.base';
const baseView = (base, view) => `${BASE}/base?path=${encodeURIComponent(base)}&view=${encodeURIComponent(view)}`;
const onDisk = (p) => fs.readFileSync(path.join(VAULT, p), 'utf8');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
});
let current;
const run = steps((name) => current?.screenshot({ path: path.join(ART, `failed-${name.replace(/[^a-z0-9]+/gi, '-')}.png`), fullPage: true }));
const check = run.check;

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = r.content.map((c) => c.text ?? '').join('\n');
  assert.ok(!r.isError, `${name} failed:\n${text}`);
  return text;
}
function field(text, name) {
  const line = text.split('\n').map((l) => l.trimStart()).find((l) => l.startsWith(`${name}: `));
  assert.ok(line, `no "${name}:" line in:\n${text}`);
  return line.slice(name.length + 2).trim();
}

const langs = {
  en: { locale: 'en-US', timezoneId: 'America/New_York' },
  de: { locale: 'de-DE', timezoneId: 'Europe/Berlin' },
};
const sizes = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const shots = [];
// What the audits found, view by view: all of it is reported at the end
// (one run shows every problem), and any of it fails the run.
const problems = [];

// Script errors and what the browser refused (the page's CSP) are
// problems too.
const watched = new WeakSet();
function watch(page, lang) {
  if (watched.has(page)) return;
  watched.add(page);
  page.on('pageerror', (e) => problems.push(`${lang} ${page.url()}: script error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`${lang} ${page.url()}: console error: ${m.text()}`);
  });
}

// view opens a view (open(page) navigates or acts), then for each size
// takes a screenshot and audits it.
async function view(page, lang, name, open) {
  watch(page, lang);
  for (const [size, vp] of Object.entries(sizes)) {
    await page.setViewportSize(vp);
    await open(page, size);
    await page.waitForLoadState('load');
    const file = path.join(ART, `${lang}-${size}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    shots.push(file);
    try {
      await audit(page, lang, `${lang} ${size} ${name}`);
    } catch (e) {
      problems.push(e.message);
    }
  }
}

const contexts = {};
let agent;
try {
  await check('the audit itself fails on each kind of problem', async () => {
    const ctx = await browser.newContext({ viewport: sizes.phone });
    const p = await ctx.newPage();
    await p.setContent(`<!doctype html><html lang="de"><body>
      <p>Die Notiz: cannot undo change</p>
      <button style="height:20px">Los</button>
      <button style="height:50px"></button>
      <div style="width:900px">breit</div>
      <p>undo.refused</p>
      <p translate="no">the agent's own words are theirs</p></body></html>`);
    let err;
    try {
      await audit(p, 'de', 'a page made to fail');
    } catch (e) {
      err = e;
    }
    await ctx.close();
    assert.ok(err, 'the audit passed a page with every problem');
    for (const want of ['scrolls sideways', 'lower than 44 px on a phone: 20 px', 'no accessible name: button', 'not German: "Die Notiz: cannot undo change" (cannot, undo, change)', 'text key undo.refused']) {
      assert.ok(err.message.includes(want), `the audit did not report "${want}":\n${err.message}`);
    }
    assert.ok(!err.message.includes('theirs'), 'the audit checked text marked translate="no"');
  });

  await check('an agent makes the changes the views show', async () => {
    agent = new Client({ name: 'claude-code', version: '2.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(BASE + '/mcp'), {
      requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
    }));
    await call(agent, 'append_to_note', { path: BOOKS, content: '- Atomic Habits', change_summary: 'added a book for the winter' });
    await call(agent, 'append_to_note', { path: BOOKS, content: '- Der Zauberberg', change_summary: 'noch ein Buch' });
    const long = Array.from({ length: 80 }, (_, i) => `- Punkt ${i + 1}`).join('\n');
    await call(agent, 'append_to_note', { path: CALL, content: long, change_summary: 'eine lange Liste' });
    let rd = await call(agent, 'read_note', { path: GARDEN });
    await call(agent, 'delete_note', { path: GARDEN, change_summary: 'the garden plan is done', expected_version: field(rd, 'version') });
    await call(agent, 'create_note', { path: SHOP, content: '---\ntags: [einkauf]\n---\n# Einkauf\n\n- Milch\n', change_summary: 'a shopping list' });
    rd = await call(agent, 'read_note', { path: SHOP });
    await call(agent, 'delete_note', { path: SHOP, change_summary: 'bought everything', expected_version: field(rd, 'version') });
    // Someone writes a new note under the deleted one's name: restoring
    // it is refused, with free names offered.
    fs.writeFileSync(path.join(VAULT, SHOP), '# Einkauf\n\nneu\n');
    // An append refused by a rule: Rules & health lists it.
    // A base whose filter does not parse: the Bases view shows its error.
    fs.writeFileSync(path.join(VAULT, BROKEN), 'filters:\n  and:\n    - status = "aktiv"\n');
    const r = await agent.callTool({ name: 'append_to_note', arguments: { path: '4_Archiv/Sommerfest 2026.md', content: '- neu', change_summary: 'a line in the archive' } });
    assert.ok(r.isError, 'an append to a protected note was not refused');
  });

  await check('sign in once; each language gets its own browser with the session', async () => {
    for (const [lang, opts] of Object.entries(langs)) {
      contexts[lang] = await browser.newContext({ ...opts, viewport: sizes.desktop });
    }
    const p = await contexts.en.newPage();
    await p.goto(LINK);
    await p.click('#signin');
    await p.waitForURL(BASE + '/');
    const cookies = await contexts.en.cookies();
    await contexts.de.addCookies(cookies);
    await p.close();
  });

  for (const lang of Object.keys(langs)) {
    const page = await contexts[lang].newPage();
    current = page;
    page.setDefaultTimeout(10000);
    const t = (en, de) => (lang === 'de' ? de : en);

    await check(`${lang}: sign-in page, and a spent link`, async () => {
      const out = await browser.newContext({ ...langs[lang] });
      const p = await out.newPage();
      current = p;
      await view(p, lang, 'signin', async (p) => { await p.goto(BASE + '/'); });
      await view(p, lang, 'signin-bad-link', async (p) => {
        await p.goto(BASE + '/signin?token=vdo_spent');
        await p.click('#signin');
        await p.locator('.flash.err').waitFor();
      });
      await out.close();
      current = page;
    });

    await check(`${lang}: Activity, grouped by day, times in the browser's zone`, async () => {
      await view(page, lang, 'activity', async (p) => {
        await p.goto(BASE + '/');
        await p.locator('li.change', { hasText: 'added a book for the winter' }).waitFor();
      });
      // People and agents by name, never raw ids.
      const text = await page.locator('main').innerText();
      // (The client's name joins the key's once the history records it
      // for HTTP connections too: "Claude Code via key ‘agent’".)
      assert.match(text, t(/(Claude Code via )?key ‘agent’/, /(Claude Code über )?Schlüssel ‚agent‘/));
      assert.doesNotMatch(text, /key:agent|\b\d{8}T\d{6}/, 'a raw actor or change id is shown');
      assert.match(await page.locator('.day > h2').first().textContent(), t(/^Today$/, /^Heute$/));
      const time = page.locator('li.change time').first();
      assert.doesNotMatch(await time.innerText(), /UTC/, 'the script did not turn the time local');
      assert.match(await time.getAttribute('title'), t(/America\/New_York/, /Europe\/Berlin/));
    });

    await check(`${lang}: a diff, one click away, with its own gutter and "show all"`, async () => {
      await view(page, lang, 'activity-diff', async (p) => {
        await p.goto(BASE + '/');
        const row = p.locator('li.change', { hasText: 'added a book for the winter' });
        await row.locator('details.c-diff > summary').click();
        await row.locator('table.udiff tr.add', { hasText: 'Atomic Habits' }).waitFor();
        const long = p.locator('li.change', { hasText: 'eine lange Liste' });
        await long.locator('details.c-diff > summary').click();
        await long.locator('a.show-all').waitFor();
      });
      const row = page.locator('li.change', { hasText: 'added a book for the winter' });
      // The + sits in its own cell; the line's text keeps its list marker.
      const added = row.locator('table.udiff tr.add', { hasText: 'Atomic Habits' });
      assert.equal((await added.locator('td.sign').innerText()).trim(), '+');
      const line = await added.locator('td.t').evaluate((td) => [...td.querySelector('ins').childNodes].filter((n) => !n.classList?.contains('sr')).map((n) => n.textContent).join(''));
      assert.equal(line, '- Atomic Habits');
    });

    await check(`${lang}: the filter, folded; more filters opened; the menu on a phone`, async () => {
      await view(page, lang, 'activity-filters', async (p, size) => {
        await p.goto(BASE + '/?actor=key%3Aagent&since=7d');
        await p.locator('form.filters details.f-more > summary').click();
        if (size === 'phone') await p.locator('details.menu > summary').click();
      });
      assert.equal(await page.locator('select[name=actor]').inputValue(), 'key:agent');
    });

    await check(`${lang}: one note's activity, and a note that does not exist`, async () => {
      await view(page, lang, 'activity-note', async (p) => {
        await p.goto(BASE + '/?note=' + encodeURIComponent(BOOKS));
        await p.locator('.notefilter').waitFor();
      });
      await view(page, lang, 'activity-bad-filter', async (p) => {
        await p.goto(BASE + '/?note=' + encodeURIComponent('0_Inbox/Buchtips.md') + '&since=soon');
        await p.locator('.flash.err').waitFor();
      });
    });

    await check(`${lang}: a refused undo says which newer change to undo first`, async () => {
      await view(page, lang, 'undo-refused', async (p) => {
        await p.goto(BASE + '/');
        await p.locator('li.change', { hasText: 'added a book for the winter' }).locator('button.undo').click();
        await p.locator('.flash.err').waitFor();
      });
      const flash = page.locator('.flash.err');
      await flash.locator('button', { hasText: t('Undo the newer change first', 'Zuerst die neuere Änderung rückgängig machen') }).waitFor();
      await flash.locator('a', { hasText: t("Open the note's history", 'Verlauf der Notiz öffnen') }).waitFor();
    });

    await check(`${lang}: a note's history: restore before or after a change`, async () => {
      await view(page, lang, 'note-history', async (p) => {
        await p.goto(BASE + '/note?path=' + encodeURIComponent(BOOKS));
        const row = p.locator('li.change', { hasText: 'added a book for the winter' });
        await row.locator('details.c-diff > summary').click();
        await row.locator('button.restore-before').waitFor();
        await row.locator('button.restore-after').waitFor();
      });
      const row = page.locator('li.change', { hasText: 'added a book for the winter' });
      // The page names the note once, in its heading; no change repeats it.
      assert.equal(await page.locator('li.change .c-note').count(), 0, 'a change on the note page names a note');
      assert.equal((await row.locator('button.restore-before').innerText()).trim(), t('Restore the text as it was before this change', 'Text wie vor dieser Änderung wiederherstellen'));
    });

    await check(`${lang}: compare two versions, inline and side by side, and "show all"`, async () => {
      await view(page, lang, 'compare-inline', async (p) => {
        await p.goto(BASE + '/note/diff?path=' + encodeURIComponent(BOOKS));
        await p.locator('table.udiff').waitFor();
      });
      await view(page, lang, 'compare-side', async (p) => {
        await p.goto(BASE + '/note/diff?path=' + encodeURIComponent(BOOKS) + '&view=side');
        await p.locator('table.sdiff').waitFor();
        // The + stands apart from the line's own "- " (its gutter), on a
        // phone too: never "+- Der Zauberberg".
        const gap = await p.locator('table.sdiff td.add', { hasText: 'Der Zauberberg' }).evaluate((td) => {
          const sign = td.querySelector('.sign').getBoundingClientRect();
          const r = document.createRange();
          const ins = td.querySelector('ins');
          const text = [...ins.childNodes].find((n) => n.nodeType === 3);
          r.setStart(text, 0);
          r.setEnd(text, 1);
          return r.getBoundingClientRect().left - sign.right;
        });
        assert.ok(gap >= 0 && gap < 40, `the + and the line's text: ${gap} px apart`);
        const width = await p.locator('table.sdiff td.add .sign').first().evaluate((s) => s.getBoundingClientRect().width);
        assert.ok(width >= 12, `the + gutter is ${width} px wide`);
      });
    });

    await check(`${lang}: Trash, a restore refused for a taken name, emptying`, async () => {
      await view(page, lang, 'trash', async (p) => {
        await p.goto(BASE + '/trash');
        await p.locator('tr', { hasText: GARDEN }).waitFor();
      });
      await view(page, lang, 'trash-restore-refused', async (p) => {
        await p.goto(BASE + '/trash');
        await p.locator('tr', { hasText: SHOP }).locator('button.restore').click();
        await p.locator('.flash.err').waitFor();
      });
      await page.locator('.flash.err button', { hasText: t('Restore as', 'Als') }).first().waitFor();
      await view(page, lang, 'trash-empty-confirm', async (p) => {
        await p.goto(BASE + '/trash/empty?days=0');
        await p.locator('#empty-yes').waitFor();
      });
    });

    await check(`${lang}: Connections, a key created, a name refused`, async () => {
      await view(page, lang, 'connections', async (p) => {
        await p.goto(BASE + '/connections');
        await p.locator('tr[data-key=agent]').waitFor();
      });
      let n = 0;
      await view(page, lang, 'connections-key-created', async (p, size) => {
        await p.goto(BASE + '/connections');
        await p.fill('form.create input[name=name]', `phone-${lang}-${size}-${n++}`);
        await p.click('#create-key');
        await p.locator('#secret').waitFor();
      });
      await view(page, lang, 'connections-refused', async (p) => {
        await p.goto(BASE + '/connections');
        await p.fill('form.create input[name=name]', 'agent');
        await p.click('#create-key');
        await p.locator('.flash.err').waitFor();
      });
    });

    await check(`${lang}: a client asks to connect (consent), and a request that cannot be approved`, async () => {
      // A client registers (RFC 7591) and sends the owner's browser to
      // /authorize, as Claude Code does; nothing is approved here.
      const reg = await fetch(BASE + '/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Claude Code', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' }),
      });
      const body = await reg.text();
      assert.equal(reg.status, 201, body);
      const { client_id: id } = JSON.parse(body);
      const q = new URLSearchParams({
        response_type: 'code', client_id: id, redirect_uri: 'http://127.0.0.1:33418/callback', state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', resource: BASE + '/mcp',
      });
      await view(page, lang, 'consent', async (p) => {
        await p.goto(BASE + '/authorize?' + q);
        await p.locator('#approve').waitFor();
      });
      q.set('redirect_uri', 'http://127.0.0.1:9/elsewhere');
      await view(page, lang, 'consent-refused', async (p) => {
        await p.goto(BASE + '/authorize?' + q);
        await p.locator('#refused-reason').waitFor();
      });
    });

    await check(`${lang}: Bases: the list, a view with its summary, a grouped view, cards, a broken base, a missing view`, async () => {
      await view(page, lang, 'bases', async (p) => {
        await p.goto(BASE + '/bases');
        await p.locator('li.base-view', { hasText: 'Noch nicht gelesen' }).waitFor();
        await p.locator('pre.base-error').waitFor();
      });
      assert.match(await page.locator('li.base-view', { hasText: 'Noch nicht gelesen' }).innerText(), t(/Table · 4 rows/, /Tabelle · 4 Zeilen/));
      await view(page, lang, 'base-view', async (p, size) => {
        await p.goto(BASE + '/bases');
        if (size === 'phone') {
          await p.locator('details.menu > summary').click();
          await p.locator('.menu-list a[href="/bases"]').click();
        } else {
          await p.locator('nav.nav a[href="/bases"]').click();
        }
        await p.locator('li.base-view a', { hasText: 'Noch nicht gelesen' }).click();
        await p.locator('table.base-table tr.b-row').first().waitFor();
      });
      assert.equal((await page.locator('#base-count').innerText()).trim(), t('Rows 1–4 of 4', 'Zeilen 1–4 von 4'));
      assert.match(await page.locator('table.base-table tfoot').innerText(), t(/Sum: \d+/, /Summe: \d+/));
      assert.equal(await page.locator('table.base-table thead th').nth(1).innerText(), 'Autor');
      // On a phone the table keeps its columns and scrolls in its own box.
      const box = await page.locator('.base-scroll').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      assert.ok(box.scroll > box.client, `the table fits a phone (${box.scroll} px in ${box.client} px): nothing to scroll`);
      await view(page, lang, 'base-grouped', async (p) => {
        await p.goto(baseView(PROJECTS, 'Nach Status'));
        await p.locator('tr.g-head').first().waitFor();
      });
      assert.equal(await page.locator('tr.g-head').count(), 4);
      await view(page, lang, 'base-cards', async (p) => {
        await p.goto(baseView(READING, 'Alle Bücher'));
        await p.locator('ul.cards > li').first().waitFor();
      });
      await view(page, lang, 'base-list', async (p) => {
        await p.goto(baseView(PROJECTS, 'Abgeschlossen'));
        await p.locator('ul.items > li').first().waitFor();
      });
      await view(page, lang, 'base-broken', async (p) => {
        await p.goto(BASE + '/base?path=' + encodeURIComponent(BROKEN));
        await p.locator('#base-broken').waitFor();
      });
      assert.match(await page.locator('#base-broken pre').innerText(), /at column 8: "=" is no operator/);
      await view(page, lang, 'base-missing', async (p) => {
        await p.goto(baseView(READING, 'Ungelesen'));
        await p.locator('#base-missing').waitFor();
      });
    });

    await check(`${lang}: Rules & health, and a page that does not exist`, async () => {
      await view(page, lang, 'health', async (p) => {
        await p.goto(BASE + '/health');
        await p.locator('tr.refusal[data-kind=rule]').waitFor();
      });
      await view(page, lang, 'not-found', async (p) => {
        await p.goto(BASE + '/nope');
      });
    });

    await check(`${lang}: without JavaScript the page still reads and works`, async () => {
      const nojs = await browser.newContext({ ...langs[lang], javaScriptEnabled: false });
      await nojs.addCookies(await contexts[lang].cookies());
      const p = await nojs.newPage();
      current = p;
      await view(p, lang, 'nojs-activity', async (p) => {
        await p.goto(BASE + '/');
        await p.locator('li.change', { hasText: 'added a book for the winter' }).waitFor();
      });
      // The server's rendering names the zone; the day is the server's.
      assert.match(await p.locator('li.change time').first().innerText(), /UTC$/);
      await view(p, lang, 'nojs-base', async (p) => {
        await p.goto(baseView(PROJECTS, 'Nach Status'));
        await p.locator('tr.g-head').first().waitFor();
      });
      await nojs.close();
      current = page;
    });
  }

  const page = await contexts.en.newPage();
  current = page;
  await check('the ways forward work: undo the newer change first, then the one refused', async () => {
    const before = onDisk(BOOKS);
    await page.goto(BASE + '/');
    await page.locator('li.change', { hasText: 'added a book for the winter' }).locator('button.undo').click();
    await page.locator('.flash.err button', { hasText: 'Undo the newer change first' }).click();
    await page.locator('.flash.ok').waitFor();
    assert.doesNotMatch(onDisk(BOOKS), /Der Zauberberg/);
    await page.locator('li.change', { hasText: 'added a book for the winter' }).locator('button.undo').click();
    await page.locator('.flash.ok').waitFor();
    assert.doesNotMatch(onDisk(BOOKS), /Atomic Habits/);
    assert.notEqual(onDisk(BOOKS), before);
  });

  await check('the ways forward work: restore under a free name', async () => {
    await page.goto(BASE + '/trash');
    await page.locator('tr', { hasText: SHOP }).locator('button.restore').click();
    const free = page.locator('.flash.err button', { hasText: 'Restore as' }).first();
    const label = await free.innerText();
    await free.click();
    await page.locator('.flash.ok').waitFor();
    const to = label.replace(/^Restore as /, '').trim();
    assert.match(onDisk(to), /Milch/);
    assert.equal(onDisk(SHOP), '# Einkauf\n\nneu\n');
  });

  await check('the ways forward work: a missing view offers the views there are; a row opens its note', async () => {
    await page.goto(baseView(READING, 'Ungelesen'));
    await page.locator('#base-missing a', { hasText: 'Noch nicht gelesen' }).click();
    await page.locator('table.base-table tr.b-row').first().waitFor();
    const row = page.locator('table.base-table tr.b-row').first();
    const name = (await row.locator('th a').innerText()).trim();
    await row.locator('th a').click();
    await page.waitForURL(/\/note\?path=/);
    assert.match(new URL(page.url()).searchParams.get('path'), new RegExp(`^3_Ressourcen/Bücher/${name}\\.md$`));
    await page.locator('h1', { hasText: name }).waitFor();
  });

  await check('dark mode: the same views in the dark palette', async () => {
    const dark = await browser.newContext({ ...langs.de, colorScheme: 'dark' });
    await dark.addCookies(await contexts.de.cookies());
    const p = await dark.newPage();
    current = p;
    await view(p, 'de', 'dark-activity', async (p) => {
      await p.goto(BASE + '/');
      const row = p.locator('li.change').filter({ has: p.locator('details.c-diff') }).first();
      await row.locator('details.c-diff > summary').click();
    });
    const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.match(bg, /rgb\((\d|[1-4]\d), /, `the dark palette's background is ${bg}`);
    await dark.close();
    current = page;
  });

  await check('the language switch: Deutsch, then English again', async () => {
    await page.goto(BASE + '/trash');
    await page.click('footer a[hreflang=de]');
    await page.getByRole('heading', { name: 'Papierkorb', exact: true }).waitFor();
    try {
      await audit(page, 'de', 'switched to German');
    } catch (e) {
      problems.push(e.message);
    }
    await page.click('footer a[hreflang=en]');
    await page.getByRole('heading', { name: 'Trash', exact: true }).waitFor();
  });
  await check(`every view passes the audit (${shots.length} views)`, async () => {
    assert.equal(problems.length, 0, problems.join('\n'));
  });
} finally {
  await agent?.close().catch(() => {});
  await browser.close();
}
console.log(`${shots.length} screenshots in ${ART}`);
console.log(`views: ${run.passed} passed, ${run.failed} failed`);
process.exit(run.failed ? 1 : 0);
