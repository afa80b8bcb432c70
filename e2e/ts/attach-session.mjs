// Reads attachments through `vaultd serve` with the official MCP
// TypeScript SDK, as Claude Code and Cursor receive them: a PNG, a JPEG
// (with EXIF), a WebP and a PDF; for images the text, then image content
// whose bytes decode as the MIME type says, then a resource_link that
// resources/read answers; for the PDF its text; a hidden file refused.
//
//   node attach-session.mjs --bin VAULTD --vault DIR --state DIR
//
// The Go test TestTypeScriptSDK_Attachments prepares the vault. The last
// line is "ts-sdk attachments: N passed, M failed".

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values: a } = parseArgs({
  options: { bin: { type: 'string' }, vault: { type: 'string' }, state: { type: 'string' } },
});
for (const k of ['bin', 'vault', 'state']) {
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
const client = new Client({ name: 'vaultd-ts-attach', version: '0.0.0' });
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

// magic says which image format bytes hold.
function magic(b) {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8) return 'image/jpeg';
  return 'unknown';
}

async function image(path, wantText, wantMime) {
  const res = await client.callTool({ name: 'read_attachment', arguments: { path } });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  assert.deepEqual(res.content.map((c) => c.type), ['text', 'image', 'resource_link']);
  const [text, img, link] = res.content;
  assert.match(text.text, wantText);
  assert.match(text.text, /^image sent: \d+ × \d+ image\/(png|jpeg), /m);
  assert.equal(img.mimeType, wantMime);
  const bytes = Buffer.from(img.data, 'base64');
  assert.equal(magic(bytes), wantMime);
  assert.equal(bytes.includes('Exif'), false, 'EXIF left in the image sent');
  assert.match(link.uri, /^vault:\/\/file\/3_Ressourcen\/Anh%C3%A4nge\//);
  assert.ok(text.text.includes(`resource: ${link.uri}`), 'the text names the resource');
  const rr = await client.readResource({ uri: link.uri });
  assert.equal(rr.contents.length, 1);
  assert.ok(Buffer.from(rr.contents[0].blob, 'base64').length > 0);
}

await check('PNG: text, image/png, resource_link', () =>
  image('![[Startseite Entwurf.png]]', /^pixels: 480 × 300$/m, 'image/png'));
await check('JPEG with EXIF: text, image/jpeg without EXIF', () =>
  image('Baustelle.jpg', /^pixels: 320 × 240$/m, 'image/jpeg'));
await check('WebP: text, image content', () =>
  image('3_Ressourcen/Anhänge/Farben.webp', /^kind: image \(WebP\)$/m, 'image/jpeg'));

await check('PDF: its text, no image', async () => {
  const res = await client.callTool({ name: 'read_attachment', arguments: { path: 'Angebot CDN.pdf' } });
  assert.notEqual(res.isError, true);
  assert.deepEqual(res.content.map((c) => c.type), ['text', 'resource_link']);
  const t = res.content[0].text;
  assert.match(t, /^kind: PDF$/m);
  assert.match(t, /^pages: 1$/m);
  assert.match(t, /^Kunde: Nordlicht IT-Service GmbH, Projekt Website-Relaunch$/m);
  assert.match(t, /^Grundgebühr 29,00 € im Monat, Einrichtung einmalig 150,00 €$/m);
  assert.equal(res.structuredContent?.pages, 1);
});

await check('a file in .obsidian is refused', async () => {
  const res = await client.callTool({ name: 'read_attachment', arguments: { path: '.obsidian/geheim.png' } });
  assert.equal(res.isError, true);
  assert.deepEqual(res.content.map((c) => c.type), ['text']);
  assert.match(res.content[0].text, /^error code: invalid_path$/m);
});

await check('read_note names the embeds', async () => {
  const res = await client.callTool({ name: 'read_note', arguments: { path: '1_Projekte/Website-Relaunch/Technik.md' } });
  assert.match(res.content[0].text, /^attachments: .*Startseite Entwurf\.png \(image, 488 bytes\), 3_Ressourcen\/Anhänge\/Angebot CDN\.pdf \(PDF, 2\.1 KB\); see one: read_attachment /m);
});

await client.close();
console.log(`ts-sdk attachments: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
