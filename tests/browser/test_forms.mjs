// test_forms.mjs - issue 15 in headless Chromium: a new user goes from the
// empty home page to a red-cell comparison of two uploaded multi-rank runs
// using only the browser (form#upload with setInputFiles, once with
// JavaScript: drag-and-drop/progress script path, once without: the plain
// form post; then form#compare), the list search of /ui/runs, job-status
// and verdict badges that look different, no horizontal page scroll at
// 390 px on home, runs list and run pages, a light print stylesheet, and
// no CSP violation or script error on the way.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx, noJs;
try {
	// two runs of two ranks each, both diverging
	const dirA = path.join(L.tmp, "runA"), dirB = path.join(L.tmp, "runB");
	fs.mkdirSync(dirA);
	fs.mkdirSync(dirB);
	for (const r of [0, 1]) {
		execFileSync("python3", [path.join(L.testsDir(), "tools", "gen_actlog.py"), "--layers", "2",
			"--seed", String(5 + r), "--scenario", "diverge",
			"--out-a", path.join(dirA, `rank_${r}_activations.log`),
			"--out-b", path.join(dirB, `rank_${r}_activations.log`)]);
	}
	const files = (dir) => [0, 1].map((r) => path.join(dir, `rank_${r}_activations.log`));

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));

	// --- the empty home page offers the upload form --------------------------------
	await page.goto(`${d.base}/`);
	L.check("empty home page", await page.locator("#empty").count() === 1);
	L.check("empty home offers form#upload", await page.locator("form#upload").isVisible());

	// drag and drop onto the form fills its file input
	const dropped = await page.evaluate(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["x"], "rank_0_activations.log"));
		dt.items.add(new File(["y"], "rank_1_activations.log"));
		const zone = document.querySelector("form#upload .drop");
		zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
		const over = zone.classList.contains("over");
		zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		return { over, n: document.getElementById("upload-log").files.length,
			status: document.querySelector("form#upload .form-status").textContent };
	});
	L.check("drag and drop: the zone lights up and the files land in the input",
		dropped.over && dropped.n === 2 && /2 file/.test(dropped.status), dropped);

	const uploads = [];
	page.on("request", (rq) => {
		if (rq.method() === "POST" && /\/runs\?html=1$/.test(rq.url())) uploads.push(rq.resourceType());
	});
	// --- upload run A with JavaScript (the enhanced path: XHR with progress) --------
	await page.setInputFiles("#upload-log", files(dirA));
	await page.fill("#upload-name", "eager-bf16");
	await page.fill("#upload-meta", "commit=3f2a9c1\nbranch=main");
	await Promise.all([page.waitForURL(/\/ui\/runs\/\d+$/, { timeout: 30000 }),
		page.click("form#upload button[type=submit]")]);
	const runA = Number(page.url().split("/").pop());
	L.check("with JS the upload is the script's XMLHttpRequest (progress events)",
		uploads.length === 1 && uploads[0] === "xhr", uploads);
	L.check("landed on the new run's page", runA === 1, page.url());
	L.check("its two ranks", await page.locator("table#logs tbody tr").count() === 2);
	L.check("its metadata", /3f2a9c1/.test(await page.locator("table.meta").textContent()));

	// --- upload run B without JavaScript (the plain form post, 303) -----------------
	noJs = await L.launch(pw, { javaScriptEnabled: false });
	const p2 = await noJs.newPage();
	await p2.goto(`${d.base}/ui/runs`);
	await p2.setInputFiles("#upload-log", files(dirB));
	await p2.fill("#upload-name", "traced-bf16");
	await p2.fill("#upload-meta", "commit=9d8e7f6\nbranch=feature/traced");
	await Promise.all([p2.waitForURL(/\/ui\/runs\/\d+$/, { timeout: 30000 }),
		p2.click("form#upload button[type=submit]")]);
	L.check("without JS: landed on run 2", p2.url().endsWith("/ui/runs/2"), p2.url());
	L.check("without JS: two ranks", await p2.locator("table#logs tbody tr").count() === 2);
	// a refused upload is a page with the message and a way back
	await p2.goto(`${d.base}/ui/runs`);
	const bad = path.join(L.tmp, "notalog.txt");
	fs.writeFileSync(bad, "this is not a log\n");
	await p2.setInputFiles("#upload-log", [bad]);
	await Promise.all([p2.waitForLoadState("load"), p2.click("form#upload button[type=submit]")]);
	L.check("a refused upload shows its reason", await p2.locator("#form-error .error").count() === 1);
	L.check("... with a link back", (await p2.locator("a#back").getAttribute("href")) === "/ui/runs#upload");

	// --- compare through the form: red cells --------------------------------------
	await page.goto(`${d.base}/`);
	L.check("home now offers form#compare", await page.locator("form#compare").isVisible());
	await page.selectOption("#compare-baseline", String(runA));
	await page.selectOption("#compare-candidate", "2");
	await page.selectOption("#compare-policy", "bitwise");
	await Promise.all([page.waitForURL(/\/ui\/comparisons\/\d+/, { timeout: 30000 }),
		page.click("form#compare button[type=submit]")]);
	L.check("landed on the comparison page", /\/ui\/comparisons\/1/.test(page.url()), page.url());
	// queued/running pages refresh themselves until done
	await page.waitForSelector("td.tint", { timeout: 60000 }).catch(async (e) => {
		fs.writeFileSync(path.join(L.artifacts, "forms_cmp.html"), await page.content());
		throw e;
	});
	const red = await page.locator("td.tint").count();
	L.check("red cells on the comparison page", red > 0, red);
	const bg = await page.locator("td.tint").first().evaluate((e) => getComputedStyle(e).backgroundColor);
	const m = bg.match(/\d+(\.\d+)?/g).map(Number);
	L.check("the cell is red", m[0] > m[1] && m[0] > m[2], bg);
	L.check("verdict fail", (await page.locator("#verdict").getAttribute("data-verdict")) === "fail");

	// --- list search ---------------------------------------------------------------
	await page.goto(`${d.base}/ui/runs`);
	await page.fill("#f-q", "TRACED");
	await Promise.all([page.waitForURL(/q=TRACED/), page.click("form#search button")]);
	const names = await page.locator("table#runs tbody tr td:nth-child(2)").allTextContents();
	L.check("runs search by name finds only traced", names.length === 1 && names[0] === "traced-bf16", names);
	await page.goto(`${d.base}/ui/comparisons?q=feature%2Ftraced&verdict=fail`);
	L.check("comparisons search by branch + verdict", await page.locator("table#comparisons tbody tr").count() === 1);
	L.check("... shows the first reason", (await page.locator("td.reason").first().textContent()).length > 10);

	// --- badges: a failed job is not a failing verdict -------------------------------
	const styles = await page.evaluate(() => {
		const mk = (cls, text) => {
			const s = document.createElement("span");
			s.className = cls;
			s.textContent = text;
			document.querySelector("main").appendChild(s);
			const c = getComputedStyle(s);
			return { bg: c.backgroundColor, fg: c.color, border: c.borderStyle };
		};
		return { failed: mk("badge job v-failed", "failed"), fail: mk("badge verdict v-fail", "fail") };
	});
	L.check("verdict fail badge is filled", styles.fail.bg !== "rgba(0, 0, 0, 0)", styles);
	L.check("job failed badge looks different", styles.failed.bg !== styles.fail.bg &&
		styles.failed.fg !== styles.fail.fg && styles.failed.border !== styles.fail.border, styles);
	const verdictBadge = await page.locator("table#comparisons .badge").first().getAttribute("class");
	L.check("list badge of a done comparison is a verdict", verdictBadge === "badge verdict v-fail", verdictBadge);

	// --- print: light, controls hidden ----------------------------------------------
	await page.emulateMedia({ media: "print", colorScheme: "dark" });
	const printBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
	L.check("print is light even in dark mode", printBg === "rgb(255, 255, 255)", printBg);
	L.check("print hides the forms", !(await page.locator("form#compare").isVisible()));
	await page.pdf({ path: path.join(L.artifacts, "comparisons_print.pdf"), format: "A4" }).catch(() => {});
	await page.emulateMedia({ media: "screen", colorScheme: "light" });

	// --- 390 px: no horizontal page scroll --------------------------------------------
	await page.setViewportSize({ width: 390, height: 844 });
	for (const url of ["/", "/ui/runs", "/ui/runs/1", "/ui/comparisons"]) {
		await page.goto(`${d.base}${url}`);
		const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
		L.check(`390 px: no horizontal scroll on ${url}`, over <= 1, over);
	}
	await page.goto(`${d.base}/`);
	await page.screenshot({ path: path.join(L.artifacts, "home_narrow.png"), fullPage: true });
	L.check("no CSP violations or script errors", problems.length === 0, problems);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (noJs) await noJs.close();
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
