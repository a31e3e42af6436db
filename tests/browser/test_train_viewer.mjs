// test_train_viewer.mjs - the training comparison page in headless
// Chromium: verdict and reasons, server-side SVG charts (overlay and
// |difference| with the threshold line) that read without JS, the hover
// read-out, over-threshold cells red exactly where the API says "over",
// paging, the log-scale toggle and the CSV link; screenshots saved.
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx;
try {
	const [a, b] = L.gen("gen_trainlog.py", "train", ["--steps", "150", "--scenario", "regress",
		"--at", "60"]);
	const ra = await d.upload(a, "baseline"), rb = await d.upload(b, "candidate <b>x</b>");
	const cmp = await d.compare(ra, rb);
	const id = cmp.id;
	L.check("training comparison fails", cmp.verdict === "fail", cmp.verdict);

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	page.on("dialog", async (dl) => { problems.push(`dialog: ${dl.message()}`); await dl.dismiss(); });
	page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
	const ui = `${d.base}/ui/comparisons/${id}`;

	const resp = await page.goto(ui);
	L.check("page 200", resp.status() === 200, resp.status());
	L.check("title", /training comparison/.test(await page.title()), await page.title());
	L.check("verdict banner", (await page.getAttribute("#verdict", "data-verdict")) === "fail");
	const reasons = await page.locator("#verdict li").count();
	L.check("every reason listed", reasons === cmp.result.reasons.length, reasons);
	L.check("markup in a run name is text", (await page.locator("p.runs").innerText()).includes("<b>x</b>"));
	L.check("resolution note shown", (await page.locator("#resolution").count()) === 1 ||
		(cmp.result.notes || []).length === 0);

	const metrics = Object.keys(cmp.result.metrics);
	const charts = await page.locator("svg.chart-svg").count();
	L.check("two charts per metric", charts === 2 * metrics.length, charts);
	L.check("threshold lines drawn", (await page.locator("svg.chart-svg line.hline").count()) === metrics.length);
	const paths = await page.$$eval("svg.chart-svg path.line", (ps) => ps.map((p) => p.getAttribute("d").length));
	L.check("chart lines have points", paths.length === 3 * metrics.length && paths.every((n) => n > 100), paths);

	// hover read-out (JS)
	const box = await page.locator("svg.chart-svg").first().boundingBox();
	await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
	const readout = await page.locator("figcaption .readout").first().innerText();
	L.check("hover read-out", /^step \d+: /.test(readout), readout);

	// over cells vs API
	const steps = (await (await fetch(`${d.base}/comparisons/${id}/steps?limit=100`)).json()).steps;
	const cells = await page.$$eval("table.steps tbody tr", (trs) => trs.map((tr) => ({
		step: Number(tr.querySelector("th").textContent),
		red: Array.from(tr.querySelectorAll("td")).filter((td) => {
			const m = getComputedStyle(td).backgroundColor.match(/\d+(\.\d+)?/g);
			if (!m) return false;
			const [r, g, b2, al] = m.map(Number);
			return (al === undefined || al > 0) && r > g + 30 && r > b2 + 30;
		}).length,
	})));
	L.check("first page has 100 steps", cells.length === 100, cells.length);
	let wrong = 0;
	for (let i = 0; i < Math.min(cells.length, steps.length); i++) {
		const nOver = metrics.filter((m) => steps[i][m] && steps[i][m].over).length;
		if (cells[i].step !== steps[i].step || (nOver > 0) !== (cells[i].red > 0)) wrong++;
	}
	L.check("red cells exactly on over-threshold steps", wrong === 0, wrong);
	L.check("some steps are red", cells.some((c) => c.red > 0) && cells.some((c) => c.red === 0));

	// paging
	await page.click("#page-next");
	await page.waitForLoadState();
	const firstStep = await page.locator("table.steps tbody tr th").first().innerText();
	L.check("next page continues at step 101", firstStep === "101", firstStep);
	L.check("cursor in the URL", new URL(page.url()).searchParams.has("cursor"));

	// log scale toggle
	await page.goto(ui);
	await page.click("#toggle-log");
	await page.waitForLoadState();
	L.check("log scale in the URL", new URL(page.url()).searchParams.get("log") === "1");
	L.check("log ticks", (await page.locator("svg.chart-svg text.tick", { hasText: /^1e-?\d+$/ }).count()) > 0);

	// CSV link
	const href = await page.getAttribute("#csv", "href");
	const csv = await fetch(`${d.base}${href}`);
	L.check("CSV download", csv.status === 200 && /^step,/.test(await csv.text()));

	// the charts are server-side SVG: present in the HTML itself (no JS)
	const html = await (await fetch(ui)).text();
	L.check("charts without JS", html.split('<svg class="chart-svg"').length - 1 === charts);

	L.check("no dialogs, errors or CSP violations", problems.length === 0, problems);
	await page.goto(ui);
	await page.screenshot({ path: path.join(L.artifacts, "training_comparison.png"), fullPage: true });
	await page.emulateMedia({ colorScheme: "dark" });
	await page.screenshot({ path: path.join(L.artifacts, "training_comparison_dark.png") });
	await page.setViewportSize({ width: 390, height: 844 });
	await page.emulateMedia({ colorScheme: "light" });
	await page.goto(ui);
	const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	L.check("narrow screen: no page-wide horizontal scroll", overflow <= 2, overflow);
	await page.screenshot({ path: path.join(L.artifacts, "training_comparison_narrow.png") });
	L.check("screenshot saved", fs.existsSync(path.join(L.artifacts, "training_comparison.png")));
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
