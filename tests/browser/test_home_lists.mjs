// test_home_lists.mjs - issue 25 items 5-7 (the forms and list pages) in
// headless Chromium, at 1440x900 and at 390x844:
//  - home: the upload and compare forms come before the tables, near the
//    top, even with runs piled up;
//  - form#compare is kind-aware: a training baseline offers only training
//    candidates and training policies (default labelled "training:
//    premerge"), an activation baseline the activation ones; picking one
//    run twice shows p#self-compare; the re-run menus of a comparison
//    page offer only its kind's policies;
//  - a browser upload lands on the run page, whose "Compare with..." link
//    opens form#compare with the run preselected as candidate;
//  - run and comparison tables sort on a click of a header button
//    (aria-sort ascending, then descending);
//  - /ui/suites and /ui/baselines are pages linked from the header; the
//    suite page lists failing configs first, with their reason;
//  - "set as baseline" from the run page and the comparison page; on a
//    daemon with --require-tokens it is refused without a token (and with
//    a wrong one) and done with a valid one;
//  - a baseline's drift chart with one comparison says so (no empty box),
//    with two it draws; the baseline page does not scroll sideways at
//    390 px;
//  - no console error or CSP violation on the way.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let d2, ctx;
const VIEWPORTS = [{ width: 1440, height: 900 }, { width: 390, height: 844 }];

