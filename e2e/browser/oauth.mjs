// End-to-end test of sign-in for MCP clients (OAuth 2.1): the official MCP
// TypeScript SDK's own OAuth client (an OAuthClientProvider, auth()) against
// `vaultd serve --http`, with the owner's consent given in headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core). Run by
// ../browser_oauth_test.go, which starts vaultd and passes in:
//
//   VAULTD_BASE=http://127.0.0.1:PORT VAULTD_LINK=… VAULTD_ARTIFACTS=/dir node oauth.mjs
//
// The SDK discovers the metadata (RFC 9728, RFC 8414), registers (RFC
// 7591) and sends the owner to the consent page; the owner signs in there
// (and comes back to the consent) and approves "read" only; the client
// lists only read tools and is refused a write; a refresh rotates the
// tokens; revocation on the Connections view cuts the client off.
//
// The last line is the summary the Go test looks for:
// "oauth: N passed, M failed".

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { steps } from './steps.mjs';
import { audit } from './audit.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const BASE = process.env.VAULTD_BASE;
const LINK = process.env.VAULTD_LINK;
const ART = process.env.VAULTD_ARTIFACTS;
for (const [k, v] of Object.entries({ BASE, LINK, ART })) {
  if (!v) {
    console.error(`VAULTD_${k} is not set; run this through go test ./e2e -run TestBrowser_OAuth`);
    process.exit(2);
  }
}
fs.mkdirSync(ART, { recursive: true });
const MCP_URL = new URL(BASE + '/mcp');
const STATE = 'e2e-state-5c1e';

let page;
const shot = (name) => page.screenshot({ path: path.join(ART, `${name}.png`), fullPage: true });
const run = steps((name) => page && shot(`oauth-failed-${name.replace(/[^a-z0-9]+/gi, '-')}`));
const check = run.check;

// The client's redirect address: a loopback server that takes the code,
// as Claude Code's does.
let onCallback;
const callback = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('signed in; you can close this tab');
  onCallback?.(u.searchParams);
});
await new Promise((ok) => callback.listen(0, '127.0.0.1', ok));
const REDIRECT = `http://127.0.0.1:${callback.address().port}/callback`;
const nextCallback = () => new Promise((ok) => { onCallback = ok; });

// An OAuthClientProvider that keeps everything in memory.
class Provider {
  constructor() {
    this.authURLs = [];
    this.verifiers = [];
    this.saved = {};
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return {
      client_name: 'vaultd e2e (TypeScript SDK)',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return STATE; }
  clientInformation() { return this.saved.client; }
  saveClientInformation(c) { this.saved.client = c; }
  tokens() { return this.saved.tokens; }
  saveTokens(t) { this.saved.tokens = t; }
  // Each authorization URL keeps the verifier saved for it: an attempt
  // the SDK still makes in the background after connect() was refused
  // (its GET stream, on a slow machine) saves a new verifier, and the code
  // of the first URL was then exchanged with that one, which uses the
  // code up (the server's rule for a wrong code_verifier).
  redirectToAuthorization(u) { this.authURLs.push(u); this.verifiers.push(this.saved.verifier); }
  saveCodeVerifier(v) { this.saved.verifier = v; }
  codeVerifier() { return this.saved.verifier; }
  // useURL makes the verifier of authURLs[i] the one finishAuth sends.
  useURL(i) { this.saved.verifier = this.verifiers[i]; }
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') delete this.saved.tokens;
    if (scope === 'all' || scope === 'client') delete this.saved.client;
  }
}

