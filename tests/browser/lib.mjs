// lib.mjs - shared helpers for the browser tests: a throw-away daemon on a
// free loopback port, uploads and comparisons through the HTTP API, Debian's
// chromium driven by playwright-core, and a tiny assertion counter that
// ends with the "N passed, N failed" line ctest logs show.
//
// Environment (set by ctest): PARITY_BIN, PARITY_TESTS, PARITY_ARTIFACTS.
// When chromium or node_modules are missing the test fails; only with
// PARITY_ALLOW_SKIP=1 (never in CI) it exits 77, shown by ctest as Skipped.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

export const CHROMIUM = process.env.PARITY_CHROMIUM || "/usr/bin/chromium";
const here = path.dirname(new URL(import.meta.url).pathname);

export function skipOrFail(why) {
	cleanup();
	if (process.env.PARITY_ALLOW_SKIP === "1") {
		console.log(`SKIP: ${why}`);
		process.exit(77);
	}
	console.error(`FAIL: ${why} (set PARITY_ALLOW_SKIP=1 to skip; deploy/dev.sh installs ` +
		"chromium and runs npm ci in tests/browser)");
	process.exit(1);
}

export async function loadPlaywright() {
	if (!fs.existsSync(CHROMIUM)) skipOrFail(`no chromium at ${CHROMIUM}`);
	try {
		const require = createRequire(path.join(here, "package.json"));
		return require("playwright-core");
	} catch (e) {
		skipOrFail("playwright-core is not installed (npm ci in tests/browser)");
	}
}

let passed = 0, failed = 0;
export function check(what, cond, extra) {
	if (cond) passed++;
	else {
		failed++;
		console.error(`FAIL: ${what}${extra !== undefined ? ": " + JSON.stringify(extra) : ""}`);
	}
}
export function report() {
	console.log(`${passed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

export const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "parity-browser-"));
export const artifacts = process.env.PARITY_ARTIFACTS || path.join(tmp, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });

export function bin() {
	const b = process.env.PARITY_BIN;
	if (!b) {
		console.error("FAIL: PARITY_BIN is not set");
		process.exit(1);
	}
	return b;
}
// tests/ of this repository: data/ (fixtures) and tools/ (generators)
export function testsDir() {
	return process.env.PARITY_TESTS || path.join(here, "..");
}

// Run `parity ARGS...` (no daemon) and return its exit status.
export function cli(args) {
	try {
		execFileSync(bin(), args, { stdio: ["ignore", "pipe", "pipe"] });
		return 0;
	} catch (e) {
		return e.status;
	}
}

// python3 generator into tmp; returns [a, b] paths
export function gen(tool, name, args) {
	const a = path.join(tmp, `${name}_a.log`), b = path.join(tmp, `${name}_b.log`);
	execFileSync("python3", [path.join(testsDir(), "tools", tool), ...args, "--out-a", a, "--out-b", b]);
	return [a, b];
}

export class Daemon {
	// extra: more `parity serve` flags (e.g. ["--webhook-allow-private"])
	async start(extra = []) {
		this.dir = fs.mkdtempSync(path.join(tmp, "d-"));
		const portFile = path.join(this.dir, "port");
		this.log = fs.openSync(path.join(this.dir, "daemon.log"), "a");
		this.proc = spawn(bin(), ["serve", "--listen", "127.0.0.1:0", "--data",
			path.join(this.dir, "data"), "--port-file", portFile, ...extra],
			{ stdio: ["ignore", this.log, this.log] });
		for (let i = 0; i < 200; i++) {
			if (fs.existsSync(portFile) && fs.readFileSync(portFile, "utf8").trim()) break;
			if (this.proc.exitCode !== null) throw new Error("daemon died at start");
			await new Promise((r) => setTimeout(r, 50));
		}
		this.base = `http://127.0.0.1:${fs.readFileSync(portFile, "utf8").trim()}`;
		return this;
	}
	async upload(file, name, extra = {}) {
		const fd = new FormData();
		fd.append("log", new Blob([fs.readFileSync(file)]), path.basename(file));
		fd.append("name", name);
		for (const [k, v] of Object.entries(extra)) fd.append(k, v);
		const r = await fetch(`${this.base}/runs`, { method: "POST", body: fd });
		const j = await r.json();
		if (!r.ok) throw new Error(`upload ${file}: ${r.status} ${JSON.stringify(j)}`);
		return j.id;
	}
	async compare(baseline, candidate, extra = {}) {
		const r = await fetch(`${this.base}/comparisons`, {
			method: "POST", headers: { "content-type": "application/json" },
			body: JSON.stringify({ baseline, candidate, ...extra }),
		});
		const j = await r.json();
		if (!r.ok) throw new Error(`compare: ${r.status} ${JSON.stringify(j)}`);
		const w = await fetch(`${this.base}/comparisons/${j.id}?wait=60`);
		const done = await w.json();
		if (done.status !== "done") throw new Error(`comparison ${j.id} ended ${done.status}: ${done.error}`);
		return done;
	}
	async rows(id, query = "") {
		const out = [];
		let cursor = "";
		for (;;) {
			const r = await fetch(`${this.base}/comparisons/${id}/rows?limit=1000${query}` +
				(cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""));
			const j = await r.json();
			out.push(...j.rows);
			if (!j.next_cursor) return out;
			cursor = j.next_cursor;
		}
	}
	async stop() {
		if (!this.proc || this.proc.exitCode !== null) return;
		const done = new Promise((r) => this.proc.once("exit", r));
		this.proc.kill("SIGTERM");
		await done;
	}
}

// A persistent context on a temp profile dir (playwright refuses a
// --user-data-dir argument; this is the same thing).  Returns the context.
export async function launch(pw, opts = {}) {
	const userDir = fs.mkdtempSync(path.join(tmp, "chromium-"));
	return pw.chromium.launchPersistentContext(userDir, {
		executablePath: CHROMIUM,
		headless: true,
		viewport: { width: 1280, height: 900 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"],
		...opts,
	});
}

export function cleanup() {
	try { fs.rmSync(tmp, { recursive: true, force: true }); } catch (e) { /* ignore */ }
}

// An offline browser context's guards: every request that is not file:
// is refused and recorded in the returned blocked list; a page's errors
// and dialogs (dismissed) go to its problems list.
export async function blockNetwork(ctx) {
	const blocked = [];
	await ctx.route("**/*", (route) => {
		const u = route.request().url();
		if (u.startsWith("file:")) return route.continue();
		blocked.push(u);
		return route.abort();
	});
	return blocked;
}
export function watchProblems(page) {
	const problems = [];
	page.on("dialog", async (dl) => { problems.push(`dialog: ${dl.message()}`); await dl.dismiss(); });
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
	page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
	return problems;
}
