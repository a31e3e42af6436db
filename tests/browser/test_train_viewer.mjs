// test_train_viewer.mjs - the training comparison page in headless
// Chromium: verdict and reasons, server-side SVG charts (overlay and
// |difference| with the threshold line) that read without JS, the hover
// read-out, over-threshold cells red exactly where the API says "over",
// paging, the log-scale toggle and the CSV link; issue 15: the jump to a
// step and the over-threshold filter without JavaScript, pager links
// labelled with step ranges, the first offending step marked on every
// chart (page and report), chart labels inside the chart and >= 10 px at
// 390 px, no page-wide horizontal scroll at 390 px; screenshots saved.
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx;
try {
	const [a, b] = L.gen("gen_trainlog.py", "train", ["--steps", "2000", "--scenario", "regress",
		"--at", "650"]);
	// a long unbroken run name (chart keys, runs line) must not widen a 390 px page
	const longName = "baseline_" + "x".repeat(40) + "_" + "Y".repeat(120);
	const ra = await d.upload(a, longName), rb = await d.upload(b, "candidate <b>x</b>");
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

	// every per-step row of the API
	const steps = [];
	for (let cursor = ""; ;) {
		const j = await (await fetch(`${d.base}/comparisons/${id}/steps?limit=1000` +
			(cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""))).json();
		steps.push(...j.steps);
		if (!j.next_cursor) break;
		cursor = j.next_cursor;
	}
	const isOver = (st) => metrics.some((m) => st[m] && st[m].over);
	const overSteps = steps.filter(isOver).map((st) => st.step);
	L.check("the API has 2000 steps, some over", steps.length === 2000 && overSteps.length > 100,
		[steps.length, overSteps.length]);
	const byStep = new Map(steps.map((st) => [st.step, st]));
	const tableCells = () => page.$$eval("table.steps tbody tr", (trs) => trs.map((tr) => ({
		step: Number(tr.querySelector("th").textContent),
		hit: tr.classList.contains("hit"),
		red: Array.from(tr.querySelectorAll("td")).filter((td) => {
			const m = getComputedStyle(td).backgroundColor.match(/\d+(\.\d+)?/g);
			if (!m) return false;
			const [r, g, b2, al] = m.map(Number);
			return (al === undefined || al > 0) && r > g + 30 && r > b2 + 30;
		}).length,
	})));
	let cells = await tableCells();
	L.check("first page has 100 steps", cells.length === 100 && cells[0].step === 1, cells.length);

	// 1. jump to step 700: one request, the page of steps 601-700, row 700
	// highlighted and scrolled to; with JavaScript off
	const nojs = await L.launch(pw, { javaScriptEnabled: false });
	const np = await nojs.newPage();
	await np.goto(ui);
	let docs = 0;
	np.on("request", (rq) => { if (rq.resourceType() === "document") docs++; });
	await np.fill("#jump-step", "700");
	await Promise.all([np.waitForNavigation(), np.click("#jump button[type=submit]")]);
	const ju = new URL(np.url());
	L.check("jump: one request", docs === 1, docs);
	L.check("jump: ?step=700#hit", ju.searchParams.get("step") === "700" && ju.hash === "#hit", np.url());
	const jrows = await np.$$eval("table.steps tbody tr", (trs) => trs.map((tr) => [tr.id, tr.className]));
	L.check("jump: the page of steps 601-700", jrows.length === 100 && jrows[0][0] === "s601" &&
		jrows[99][0] === "s700", [jrows.length, jrows[0], jrows[jrows.length - 1]]);
	L.check("jump: only row 700 highlighted", jrows.filter((r) => /\bhit\b/.test(r[1])).map((r) => r[0]).join() === "s700");
	const hitBox = await np.locator("#s700").boundingBox();
	L.check("jump: row 700 scrolled into view", hitBox && hitBox.y >= 0 && hitBox.y < 900, hitBox);
	L.check("pager: previous labelled with its steps", (await np.innerText("#page-prev")).includes("steps 501-600"));
	L.check("pager: next labelled with its steps", (await np.innerText("#page-next")).includes("steps 701-800"));
	await Promise.all([np.waitForNavigation(), np.click("#page-next")]);
	L.check("pager without JS: next page starts at 701",
		(await np.locator("table.steps tbody tr th").first().innerText()) === "701", np.url());

	// 1. over-threshold only, without JS: every row over, all of them listed
	await np.goto(ui);
	await Promise.all([np.waitForNavigation(), np.click("#filter-over")]);
	L.check("filter in the URL", new URL(np.url()).searchParams.get("over") === "1");
	let shown = [];
	for (let i = 0; i < 40; i++) {
		const rows = await np.$$eval("table.steps tbody tr th", (ths) => ths.map((th) => Number(th.textContent)));
		shown.push(...rows);
		if ((await np.locator("#page-next").count()) === 0) break;
		await Promise.all([np.waitForNavigation(), np.click("#page-next")]);
		L.check("filter kept by the pager", new URL(np.url()).searchParams.get("over") === "1");
	}
	L.check("filter: only offending steps, every one of them",
		shown.length === overSteps.length && shown.every((st, i) => st === overSteps[i]),
		[shown.length, overSteps.length, shown.slice(0, 3), overSteps.slice(0, 3)]);
	await np.goto(`${ui}?over=1&step=650`);
	L.check("filter + jump", (await np.locator("tr.hit").count()) === 1 &&
		isOver(byStep.get(Number(await np.locator("tr.hit th").innerText()))));
	const bad = await fetch(`${ui}?step=abc`);
	L.check("a bad step is a 400", bad.status === 400, bad.status);
	await nojs.close();

	// over cells vs API, on the page of step 700 (steps 601-700)
	await page.goto(`${ui}?step=700`);
	cells = await tableCells();
	let wrong = 0;
	for (const c of cells) if (!byStep.has(c.step) || isOver(byStep.get(c.step)) !== (c.red > 0)) wrong++;
	L.check("red cells exactly on over-threshold steps", wrong === 0, wrong);
	L.check("some steps are red", cells.some((c) => c.red > 0) && cells.some((c) => c.red === 0));

	// 2. the first offending step marked on every chart, page and report
	const firstOver = Math.min(...metrics.map((m) => cmp.result.metrics[m].first_over).filter((x) => x !== null));
	const marks = await page.$$eval("svg.chart-svg", (svgs) => svgs.map((s) => ({
		lines: Array.from(s.querySelectorAll("line.vmark")).map((l) => Number(l.dataset.x)),
		labels: Array.from(s.querySelectorAll("text.vmark-label")).map((t) => t.textContent),
	})));
	L.check("every chart marks the first offending step", marks.length === charts &&
		marks.every((m) => m.lines.includes(firstOver) && m.labels.some((t) => t.includes(`step ${firstOver}`))), marks);
	const report = await (await fetch(`${d.base}/comparisons/${id}/report.html`)).text();
	L.check("the report's charts carry the markers too",
		report.split('<svg class="chart-svg"').length - 1 === charts &&
		report.split('class="vmark first').length - 1 >= charts, report.length);

	// paging
	await page.goto(ui);
	await page.click("#page-next");
	await page.waitForLoadState();
	const firstStep = await page.locator("table.steps tbody tr th").first().innerText();
	L.check("next page continues at step 101", firstStep === "101", firstStep);
	L.check("from in the URL", new URL(page.url()).searchParams.get("from") === "101");

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
	// 3a. chart labels inside their chart (real font metrics), wide and narrow
	const labelsInside = () => page.$$eval("svg.chart-svg", (svgs) => svgs.flatMap((s) => {
		const sb = s.getBoundingClientRect();
		return Array.from(s.querySelectorAll("text")).filter((t) => {
			const b = t.getBoundingClientRect();
			return b.width > 0 && (b.left < sb.left - 0.5 || b.right > sb.right + 0.5 ||
				b.top < sb.top - 0.5 || b.bottom > sb.bottom + 0.5);
		}).map((t) => t.textContent).concat(
			// x tick labels do not overlap each other
			Array.from(s.querySelectorAll("text.tick.x")).map((t) => t.getBoundingClientRect())
				.filter((b, i, a) => i > 0 && b.left < a[i - 1].right).map((b) => `overlap at ${b.left}`));
	}));
	let outside = await labelsInside();
	L.check("wide: every chart label inside its chart", outside.length === 0, outside);

	await page.setViewportSize({ width: 390, height: 844 });
	await page.emulateMedia({ colorScheme: "light" });
	await page.goto(ui);
	const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	L.check("narrow screen: no page-wide horizontal scroll", overflow <= 0, overflow);
	// 4. the tables scroll inside their box
	const inBox = await page.$$eval("table.steps, table.stats", (ts) => ts.map((t) => {
		const box = t.closest("div.scroll");
		return !!box && getComputedStyle(box).overflowX === "auto" &&
			box.getBoundingClientRect().right <= window.innerWidth && box.scrollWidth >= box.clientWidth;
	}));
	L.check("narrow screen: tables scroll inside their box", inBox.length === 2 && inBox.every(Boolean), inBox);
	const wide = await page.$$eval("main *", (els) => els.filter((e) => !e.closest("div.scroll") &&
		e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.tagName + "." + e.getAttribute("class")));
	L.check("narrow screen: nothing sticks out of the viewport", wide.length === 0, wide.slice(0, 5));
	// 3d. chart text at least 10 px
	const sizes = await page.$$eval("svg.chart-svg text.tick", (ts) => ts.map((t) => {
		const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
		return { h: t.getBoundingClientRect().height, px: parseFloat(getComputedStyle(t).fontSize) * scale };
	}));
	L.check("narrow screen: tick labels >= 10 px tall", sizes.length > 0 && sizes.every((z) => z.h >= 10), sizes.slice(0, 3));
	L.check("narrow screen: chart font >= 10 px", sizes.every((z) => z.px >= 10), sizes.slice(0, 3));
	outside = await labelsInside();
	L.check("narrow: every chart label inside its chart", outside.length === 0, outside);
	await page.screenshot({ path: path.join(L.artifacts, "training_comparison_narrow.png") });
	await page.goto(`${ui}?step=700`);
	const overflow2 = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	L.check("narrow screen after a jump: no page-wide horizontal scroll", overflow2 <= 0, overflow2);
	await page.screenshot({ path: path.join(L.artifacts, "training_comparison_narrow_jump.png") });
	L.check("screenshot saved", fs.existsSync(path.join(L.artifacts, "training_comparison.png")));
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