const provider = new Provider();
const connect = async () => {
  const client = new Client({ name: 'oauth-e2e', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
};
const text = (r) => r.content.map((c) => c.text ?? '').join('\n');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
});
try {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1000, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10000);
  let client;
  let code;

  await check('the SDK discovers, registers and asks for the consent', async () => {
    const transport = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider });
    await assert.rejects(new Client({ name: 'oauth-e2e', version: '0.0.0' }).connect(transport), UnauthorizedError);
    assert.equal(provider.authURLs.length, 1, 'redirectToAuthorization was not called');
    const u = provider.authURLs[0];
    assert.equal(u.origin + u.pathname, BASE + '/authorize');
    assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(u.searchParams.get('resource'), BASE + '/mcp');
    assert.equal(u.searchParams.get('state'), STATE);
    assert.match(provider.saved.client.client_id, /^vdclient_/);
  });

  await check('the consent asks the owner to sign in first, and comes back', async () => {
    await page.goto(provider.authURLs[0].href);
    assert.equal(new URL(page.url()).pathname, '/signin');
    await page.locator('#consent-waits').waitFor();
    await shot('oauth-1-signin-first');
    await page.goto(LINK);
    await page.locator('#signin').click();
    await page.getByRole('heading', { name: 'Connect a client to this vault' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/authorize');
  });

  await check('the consent page names the client and where it returns to', async () => {
    assert.equal(await page.locator('#client-name').textContent(), 'vaultd e2e (TypeScript SDK)');
    assert.equal(await page.locator('#redirect-uri').textContent(), REDIRECT);
    assert.equal(await page.locator('#right-write').isChecked(), false);
    assert.equal(await page.locator('#right-delete').isChecked(), false, 'delete must be off by default');
    assert.equal(await page.locator('#conn-name').inputValue(), 'vaultd-e2e-typescript-sdk');
    await page.locator('#conn-name').fill('e2e-reader');
    await shot('oauth-2-consent');
    // The consent page passes the checks every view passes (audit.mjs),
    // on a phone too.
    await audit(page, 'en', 'consent');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('oauth-2-consent-phone');
    await audit(page, 'en', 'consent on a phone');
    await page.setViewportSize({ width: 1000, height: 900 });
  });

  await check('approving "read" sends the code to the client, which gets tokens', async () => {
    const got = nextCallback();
    await page.locator('#approve').click();
    const q = await got;
    assert.equal(q.get('state'), STATE);
    assert.equal(q.get('iss'), BASE);
    code = q.get('code');
    assert.match(code, /^vdc_/);
    await page.waitForURL(REDIRECT + '?**');
    const transport = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider });
    provider.useURL(0);
    await transport.finishAuth(code);
    assert.match(provider.saved.tokens.access_token, /^vda_/);
    assert.match(provider.saved.tokens.refresh_token, /^vdr_/);
    assert.equal(provider.saved.tokens.expires_in, 3600);
  });

  await check('the signed-in client lists only the read tools', async () => {
    ({ client } = await connect());
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of ['vault_overview', 'search_notes', 'read_note']) assert.ok(names.includes(t), `${t} missing from ${names}`);
    for (const t of ['append_to_note', 'create_note', 'update_section', 'delete_note']) assert.ok(!names.includes(t), `${t} listed for a read-only connection`);
    const r = await client.callTool({ name: 'vault_overview', arguments: {} });
    assert.ok(!r.isError, text(r));
  });

  await check('a write is refused with the permission error', async () => {
    const r = await client.callTool({ name: 'append_to_note', arguments: { path: '0_Inbox/Buchtipps.md', content: '- by sign-in', change_summary: 'e2e' } });
    assert.ok(r.isError, 'the write was not refused');
    assert.match(text(r), /permission denied: append_to_note needs the write permission/);
  });

  await check('the code works once: a second exchange is refused', async () => {
    const res = await fetch(BASE + '/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: provider.saved.client.client_id, redirect_uri: REDIRECT, code_verifier: provider.saved.verifier }),
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, 'invalid_grant');
  });

  await check('a refresh rotates the tokens, and the client goes on with them', async () => {
    // The replayed code revoked the first connection (OAuth 2.1); sign in
    // again, approved on the page, then refresh.
    provider.authURLs.length = 0;
    provider.verifiers.length = 0;
    await assert.rejects(connect(), UnauthorizedError);
    assert.ok(provider.authURLs.length >= 1, 'no new sign-in after the revocation');
    const got = nextCallback();
    await page.goto(provider.authURLs[0].href);
    await page.locator('#conn-name').fill('e2e-reader');
    await page.locator('#approve').click();
    const again = (await got).get('code');
    provider.useURL(0);
    await new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider }).finishAuth(again);
    const before = { ...provider.saved.tokens };
    assert.equal(await auth(provider, { serverUrl: MCP_URL }), 'AUTHORIZED');
    const after = provider.saved.tokens;
    assert.notEqual(after.access_token, before.access_token);
    assert.notEqual(after.refresh_token, before.refresh_token);
    ({ client } = await connect());
    const r = await client.callTool({ name: 'vault_overview', arguments: {} });
    assert.ok(!r.isError, text(r));
    provider.old = before;
  });

  await check('the Connections view lists the signed-in connection', async () => {
    await page.goto(BASE + '/connections');
    const row = page.locator('tr[data-grant="e2e-reader"]');
    await row.waitFor();
    assert.match(await row.textContent(), /vaultd e2e \(TypeScript SDK\)/);
    await shot('oauth-3-connections');
  });

  await check('revoking on the page cuts the client off: its next call gets 401', async () => {
    const token = provider.saved.tokens.access_token;
    await page.locator('tr[data-grant="e2e-reader"] button.revoke-grant').click();
    await page.getByText('Revoked e2e-reader').waitFor();
    assert.equal(await page.locator('tr[data-grant="e2e-reader"]').count(), 0);
    await shot('oauth-4-revoked');
    const res = await fetch(BASE + '/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate'), /resource_metadata="/);
    provider.authURLs.length = 0;
    await assert.rejects(client.callTool({ name: 'vault_overview', arguments: {} }));
    // At least one: the SDK's event stream (GET), refused too, may start
    // a sign-in of its own next to the call's.
    assert.ok(provider.authURLs.length >= 1, 'the SDK did not start a new sign-in after the revocation');
  });
} finally {
  await browser.close();
  callback.close();
}
console.log(`oauth: ${run.passed} passed, ${run.failed} failed`);
process.exit(run.failed ? 1 : 0);
