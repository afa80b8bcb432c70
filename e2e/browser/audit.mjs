// Checks every view of the owner's page must pass, in the browser as the
// owner sees it:
//
//   - no text of the other language: the visible text (and placeholders,
//     labels, titles, option texts, screen-reader texts) holds no word of
//     the other language — the words of web/testdata/words.json, and the
//     words only the other language's texts use (web/testdata/texts.json,
//     every text the page can show) — and no text key shows instead of
//     its text. What the owner or an agent wrote (note paths, summaries,
//     names: translate="no") is theirs and not checked;
//   - no horizontal scrolling;
//   - on a phone (≤ 640 px wide) every interactive element is at least
//     44 px high (a checkbox or radio button: with its label);
//   - every interactive element has an accessible name, as Chromium
//     computes it (the accessibility tree over CDP).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, '..', '..', 'web', 'testdata');
const texts = JSON.parse(fs.readFileSync(path.join(testdata, 'texts.json'), 'utf8'));
const marked = JSON.parse(fs.readFileSync(path.join(testdata, 'words.json'), 'utf8'));

// proseWords is web/i18n_test.go's: the words of a text, without
// identifiers (append_to_note, 9_System, claude.ai), flags and verbs.
export function proseWords(s) {
  const out = [];
  for (let w of s.match(/[\p{L}\p{N}_./:%@-]+/gu) ?? []) {
    w = w.replace(/^[.:\-/]+|[.:\-/]+$/g, '');
    if (!w || /[_/%@:0-9]/.test(w) || w.includes('.') || w.startsWith('-')) continue;
    out.push(w.toLocaleLowerCase());
  }
  return out;
}

function dictionary(code) {
  const words = new Set();
  for (const s of Object.values(texts[code])) for (const w of proseWords(s)) words.add(w);
  return words;
}
const dict = { en: dictionary('en'), de: dictionary('de') };
// foreign[lang]: the words that, on a page in lang, are the other language.
const foreign = {};
for (const [lang, other] of [['en', 'de'], ['de', 'en']]) {
  const f = new Set(marked[other]);
  for (const w of dict[other]) if (!dict[lang].has(w)) f.add(w);
  foreign[lang] = f;
}
// Words both languages write: the clock's AM and PM (Intl's English
// times; "am" is also German).
for (const w of ['am', 'pm']) {
  foreign.en.delete(w);
  foreign.de.delete(w);
}
const keys = Object.keys(texts.en).filter((k) => k.includes('.'));

// pageTexts collects the texts of the page a person or a screen reader
// meets, outside what is marked translate="no" (content: paths, summaries,
// names, commands).
async function pageTexts(page) {
  return page.evaluate(() => {
    const out = [];
    const skip = (el) => el.closest('[translate="no"], script, style, noscript, template');
    const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || skip(el)) continue;
      const t = n.textContent.trim();
      if (t) out.push({ where: el.outerHTML.slice(0, 120), text: t });
    }
    for (const el of document.querySelectorAll('[placeholder], [aria-label], [title], [alt]')) {
      if (skip(el)) continue;
      for (const a of ['placeholder', 'aria-label', 'title', 'alt']) {
        const v = el.getAttribute(a);
        if (v) out.push({ where: `${el.tagName.toLowerCase()}[${a}]`, text: v });
      }
    }
    return out;
  });
}

// untranslated lists the texts of a page in lang that hold a word of the
// other language or a text key.
export async function untranslated(page, lang) {
  const bad = [];
  for (const { where, text } of await pageTexts(page)) {
    const words = proseWords(text).filter((w) => foreign[lang].has(w));
    const key = keys.find((k) => text.includes(k));
    if (words.length || key) bad.push(`${JSON.stringify(text.slice(0, 160))} (${words.join(', ') || 'text key ' + key}) in ${where}`);
  }
  return bad;
}

// layout measures horizontal scrolling and, on a phone, the interactive
// elements lower than 44 px.
export async function layout(page) {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const phone = window.innerWidth <= 640;
    const small = [];
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
    };
    if (phone) {
      for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')) {
        if (!visible(el)) continue;
        let box = el;
        if (el.matches('input[type=checkbox], input[type=radio]')) box = el.closest('label') ?? el;
        const h = box.getBoundingClientRect().height;
        if (h < 43.5) small.push(`${Math.round(h)} px: ${el.outerHTML.slice(0, 100)}`);
      }
    }
    return { scrollWidth: doc.scrollWidth, width: window.innerWidth, small };
  });
}

// unnamed lists the interactive elements without an accessible name, as
// Chromium computes it.
const interactive = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'spinbutton', 'DisclosureTriangle', 'menuitem', 'tab', 'switch', 'slider', 'listbox', 'option', 'navigation', 'form', 'img', 'progressbar']);
export async function unnamed(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const bad = [];
    for (const n of nodes) {
      const role = n.role?.value;
      if (n.ignored || !interactive.has(role)) continue;
      if (role === 'form' && !n.name?.value) continue; // a form without a name is no landmark: fine
      if (!String(n.name?.value ?? '').trim()) bad.push(`${role} ${n.backendDOMNodeId}`);
    }
    if (bad.length) {
      // Name the elements for the failure message.
      const described = [];
      for (const b of bad.slice(0, 10)) {
        const id = Number(b.split(' ')[1]);
        try {
          const { node } = await cdp.send('DOM.describeNode', { backendNodeId: id });
          described.push(`${b.split(' ')[0]} <${node.localName} ${(node.attributes ?? []).join(' ')}>`);
        } catch {
          described.push(b);
        }
      }
      return described;
    }
    return [];
  } finally {
    await cdp.detach().catch(() => {});
  }
}

// audit runs every check on the page as it is now and fails with all that
// is wrong.
export async function audit(page, lang, name) {
  const problems = [];
  const l = await layout(page);
  if (l.scrollWidth > l.width) problems.push(`scrolls sideways: ${l.scrollWidth} px wide in a ${l.width} px window`);
  for (const s of l.small) problems.push(`lower than 44 px on a phone: ${s}`);
  for (const u of await unnamed(page)) problems.push(`no accessible name: ${u}`);
  for (const t of await untranslated(page, lang)) problems.push(`not ${lang === 'de' ? 'German' : 'English'}: ${t}`);
  assert.equal(problems.length, 0, `${name}:\n  ${problems.join('\n  ')}`);
}
