// test_offline_report.mjs - the self-contained report: `parity compare
// a.log b.log -o diff.html` (activation and training) and the served
// /comparisons/{id}/report.html, opened from disk with the network off
// (every non-file request is refused and recorded).  Checks that the CSS,
// the inline SVG and the JS filters work offline, that tints sit on diff
// rows only, and that a large comparison says at the top what it left out.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

function cli(args) {
	try {
		execFileSync(L.bin(), args, { stdio: ["ignore", "pipe", "pipe"] });
		return 0;
	} catch (e) {
		return e.status;
	}
}

const pw = await L.loadPlaywright();
let ctx, d;
try {
	ctx = await L.launch(pw, { offline: true });
	const blocked = [];
	await ctx.route("**/*", (route) => {
		const u = route.request().url();
		if (u.startsWith("file:")) return route.continue();
		blocked.push(u);
		return route.abort();
	});
	const page = await ctx.newPage();
	const problems = [];
	page.on("dialog", async (dl) => { problems.push(`dialog: ${dl.message()}`); await dl.dismiss(); });
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
	page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });

	// --- activation report from the CLI ------------------------------------
	const [a, b] = L.gen("gen_actlog.py", "off", ["--layers", "2", "--scenario", "diverge"]);
	const html = path.join(L.tmp, "diff.html");
	L.check("compare -o diff.html exits 1 (fail)", cli(["compare", a, b, "-o", html]) === 1);
	L.check("report written", fs.existsSync(html) && fs.statSync(html).size > 1000);
	const text = fs.readFileSync(html, "utf8");
	L.check("no external references", !/(src|href)="(https?:)?\/\//.test(text) && !/\/assets\//.test(text));
	await page.goto("file://" + html);
	L.check("title", /activation comparison/.test(await page.title()), await page.title());
	L.check("inline CSS applied", (await page.$eval(".verdict-word", (e) => getComputedStyle(e).fontWeight)) === "800");
	L.check("verdict fail", (await page.getAttribute("#verdict", "data-verdict")) === "fail");
	L.check("profile SVG inline", (await page.locator("svg.profile rect.bar").count()) > 0);
	const tint = await page.$$eval("tbody.pair", (els) => els.map((e) => [e.dataset.status, e.querySelectorAll("td.tint").length]));
	L.check("tints only on diff rows", tint.length > 0 && tint.every(([s, n]) => (s === "diff") === (n > 0)), tint.slice(0, 5));
	// client-side filters (inline JS)
	await page.selectOption("#cfilters select[name=status]", "diff");
	const vis = await page.$$eval("tbody.pair", (els) => els.filter((e) => !e.hidden).map((e) => e.dataset.status));
	L.check("offline status filter", vis.length > 0 && vis.every((s) => s === "diff") &&
		vis.length === tint.filter(([s]) => s === "diff").length, vis.length);
	await page.fill("#cfilters input[name=q]", "layers.(");
	L.check("offline bad regex shows an error", /Bad regex/.test(await page.locator("#cferr").innerText()));
	await page.fill("#cfilters input[name=q]", "attention_norm");
	const vis2 = await page.$$eval("tbody.pair", (els) => els.filter((e) => !e.hidden).map((e) => e.dataset.keys));
	L.check("offline regex filter", vis2.length > 0 && vis2.every((k) => /attention_norm/.test(k)));
	// same reading as the server: either key matches (anchors per key),
	// (?i) or the box for case, \d, a too long pattern refused
	const visible = () => page.$$eval("tbody.pair", (els) => els.filter((e) => !e.hidden).map((e) => e.dataset.keys));
	const anchored = "^FSDPLlama3Model\\.layers\\.\\d\\.attention_norm/op_0_pow$";
	await page.fill("#cfilters input[name=q]", anchored);
	const vis3 = await visible();
	L.check("offline anchors apply per key", vis3.length > 0 &&
		vis3.every((k) => k.split(" ").some((x) => new RegExp(anchored).test(x))), vis3);
	await page.fill("#cfilters input[name=q]", "(?i)ATTENTION_NORM");
	L.check("offline (?i)", (await page.locator("#cferr").innerText()) === "" &&
		(await visible()).join("|") === vis2.join("|"));
	await page.fill("#cfilters input[name=q]", "ATTENTION_NORM");
	L.check("offline case-insensitive by default", (await visible()).join("|") === vis2.join("|"));
	const total = await page.locator("tbody.pair").count();
	L.check("offline N of M rows", (await page.locator("#cfcount").innerText()) === `${vis2.length} of ${total} rows`,
		await page.locator("#cfcount").innerText());
	await page.check("#cfilters input[name=case]");
	L.check("offline match-case box", (await visible()).length === 0);
	L.check("offline 0 of M rows", (await page.locator("#cfcount").innerText()) === `0 of ${total} rows`);
	await page.uncheck("#cfilters input[name=case]");
	// patterns JS would read otherwise than PCRE2 are refused, with the reason
	for (const bad of ["\\Alayers", "layers\\h", "(?x)layers", "a(?s)b", "\\x{41}"]) {
		await page.fill("#cfilters input[name=q]", bad);
		L.check(`offline refuses ${bad}`, /server|PCRE2/.test(await page.locator("#cferr").innerText()),
			await page.locator("#cferr").innerText());
	}
	await page.fill("#cfilters input[name=q]", "(?:attention)_norm");
	L.check("offline (?:..) is fine", (await page.locator("#cferr").innerText()) === "" && (await visible()).length === vis2.length);
	await page.fill("#cfilters input[name=q]", "a".repeat(1001));
	L.check("offline length limit", /1000 bytes/.test(await page.locator("#cferr").innerText()));
	await page.fill("#cfilters input[name=q]", "[[:digit:]]");
	L.check("offline POSIX class refused", /POSIX/.test(await page.locator("#cferr").innerText()));
	await page.fill("#cfilters input[name=q]", "");
	await page.click("#jump-fwd");
	L.check("offline jump to first divergence", /#r\d+$/.test(page.url()));
	// cause chain in the document: producer links and the walk to the origin
	const walkFrom = await page.$$eval("tbody.pair.st-diff:not(.origin)", (els) => els.filter((e) => e.querySelector("a.walk") &&
		e.querySelector("tr.sa td.ihs a.ih[title]")).map((e) => e.id));
	if (walkFrom.length) {
		const id = walkFrom[walkFrom.length - 1];
		const prodKey = (await page.getAttribute(`#${id} tr.sa td.ihs a.ih[title]`, "title")).replace(/^produced by /, "");
		await page.click(`#${id} tr.sa td.ihs a.ih[title]`);
		const m = /#(r\d+)$/.exec(page.url());
		L.check("offline producer link jumps to a row", !!m, page.url());
		L.check("offline producer row has the producer key", !!m && (await page.getAttribute(`#${m[1]}`, "data-keys")).split(" ")[0] === prodKey);
		await page.click(`#${id} a.walk`);
		const o = /#(r\d+)$/.exec(page.url());
		L.check("offline walk lands on an origin", !!o && (await page.locator(`#${o[1]}.origin`).count()) === 1, page.url());
		L.check("offline walk lists the chain", /^Cause chain: row \d+/.test(await page.locator("#cchain").innerText()));
	} else {
		L.check("offline report has a propagated diff to walk from", false);
	}
	await page.screenshot({ path: path.join(L.artifacts, "offline_report_activation.png") });

	// --- training report from the CLI --------------------------------------
	const [ta, tb] = L.gen("gen_trainlog.py", "offt", ["--steps", "80", "--scenario", "regress", "--at", "30"]);
	const thtml = path.join(L.tmp, "train.html");
	L.check("training compare -o exits 1", cli(["compare", ta, tb, "-o", thtml]) === 1);
	await page.goto("file://" + thtml);
	L.check("training charts offline", (await page.locator("svg.chart-svg").count()) >= 4);
	L.check("training table offline", (await page.locator("table.steps tbody tr").count()) === 80);
	L.check("over cells red offline", (await page.locator("table.steps td.over").count()) > 0);
	await page.screenshot({ path: path.join(L.artifacts, "offline_report_training.png"), fullPage: true });

	// --- served report, large comparison: the note ---------------------------
	d = await new L.Daemon().start();
	const [la, lb] = L.gen("gen_actlog.py", "big", ["--layers", "160", "--scenario", "diverge",
		"--diverge-at", "0.95"]);
	const cmp = await d.compare(await d.upload(la, "big A"), await d.upload(lb, "big B"));
	const r = await fetch(`${d.base}/comparisons/${cmp.id}/report.html`);
	L.check("served report 200", r.status === 200, r.status);
	L.check("report CSP documented choice", /unsafe-inline/.test(r.headers.get("content-security-policy") || "") &&
		/default-src 'none'/.test(r.headers.get("content-security-policy") || ""));
	const big = path.join(L.tmp, "big.html");
	fs.writeFileSync(big, Buffer.from(await r.arrayBuffer()));
	await page.goto("file://" + big);
	const note = await page.locator("#note").innerText();
	L.check("large report says what it holds", /every non-matching row/.test(note) && /2000 matched/.test(note), note);
	const s = cmp.result.summary;
	const st = await page.$$eval("tbody.pair", (els) => els.map((e) => e.dataset.status));
	L.check("every non-matching row included", st.filter((x) => x !== "match").length === s.diff + s.a_only + s.b_only);
	L.check("matched rows capped", st.filter((x) => x === "match").length === 2000);

	// --- served report of a 2-rank comparison: a section per rank ------------
	const [ma, mb] = L.gen("gen_actlog.py", "ranks", ["--layers", "2", "--ranks", "2", "--scenario", "diverge"]);
	const uploadRanks = async (dir, name) => {
		const fd = new FormData();
		for (const f of fs.readdirSync(dir).sort())
			fd.append("log", new Blob([fs.readFileSync(path.join(dir, f))]), f);
		fd.append("name", name);
		const u = await fetch(`${d.base}/runs`, { method: "POST", body: fd });
		return (await u.json()).id;
	};
	const mc = await d.compare(await uploadRanks(ma, "ranks A"), await uploadRanks(mb, "ranks B"));
	const mr = await fetch(`${d.base}/comparisons/${mc.id}/report.html`);
	const mhtml = path.join(L.tmp, "ranks.html");
	fs.writeFileSync(mhtml, Buffer.from(await mr.arrayBuffer()));
	await page.goto("file://" + mhtml);
	L.check("every rank has its section", (await page.locator("section.rank-report").count()) === 2);
	const perRank = await page.$$eval("section.rank-report", (els) => els.map((e) => e.querySelectorAll("tbody.pair").length));
	L.check("each rank section holds its rows", perRank.join(",") ===
		mc.result.ranks.map((r) => r.summary.rows).join(","), perRank);
	L.check("one profile per rank", (await page.locator("section.rank-report svg.profile").count()) === 2);
	await page.click("#k1-jump-fwd");
	L.check("rank 1 jump lands in rank 1", /#k1-r\d+$/.test(page.url()), page.url());
	await page.selectOption("#cfilters select[name=status]", "diff");
	const mvis = await page.$$eval("tbody.pair", (els) => els.filter((e) => !e.hidden).map((e) => e.dataset.status));
	L.check("offline filter covers every rank", mvis.length === mc.result.summary.diff && mvis.every((x) => x === "diff"), mvis.length);

	L.check("no network request was attempted", blocked.length === 0, blocked.slice(0, 5));
	L.check("no errors or dialogs", problems.length === 0, problems);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	if (d) await d.stop();
	L.cleanup();
}
process.exit(L.report());