// the x overflow of the page (0: none)
const overflowX = (page) => page.evaluate(() =>
	document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function putBaseline(base, name, run, token) {
	const h = { "content-type": "application/json" };
	if (token) h.authorization = `Bearer ${token}`;
	const r = await fetch(`${base}/baselines/${name}`, { method: "PUT", headers: h, body: JSON.stringify({ run }) });
	if (!r.ok) throw new Error(`PUT baseline ${name}: ${r.status} ${await r.text()}`);
}

try {
	const [actA, actB] = L.gen("gen_actlog.py", "act", ["--layers", "2", "--scenario", "diverge"]);
	const [trA, trB] = L.gen("gen_trainlog.py", "train", ["--steps", "60", "--scenario", "regress", "--at", "30"]);
	const [, trC] = L.gen("gen_trainlog.py", "noise", ["--steps", "60", "--scenario", "noise"]);

	const a1 = await d.upload(actA, "act-base");
	const a2 = await d.upload(actB, "act-cand");
	const t1 = await d.upload(trA, "train-base");
	const t2 = await d.upload(trB, "train-regress");
	const t3 = await d.upload(trC, "train-noise");
	// runs piling up: the tables of home grow long
	for (let i = 0; i < 14; i++) await d.upload(actA, `pile-${i}`);

	const c1 = (await d.compare(a1, a2, { suite: "pr-1", config: "tp" })).id;
	const c2 = (await d.compare(t1, t3, { suite: "pr-1", config: "fsdp" })).id;
	await putBaseline(d.base, "golden/train", t1);
	const c3 = (await d.compare(undefined, t2, { baseline_name: "golden/train" })).id;

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	// the refused set-as-baseline requests log their 401 as a failed load: expected
	page.on("console", (m) => {
		if (m.type() === "error" && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
	});
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));

	for (const vp of VIEWPORTS) {
		const at = ` (${vp.width}x${vp.height})`;
		await page.setViewportSize(vp);

		// --- home: forms first -------------------------------------------------------
		await page.goto(`${d.base}/`);
		const box = async (sel) => (await page.locator(sel).boundingBox()) || { y: 1e9 };
		const up = await box("form#upload"), cf = await box("form#compare");
		const runsT = await box("table#runs"), cmpsT = await box("table#comparisons");
		L.check("home: form#upload near the top" + at, up.y < 400, up.y);
		L.check("home: both forms above the run and comparison tables" + at,
			up.y < runsT.y && cf.y < runsT.y && cf.y < cmpsT.y, { up: up.y, cf: cf.y, runsT: runsT.y, cmpsT: cmpsT.y });
		L.check("home: no sideways scroll" + at, (await overflowX(page)) <= 1);
		await page.screenshot({ path: path.join(L.artifacts, `home-${vp.width}.png`) });

		// --- kind-aware compare form ---------------------------------------------------
		const formState = () => page.evaluate(() => {
			const cand = document.getElementById("compare-candidate");
			const pol = document.getElementById("compare-policy");
			const on = (o) => !o.disabled && !(o.parentNode.tagName === "OPTGROUP" && o.parentNode.disabled);
			return {
				candKinds: [...new Set([...cand.options].filter(on).map((o) => o.dataset.kind))],
				cand: cand.value,
				candKind: cand.options[cand.selectedIndex].dataset.kind,
				policies: [...pol.options].filter(on).map((o) => o.value),
				policyLabel: pol.options[pol.selectedIndex].textContent,
				hiddenGroups: [...pol.querySelectorAll("optgroup")].filter((g) => g.hidden).map((g) => g.dataset.kind),
				self: !document.getElementById("self-compare").hidden,
			};
		});
		await page.selectOption("#compare-baseline", String(t1));
		let st = await formState();
		L.check("training baseline: only training candidates" + at,
			st.candKinds.length === 1 && st.candKinds[0] === "training" && st.candKind === "training", st);
		L.check("training baseline: only training policies, the default labelled by kind" + at,
			st.policies.every((v) => !/max_hash_distance/.test(v)) && st.policies.includes("premerge") &&
			/training: premerge/.test(st.policyLabel) && st.hiddenGroups.join() === "activation", st);
		L.check("training baseline: the candidate is another run (no self-compare warning)" + at,
			st.cand !== String(t1) && !st.self, st);
		await page.selectOption("#compare-baseline", String(a1));
		st = await formState();
		L.check("activation baseline: only activation candidates" + at,
			st.candKinds.length === 1 && st.candKinds[0] === "activation" && st.candKind === "activation", st);
		L.check("activation baseline: activation policies, default 'activation: bitwise'" + at,
			!st.policies.includes("premerge") && st.policies.some((v) => /max_hash_distance/.test(v)) &&
			/activation: bitwise/.test(st.policyLabel) && st.hiddenGroups.join() === "training", st);
		await page.selectOption("#compare-candidate", String(a1));
		st = await formState();
		L.check("the same run twice: p#self-compare shows" + at,
			st.self && await page.locator("#self-compare").isVisible(), st);
		await page.selectOption("#compare-candidate", String(a2));
		L.check("another candidate: the warning goes" + at, !(await formState()).self);

		// --- sortable tables ------------------------------------------------------------
		await page.goto(`${d.base}/ui/runs`);
		const ids = () => page.$$eval("table#runs tbody tr td:first-child", (tds) =>
			tds.map((td) => parseInt(td.textContent.replace("#", ""), 10)));
		const before = await ids();
		const idHead = page.locator("table#runs thead th").first();
		L.check("a header is a button" + at, (await idHead.locator("button.sort").count()) === 1 &&
			(await idHead.getAttribute("aria-sort")) === "none");
		await idHead.locator("button").click();
		const asc = await ids();
		L.check("click: rows ascending by #, aria-sort ascending" + at,
			asc.length === before.length && asc.every((v, i) => !i || asc[i - 1] <= v) &&
			asc[0] < before[0] && (await idHead.getAttribute("aria-sort")) === "ascending", asc.slice(0, 5));
		await idHead.locator("button").press("Enter");
		const desc = await ids();
		L.check("again (keyboard): descending, aria-sort descending" + at,
			desc.every((v, i) => !i || desc[i - 1] >= v) && (await idHead.getAttribute("aria-sort")) === "descending");
		await page.goto(`${d.base}/ui/comparisons`);
		const vh = page.locator("table#comparisons thead th", { hasText: "Verdict" });
		await vh.locator("button").click();
		const verdicts = await page.$$eval("table#comparisons tbody tr td:nth-child(2)", (t) => t.map((x) => x.textContent.trim()));
		L.check("comparisons sort by verdict" + at, verdicts.join() === [...verdicts].sort().join() &&
			(await vh.getAttribute("aria-sort")) === "ascending", verdicts);

		// --- suites and baselines pages, linked from the header ---------------------------
		await page.goto(`${d.base}/`);
		const nav = page.locator("header.top nav");
		L.check("header links Suites and Baselines" + at,
			(await nav.locator('a[href="/ui/suites"]').count()) === 1 &&
			(await nav.locator('a[href="/ui/baselines"]').count()) === 1);
		await nav.locator('a[href="/ui/suites"]').click();
		await page.waitForURL(/\/ui\/suites$/);
		L.check("/ui/suites is a page listing pr-1" + at,
			(await page.locator("h1").textContent()) === "Suites" &&
			(await page.locator('table#suites a[href="/ui/suites/pr-1"]').count()) === 1);
		L.check("/ui/suites: pr-1 fails, 1 of 2 configs failing" + at,
			/fail/.test(await page.locator("table#suites tbody tr").first().textContent()) &&
			(await page.locator("table#suites tbody tr td:nth-child(4)").first().textContent()) === "1");
		L.check("/ui/suites: no sideways scroll" + at, (await overflowX(page)) <= 1);
		await page.screenshot({ path: path.join(L.artifacts, `suites-${vp.width}.png`) });
		await page.locator('table#suites a[href="/ui/suites/pr-1"]').click();
		await page.waitForURL(/\/ui\/suites\/pr-1$/);
		const reasonOf = (cfg) => page.locator("table#suite tbody tr", { has: page.locator(`th:text-is("${cfg}")`) })
			.locator("td.reason").textContent();
		const tpReason = (await reasonOf("tp")).trim(), fsdpReason = (await reasonOf("fsdp")).trim();
		L.check("suite page: the failing config's reason" + at, tpReason.length > 10, tpReason);
		L.check("suite page: the passing config has none" + at, fsdpReason === "", fsdpReason);
		L.check("suite page: the failing config first" + at,
			(await page.locator("table#suite tbody tr th").first().textContent()) === "tp");
		await page.locator('header.top nav a[href="/ui/baselines"]').click();
		await page.waitForURL(/\/ui\/baselines$/);
		L.check("/ui/baselines is a page listing golden/train" + at,
			(await page.locator('table#baselines a[href="/ui/baselines/golden/train"]').count()) === 1);
	}

	// --- a browser upload, then "Compare with..." --------------------------------------------
	await page.setViewportSize(VIEWPORTS[0]);
	await page.goto(`${d.base}/`);
	await page.setInputFiles("#upload-log", actB);
	await page.fill("#upload-name", "from-the-browser");
	await Promise.all([page.waitForURL(/\/ui\/runs\/\d+$/), page.click("form#upload button[type=submit]")]);
	const newRun = parseInt(page.url().split("/").pop(), 10);
	const cw = page.locator("#compare-with a");
	L.check("after the upload: a Compare with... link on the run page", await cw.isVisible() &&
		(await cw.getAttribute("href")).includes(`candidate=${newRun}`));
	await cw.click();
	await page.waitForURL(/\/ui\/comparisons\?candidate=/);
	L.check("... opens form#compare with the new run as candidate",
		(await page.inputValue("#compare-candidate")) === String(newRun));
	const baseKind = await page.$eval("#compare-baseline", (s) => s.options[s.selectedIndex].dataset.kind);
	L.check("... and a baseline of its kind that is another run", baseKind === "activation" &&
		(await page.inputValue("#compare-baseline")) !== String(newRun));

	// --- re-run menus per kind ---------------------------------------------------------------
	const rerunPolicies = async (id) => {
		await page.goto(`${d.base}/ui/comparisons/${id}`);
		return page.$$eval("#rerun-policy option", (os) => os.map((o) => [o.value, o.textContent]));
	};
	const trainMenu = await rerunPolicies(c3);
	L.check("training comparison: re-run offers training policies only",
		trainMenu.length > 0 && trainMenu.every(([v]) => !/max_hash_distance/.test(v)) &&
		/training: premerge/.test(trainMenu[0][1]), trainMenu);
	L.check("training comparison: set-as-baseline prefilled with its baseline name",
		(await page.inputValue("#cmp-actions form.set-baseline input[name=name]")) === "golden/train");
	const actMenu = await rerunPolicies(c1);
	L.check("activation comparison: re-run offers activation policies only",
		actMenu.every(([v]) => v !== "premerge") && /activation: bitwise/.test(actMenu[0][1]), actMenu);

	// --- set as baseline from the run page (writes open: no token needed) ------------------
	const setBaseline = async (base, run, name, token) => {
		await page.goto(`${base}/ui/runs/${run}`);
		await page.locator("details.set-baseline > summary").click();
		await page.fill("#sb-name", name);
		await page.fill("#sb-token", token || "");
		await page.click("#set-baseline button[type=submit]");
		await page.waitForSelector("#sb-status[data-state]");
		return { state: await page.getAttribute("#sb-status", "data-state"), text: await page.textContent("#sb-status") };
	};
	let res = await setBaseline(d.base, t2, "golden/ui");
	L.check("set as baseline from the run page", res.state === "ok" && /golden\/ui/.test(res.text), res);
	await page.screenshot({ path: path.join(L.artifacts, "run-set-baseline.png"), fullPage: true });
	const got = await (await fetch(`${d.base}/baselines/golden/ui`)).json();
	L.check("... the API shows it", got.run === t2 || (got.run && got.run.id === t2), got);

	// --- drift chart: one comparison, then two; the phone width ----------------------------
	await page.goto(`${d.base}/ui/baselines/golden/train`);
	const one = await page.locator("#drift-one").textContent();
	L.check("drift with one comparison: says so, with its values",
		/^Only one comparison has a max \|diff\| so far: max \|diff\| loss [0-9.e-]+, max \|diff\| grad_norm [0-9.e-]+\./.test(one), one);
	L.check("drift with one comparison: no empty chart", (await page.locator("#drift svg").count()) === 0);
	await d.compare(undefined, t3, { baseline_name: "golden/train" });
	for (const vp of VIEWPORTS) {
		await page.setViewportSize(vp);
		await page.goto(`${d.base}/ui/baselines/golden/train`);
		L.check(`drift with two comparisons: a chart (${vp.width})`,
			(await page.locator("#drift svg path.line").count()) >= 1 && (await page.locator("#drift-one").count()) === 0);
		L.check(`baseline page: no sideways scroll (${vp.width})`, (await overflowX(page)) <= 1, await overflowX(page));
		await page.screenshot({ path: path.join(L.artifacts, `baseline-${vp.width}.png`), fullPage: true });
		await page.goto(`${d.base}/ui/baselines`);
		L.check(`baselines list: no sideways scroll (${vp.width})`, (await overflowX(page)) <= 1);
	}
	await page.setViewportSize(VIEWPORTS[0]);

	// --- tokens: refused without, done with --------------------------------------------------
	d2 = await new L.Daemon().start(["--require-tokens"]);
	const token = execFileSync(L.bin(), ["token", "create", "--name", "ui", "--data", path.join(d2.dir, "data")])
		.toString().trim();
	const fd = new FormData();
	fd.append("log", new Blob([fs.readFileSync(trA)]), "train.log");
	fd.append("name", "guarded");
	const ur = await fetch(`${d2.base}/runs`, { method: "POST", body: fd, headers: { authorization: `Bearer ${token}` } });
	const gr = (await ur.json()).id;
	L.check("token daemon: upload with the token", ur.status === 201 && gr > 0, ur.status);
	res = await setBaseline(d2.base, gr, "guarded/base", "");
	L.check("set as baseline without a token: refused (401)", res.state === "refused" && /401/.test(res.text), res);
	L.check("... nothing set", (await fetch(`${d2.base}/baselines/guarded/base`)).status === 404);
	res = await setBaseline(d2.base, gr, "guarded/base", "pty_not-a-real-token");
	L.check("with a wrong token: refused", res.state === "refused" && /401/.test(res.text), res);
	res = await setBaseline(d2.base, gr, "guarded/base", token);
	L.check("with the token: done", res.state === "ok", res);
	const gb = await (await fetch(`${d2.base}/baselines/guarded/base`)).json();
	L.check("... the API shows it, set by the token", JSON.stringify(gb).includes('"ui"'), gb);
	L.check("the token field is emptied after use", (await page.inputValue("#sb-token")) === "");

	L.check("no console error or CSP violation", problems.length === 0, problems);
} catch (e) {
	L.check(`no exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	await d.stop();
	if (d2) await d2.stop();
	L.cleanup();
}
process.exit(L.report());
