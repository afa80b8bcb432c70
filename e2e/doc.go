// Package e2e drives the built vaultd binary over MCP stdio with real
// clients: mcp-go's client (Go tests here) and the official TypeScript SDK
// (ts/session.mjs, run by TestTypeScriptSDK). Every assertion reads the
// TEXT of a result, as an agent does (AGENT-CONTRACT rule 1).
//
// TestMain builds ./cmd/vaultd once into a temp dir; every test serves its
// own copy of example-vault with its own state dir, so the repository copy
// is never written.
//
// e2e is tests only (this file is its one other file); they import vault,
// note, tools and trial to read back what a session did, and nothing
// imports e2e.
package e2e
