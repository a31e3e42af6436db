// test_act_viewer.mjs - the activation comparison page in headless
// Chromium: red tints exactly on diff rows, status/method/regex filters and
// the first-divergence jump reflected in the URL, a bad or too costly regex
// shown as an error, ignore case, paging that keeps the filters, an op key holding markup rendered
// as text, no CSP violations; screenshots (wide, narrow, dark) saved to
// PARITY_ARTIFACTS.
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const XSS = "<img src=x onerror=alert(1)>";
const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx;
try {
	const [a, b] = L.gen("gen_actlog.py", "act", ["--layers", "3", "--scenario", "diverge",
		"--diverge-at", "0.4"]);
	// an op key with markup, on both sides (and wherever it is a producer)
	for (const f of [a, b]) {
		const t = fs.readFileSync(f, "utf8")
			.split("layers.0.attention_norm/op_0_pow").join(`layers.0.attention_norm/op_0_pow${XSS}`);
		fs.writeFileSync(f, t);
	}
	const ra = await d.upload(a, `baseline ${XSS}`), rb = await d.upload(b, "candidate");
	const cmp = await d.compare(ra, rb);
	const id = cmp.id;
	const apiRows = await d.rows(id);
	const fd = cmp.result.first_divergence;
	L.check("the pair diverges", cmp.verdict === "fail" && fd.forward && fd.backward, cmp.verdict);

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	page.on("dialog", async (dl) => { problems.push(`dialog: ${dl.message()}`); await dl.dismiss(); });
	// (the deliberate bad/costly-regex requests log their 400: not a problem)
	page.on("console", (m) => {
		if (m.type() === "error" && !/status of 400/.test(m.text())) problems.push(`console: ${m.text()}`);
	});
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
	const ui = `${d.base}/ui/comparisons/${id}`;

	// --- every row on one page: tints vs statuses -------------------------
	let resp = await page.goto(`${ui}?limit=1000&from=0`); // from=0: not the landing at the divergence
	L.check("page 200", resp.status() === 200, resp.status());
	L.check("title names the comparison", /fail/.test(await page.title()), await page.title());
	const seen = await page.evaluate(() => {
		const red = (el) => {
			const m = getComputedStyle(el).backgroundColor.match(/\d+(\.\d+)?/g);
			if (!m) return false;
			const [r, g, b, a] = m.map(Number);
			return (a === undefined || a > 0) && r > g + 30 && r > b + 30;
		};
		return Array.from(document.querySelectorAll("tbody.pair")).map((tb) => ({
			idx: Number(tb.dataset.idx), status: tb.dataset.status,
			tinted: tb.querySelectorAll("td.tint").length,
			red: Array.from(tb.querySelectorAll("td")).filter(red).length,
		}));
	});
	L.check("every API row is on the page", seen.length === apiRows.length, [seen.length, apiRows.length]);
	const byIdx = new Map(apiRows.map((r) => [r.idx, r.status]));
	let diffRed = 0, matchRed = 0, onlyRed = 0, diffUntinted = 0, statusMismatch = 0;
	for (const s of seen) {
		if (byIdx.get(s.idx) !== s.status) statusMismatch++;
		if (s.status === "diff") { if (s.red > 0) diffRed++; else diffUntinted++; }
		else if (s.status === "match") matchRed += s.red;
		else onlyRed += s.red;
	}
	L.check("statuses agree with the API", statusMismatch === 0, statusMismatch);
	L.check("every diff row has red cells", diffUntinted === 0 && diffRed > 0, { diffRed, diffUntinted });
	L.check("no match row has a red cell", matchRed === 0, matchRed);
	L.check("no only-row has a red cell", onlyRed === 0, onlyRed);
	const full = await page.evaluate(() => getComputedStyle(document.querySelector("td.t10") ||
		document.body).backgroundColor);
	L.check("full red exists for large drifts", /rgb\(2[0-9][0-9], [0-9]{1,2}, [0-9]{1,2}\)/.test(full), full);

	// --- markup in an op key is text --------------------------------------
	const keyCells = await page.locator("td.key", { hasText: XSS }).count();
	L.check("markup key rendered as text", keyCells >= 1, keyCells);
	L.check("no injected img element", (await page.locator("main img").count()) === 0);
	const runName = await page.locator("p.runs").innerText();
	L.check("markup run name rendered as text", runName.includes(XSS), runName);
	const producer = await page.locator(`.ih[title="produced by FSDPLlama3Model.layers.0.attention_norm/op_0_pow${XSS}"]`).count();
	L.check("producer tooltip carries the key verbatim", producer >= 1, producer);

	// --- first-divergence jump --------------------------------------------
	await page.goto(ui);
	await page.click("#jump-fwd");
	await page.waitForLoadState();
	let u = new URL(page.url());
	L.check("jump: from= in the URL", u.searchParams.get("from") === String(fd.forward.row), page.url());
	L.check("jump: anchor to the row", u.hash === `#r${fd.forward.row}`, u.hash);
	L.check("jump: row is first on the page",
		(await page.locator("tbody.pair").first().getAttribute("data-idx")) === String(fd.forward.row));
	L.check("jump: row is in view", await page.locator(`#r${fd.forward.row}`).isVisible());
	await page.click("#jump-bwd");
	await page.waitForLoadState();
	u = new URL(page.url());
	L.check("backward jump", u.searchParams.get("from") === String(fd.backward.row) &&
		u.hash === `#r${fd.backward.row}`, page.url());

	// --- status filter (auto-submits) -------------------------------------
	await page.goto(ui);
	await Promise.all([page.waitForNavigation(), page.selectOption("select[name=status]", "diff")]);
	u = new URL(page.url());
	L.check("status filter in the URL", u.searchParams.get("status") === "diff", page.url());
	let statuses = await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.status));
	L.check("status filter applied", statuses.length > 0 && statuses.every((s) => s === "diff"), statuses.slice(0, 5));
	const nDiff = apiRows.filter((r) => r.status === "diff").length;
	L.check("status filter count", statuses.length === Math.min(nDiff, 200), [statuses.length, nDiff]);

	// --- method filter on top ---------------------------------------------
	await Promise.all([page.waitForNavigation(), page.selectOption("select[name=method]", "exact")]);
	u = new URL(page.url());
	L.check("method filter in the URL", u.searchParams.get("method") === "exact" &&
		u.searchParams.get("status") === "diff", page.url());
	const methods = await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.method));
	L.check("method filter applied", methods.length > 0 && methods.every((m) => m === "exact"));

	// --- regex filter ------------------------------------------------------
	await page.fill("input[name=q]", "attention_norm/op_[01]");
	await Promise.all([page.waitForNavigation(), page.click("form.filters button[type=submit]")]);
	u = new URL(page.url());
	L.check("regex in the URL", u.searchParams.get("q") === "attention_norm/op_[01]" &&
		u.searchParams.get("status") === "diff", page.url());
	const keys = await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.keys));
	L.check("regex applied", keys.length > 0 && keys.every((k) => /attention_norm\/op_[01]/.test(k)), keys);
	const wantRe = apiRows.filter((r) => r.status === "diff" && r.method === "exact" &&
		/attention_norm\/op_[01]/.test(`${r.a_key} ${r.b_key}`)).length;
	L.check("regex count", keys.length === wantRe, [keys.length, wantRe]);
	// reload the shared URL: same view
	const shared = page.url();
	await page.goto(shared);
	L.check("filtered URL reloads to the same rows",
		(await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.keys))).join("|") === keys.join("|"));
	L.check("form shows the filters after reload",
		(await page.inputValue("input[name=q]")) === "attention_norm/op_[01]" &&
		(await page.inputValue("select[name=status]")) === "diff");

	// --- a bad regex is an error, not a blank page ------------------------
	resp = await page.goto(`${ui}?q=${encodeURIComponent("layers.(")}`);
	L.check("bad regex: status 400", resp.status() === 400, resp.status());
	L.check("bad regex: error shown", await page.locator("#filter-error").isVisible());
	L.check("bad regex: page still has the banner", await page.locator("#verdict").isVisible());
	L.check("bad regex: input keeps the text", (await page.inputValue("input[name=q]")) === "layers.(");

	// --- case: insensitive by default (issue 15), "match case" goes into
	// the URL as case=sensitive; "N of M rows" counts the matching rows ---
	await page.goto(`${ui}?limit=1000`);
	await page.fill("input[name=q]", "ATTENTION_NORM/OP_[01]");
	await Promise.all([page.waitForNavigation(), page.click("form.filters button[type=submit]")]);
	u = new URL(page.url());
	L.check("no case param by default", u.searchParams.get("case") === null && u.searchParams.get("icase") === null, page.url());
	const ikeys = await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.keys));
	const wantI = apiRows.filter((r) => /attention_norm\/op_[01]/i.test(r.a_key || "") ||
		/attention_norm\/op_[01]/i.test(r.b_key || "")).length;
	L.check("insensitive by default", ikeys.length > 0 && ikeys.length === wantI, [ikeys.length, wantI]);
	L.check("N of M rows", (await page.locator("#row-count").innerText()) === `${wantI} of ${apiRows.length} rows`,
		await page.locator("#row-count").innerText());
	L.check("CSV link carries the filters", new URL(await page.getAttribute("#rows-csv", "href"), page.url()).searchParams.get("q") === "ATTENTION_NORM/OP_[01]");
	await page.check("input[name=case]");
	await Promise.all([page.waitForNavigation(), page.click("form.filters button[type=submit]")]);
	u = new URL(page.url());
	L.check("case=sensitive in the URL", u.searchParams.get("case") === "sensitive", page.url());
	L.check("match case applied", (await page.locator("tbody.pair").count()) === 0);
	L.check("match case box stays ticked", await page.isChecked("input[name=case]"));
	L.check("0 of M rows", /^0 of \d+ rows$/.test(await page.locator("#row-count").innerText()));

	// --- cause chain: a bare #rN loads the page holding row N; an input
	// hash opens its producer's row; "origin" walks back with the chain ---
	const far = apiRows.filter((r) => r.idx > 40 && r.rank === apiRows[0].rank);
	if (far.length) {
		const n = far[far.length - 1].idx;
		await page.goto(`${ui}?limit=20&from=0#r${n}`); /* rows 0-19: N is not on it */
		await page.waitForURL(/[?&]row=\d+/);
		L.check("bare #rN loads the page holding row N", await page.locator(`#r${n}`).count() === 1, page.url());
		L.check("rows of context above it", await page.locator(`#r${n - 3}`).count() === 1);
	} else {
		L.check("a comparison with more than 40 rows for #rN", false, apiRows.length);
	}
	const prop = apiRows.filter((r) => r.status === "diff" && !r.origin && r.a && r.a.input_producers);
	if (prop.length) {
		const row = prop[prop.length - 1];
		await page.goto(`${ui}?row=${row.idx}#r${row.idx}`);
		const link = page.locator(`#r${row.idx} tr.sa td.ihs a.ih`).first();
		const want = row.a.input_producers.split(";")[0];
		await Promise.all([page.waitForNavigation(), link.click()]);
		const m = /#r(\d+)$/.exec(page.url());
		L.check("producer link lands on a row", !!m, page.url());
		const keys = m ? await page.getAttribute(`#r${m[1]}`, "data-keys") : "";
		L.check("the producer row's A key is the producer", (keys || "").split(" ")[0] === want, [keys, want]);
		await page.goto(`${ui}?row=${row.idx}#r${row.idx}`);
		await Promise.all([page.waitForNavigation(), page.click(`#r${row.idx} a.walk`)]);
		const o = /#r(\d+)$/.exec(page.url());
		L.check("walk lands on an origin", !!o && (await page.locator(`#r${o[1]}.origin`).count()) === 1, page.url());
		L.check("walk lists the chain", /^Cause chain: row \d+/.test(await page.locator("#chain").innerText()));
		L.check("walk marks the chain's rows on the page", (await page.locator("tbody.pair.in-chain").count()) >= 2);
	} else {
		L.check("a propagated diff row to walk from", false);
	}

	// --- a too costly regex is an error page section, quickly --------------
	const t0 = Date.now();
	resp = await page.goto(`${ui}?q=${encodeURIComponent("(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x")}`);
	L.check("costly regex: status 400", resp.status() === 400, resp.status());
	L.check("costly regex: answered in < 2 s", Date.now() - t0 < 2000, Date.now() - t0);
	L.check("costly regex: error shown", /too costly/.test(await page.locator("#filter-error").innerText()));
	L.check("costly regex: page still has the banner", await page.locator("#verdict").isVisible());

	// --- origins only -----------------------------------------------------
	await page.goto(ui);
	await page.click("#origins-only");
	await page.waitForLoadState();
	u = new URL(page.url());
	L.check("origins link in the URL", u.searchParams.get("origin") === "1", page.url());
	const orig = await page.$$eval("tbody.pair", (els) => els.map((e) => e.classList.contains("origin")));
	L.check("origins only", orig.length >= 1 && orig.every(Boolean), orig);

	// --- paging keeps the filters ------------------------------------------
	await page.goto(`${ui}?status=diff&limit=5`);
	const first = await page.$$eval("tbody.pair", (els) => els.map((e) => Number(e.dataset.idx)));
	await page.click("#page-next");
	await page.waitForLoadState();
	u = new URL(page.url());
	const second = await page.$$eval("tbody.pair", (els) => els.map((e) => Number(e.dataset.idx)));
	L.check("next page keeps status and limit", u.searchParams.get("status") === "diff" &&
		u.searchParams.get("limit") === "5", page.url());
	L.check("next page continues", second.length === 5 && second[0] > first[4] &&
		(await page.$$eval("tbody.pair", (els) => els.every((e) => e.dataset.status === "diff"))),
		{ first, second });
	const wantSecond = apiRows.filter((r) => r.status === "diff").slice(5, 10).map((r) => r.idx);
	L.check("next page rows", second.join() === wantSecond.join(), { second, wantSecond });

	// --- profile SVG: links jump to rows ------------------------------------
	const svg = await (await fetch(`${d.base}/ui/comparisons/${id}/profile.svg`)).text();
	L.check("profile links to the first divergence", svg.includes(`from=${fd.forward.row}#r${fd.forward.row}`));
	L.check("profile marks first divergence", svg.includes("first forward divergence"));
	await page.goto(ui);
	const frame = page.frames().find((f) => f.url().includes("profile.svg"));
	L.check("profile object loaded", !!frame);

	// --- CSP is sent; no console errors or dialogs ----------------------------
	const head = await fetch(ui);
	L.check("CSP without inline script", /script-src 'self'/.test(head.headers.get("content-security-policy") || "") &&
		!/unsafe-inline/.test(head.headers.get("content-security-policy") || ""));
	L.check("no dialogs, errors or CSP violations", problems.length === 0, problems);

	// --- screenshots ------------------------------------------------------------
	await page.goto(`${ui}?from=${Math.max(0, fd.forward.row - 2)}`);
	await page.screenshot({ path: path.join(L.artifacts, "activation_comparison.png"), fullPage: true });
	await page.emulateMedia({ colorScheme: "dark" });
	await page.screenshot({ path: path.join(L.artifacts, "activation_comparison_dark.png") });
	await page.emulateMedia({ colorScheme: "light" });
	await page.setViewportSize({ width: 390, height: 844 });
	await page.goto(ui);
	const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	L.check("narrow screen: no page-wide horizontal scroll", overflow <= 2, overflow);
	await page.screenshot({ path: path.join(L.artifacts, "activation_comparison_narrow.png") });
	L.check("screenshot saved", fs.existsSync(path.join(L.artifacts, "activation_comparison.png")));
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
