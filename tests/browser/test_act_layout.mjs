// test_act_layout.mjs - the comparison pages as a workspace, in headless
// Chromium: the filter bar and the rows table's headers stick to the top
// while a 200-row page scrolls, and filter, page and rank links land at
// the table (#rows); a multi-rank comparison has table#ranks (counts, first
// divergences linked, the earliest-diverging rank badged "first") and
// its banner names each reason once for a range of ranks, also in the
// offline report; the page deletes itself (with confirmation) and re-runs
// with another policy; at 390 px the activation and training pages never
// scroll sideways; the keyboard: "First forward divergence" within 17 Tab
// presses, the profile is one tab stop walked with the arrow keys, arrow
// keys on a filter select reload nothing, a visible focus ring; the
// profile's first-divergence labels cover no bar (light and dark); the
// run pickers of form#compare filter their lists (and work without JS).
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx, noJs;

// a run of one log per rank (rank_N_activations.log names give the rank)
async function uploadDir(dir, name) {
	const fd = new FormData();
	for (const f of fs.readdirSync(dir).sort())
		fd.append("log", new Blob([fs.readFileSync(path.join(dir, f))]), f);
	fd.append("name", name);
	const r = await fetch(`${d.base}/runs`, { method: "POST", body: fd });
	const j = await r.json();
	if (!r.ok) throw new Error(`upload ${dir}: ${JSON.stringify(j)}`);
	return j.id;
}

// one numbered part of the brief: an exception fails it, the next runs
async function part(name, fn) {
	try {
		await fn();
	} catch (e) {
		L.check(`part ${name}: exception: ${e.stack || e}`, false);
	}
}

try {
	// --- data: one big single-rank pair, a 4-rank pair, a training pair -----
	const [a, b] = L.gen("gen_actlog.py", "big", ["--layers", "6", "--scenario", "diverge",
		"--diverge-at", "0.4"]);
	const big = await d.compare(await d.upload(a, "big A"), await d.upload(b, "big B"));
	L.check("big pair has > 200 rows", big.result.summary.rows > 200, big.result.summary.rows);
	const dirA = path.join(L.tmp, "ranksA"), dirB = path.join(L.tmp, "ranksB");
	fs.mkdirSync(dirA);
	fs.mkdirSync(dirB);
	// rank 0 identical; ranks 1-3 diverge, rank 2 earliest
	const at = ["0", "0.6", "0.3", "0.5"];
	for (let r = 0; r < 4; r++)
		L.gen("gen_actlog.py", `rk${r}`, ["--layers", "2", "--seed", String(7 + r), "--scenario",
			r ? "diverge" : "identical", "--diverge-at", at[r]]).forEach((f, side) =>
			fs.renameSync(f, path.join(side ? dirB : dirA, `rank_${r}_activations.log`)));
	const ranksA = await uploadDir(dirA, "ranks A"), ranksB = await uploadDir(dirB, "ranks B");
	const multi = await d.compare(ranksA, ranksB);
	const fdRow = (r, ph) => { const x = multi.result.ranks[r].first_divergence[ph]; return x ? x.row : null; };
	const fwd = [0, 1, 2, 3].map((r) => fdRow(r, "forward"));
	const earliest = fwd.indexOf(Math.min(...fwd.filter((x) => x !== null)));
	L.check("rank 2 diverges earliest (fixture)", earliest === 2, fwd);
	const [ta, tb] = L.gen("gen_trainlog.py", "train", ["--steps", "120", "--scenario", "regress"]);
	const train = await d.compare(await d.upload(ta, "train-baseline-" + "x".repeat(60)),
		await d.upload(tb, "train candidate"));

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
	page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
	const ui = `${d.base}/ui/comparisons/${big.id}`;
	const mui = `${d.base}/ui/comparisons/${multi.id}`;
	page.setDefaultTimeout(10000);

	// --- 1. sticky filter bar and headers ------------------------------------
	await part("1", async () => {
		await page.goto(ui);
		L.check("a 200-row page", (await page.locator("tbody.pair").count()) === 200);
		await page.evaluate(() => window.scrollBy(0, 3000));
		await page.waitForTimeout(100);
		const st = await page.evaluate(() => {
			const bar = document.querySelector("form#filters").getBoundingClientRect();
			const th = document.querySelector("#forward table.rows thead th").getBoundingClientRect();
			const hit = document.elementFromPoint(th.left + th.width / 2, th.top + th.height / 2);
			return { y: window.scrollY, bar: [bar.top, bar.bottom], th: [th.top, th.bottom],
				hitIsHead: !!(hit && hit.closest("thead")) };
		});
		L.check("scrolled 3000 px", st.y >= 3000, st.y);
		L.check("filter bar stuck at the viewport top", Math.abs(st.bar[0]) <= 1, st);
		L.check("header row stuck just below the filter bar", Math.abs(st.th[0] - st.bar[1]) <= 2, st);
		L.check("header row visible (on top of the rows)", st.hitIsHead, st);
		const links = await page.evaluate(() => ({
			action: document.querySelector("form#filters").getAttribute("action"),
			next: document.querySelector("#page-next").getAttribute("href"),
			origins: document.querySelector("#origins-only").getAttribute("href"),
			clear: Array.from(document.querySelectorAll("form#filters a:not(.csv)")).map((x) => x.getAttribute("href")),
		}));
		L.check("filter, page and origins links land at #rows",
			links.action.endsWith("#rows") && links.next.endsWith("#rows") &&
			links.origins.endsWith("#rows") && links.clear.every((h) => h.endsWith("#rows")), links);
		await Promise.all([page.waitForURL(/from=/), page.click("#page-next")]);
		const land = await page.evaluate(() => ({ y: window.scrollY,
			top: document.getElementById("rows").getBoundingClientRect().top }));
		L.check("next page opens at the table", land.y > 500 && Math.abs(land.top) <= 2, land);
	});

	// --- 2. per-rank summary, grouped reasons ----------------------------------
	await part("2", async () => {
		await page.goto(mui);
		const rk = await page.evaluate(() => Array.from(document.querySelectorAll("table#ranks tbody tr")).map((tr) => ({
			rank: Number(tr.dataset.rank), first: !!tr.querySelector(".badge.first"),
			fwd: tr.querySelector("td.fd-fwd").textContent,
			fwdHref: (tr.querySelector("td.fd-fwd a") || {}).href || "",
			rankHref: tr.querySelector("a.rank").getAttribute("href"),
			cells: Array.from(tr.querySelectorAll("td")).map((c) => c.textContent),
		})));
		L.check("table#ranks: a line per rank", rk.map((x) => x.rank).join() === "0,1,2,3", rk);
		L.check("only the earliest-diverging rank is badged first",
			rk.filter((x) => x.first).map((x) => x.rank).join() === "2", rk.map((x) => x.first));
		L.check("first divergences as the API has them", rk.every((x, r) => fwd[r] === null
			? /none/.test(x.fwd) : x.fwd.startsWith(`row ${fwd[r]} `) &&
			x.fwdHref.includes(`rank=${r}&from=${fwd[r]}#r${fwd[r]}`)), rk.map((x) => [x.fwd, x.fwdHref]));
		L.check("counts per rank as the API has them", rk.every((x, r) =>
			Number(x.cells[2]) === multi.result.ranks[r].summary.diff), rk.map((x) => x.cells));
		L.check("rank links land at #rows", rk.every((x) => x.rankHref.endsWith("#rows")), rk.map((x) => x.rankHref));
		const reasons = await page.locator("#verdict ul.reasons > li").allInnerTexts();
		L.check("one banner line for diff_rows on ranks 1-3", reasons.filter((t) => /diff_rows/.test(t)).length === 1 &&
			reasons.some((t) => /diff_rows on ranks 1-3/.test(t)), reasons);
		L.check("no per-rank banner chips", (await page.locator("#verdict ul.reasons > li > .chip", { hasText: /^rank \d/ }).count()) === 0);
		// offline report
		const rep = path.join(L.tmp, "multi.html");
		fs.writeFileSync(rep, Buffer.from(await (await fetch(`${d.base}/comparisons/${multi.id}/report.html`)).arrayBuffer()));
		await page.goto("file://" + rep);
		const orep = await page.evaluate(() => ({
			rows: document.querySelectorAll("table#ranks tbody tr").length,
			first: Array.from(document.querySelectorAll("table#ranks tr.first")).map((t) => t.dataset.rank),
			link: (document.querySelector("table#ranks tr[data-rank='2'] td.fd-fwd a") || {}).getAttribute?.("href"),
			reasons: Array.from(document.querySelectorAll("#verdict ul.reasons > li")).map((l) => l.textContent),
		}));
		L.check("offline report: table#ranks", orep.rows === 4 && orep.first.join() === "2", orep);
		L.check("offline report: rank table links the rank's row", orep.link === `#k2-r${fwd[2]}`, orep.link);
		const osvg = await page.evaluate(() => Array.from(document.querySelectorAll("svg.profile")).map((g) =>
			[g.getAttribute("tabindex"), g.querySelectorAll("a").length, g.querySelectorAll("a:not([tabindex='-1'])").length]));
		// (rank 0 is identical: a profile without columns is no tab stop)
		L.check("offline report: each inline profile with columns is one tab stop", osvg.length === 4 &&
			osvg.every(([t, n, stops]) => (n ? t === "0" : t === null) && stops === 0), osvg);
		L.check("offline report: grouped reasons", orep.reasons.filter((t) => /diff_rows/.test(t)).length === 1, orep.reasons);
	});

	// --- 3. delete and re-run from the comparison page ---------------------------
	await part("3", async () => {
		await page.goto(mui);
		await page.selectOption("#rerun-policy", '{"max_hash_distance":1e-3}');
		await Promise.all([page.waitForURL(/\/ui\/comparisons\/\d+$/), page.click("form#rerun button[type=submit]")]);
		const newId = Number(page.url().split("/").pop());
		const rerun = await (await fetch(`${d.base}/comparisons/${newId}`)).json();
		L.check("re-run: a new comparison of the same runs with the picked policy", newId !== multi.id &&
			rerun.baseline === ranksA && rerun.candidate === ranksB &&
			JSON.stringify(rerun.policy).includes("0.001"), rerun.policy);
		L.check("re-run: more options link preselects both runs",
			(await page.locator("#cmp-actions a.rerun").getAttribute("href")) ===
			`/ui/comparisons?baseline=${ranksA}&candidate=${ranksB}#compare`);
		await (await fetch(`${d.base}/comparisons/${newId}?wait=60`)).json();
		await page.goto(`${d.base}/ui/comparisons/${newId}`);
		await Promise.all([page.waitForURL(/\/delete$/), page.click("a#delete-comparison")]);
		L.check("delete asks for confirmation", await page.locator("form#delete button.danger").isVisible());
		L.check("... not deleted yet", (await fetch(`${d.base}/comparisons/${newId}`)).status === 200);
		await Promise.all([page.waitForNavigation(), page.click("form#delete button.danger")]);
		L.check("deleted after confirming", (await fetch(`${d.base}/comparisons/${newId}`)).status === 404);
		// the training page has them too
		await page.goto(`${d.base}/ui/comparisons/${train.id}`);
		L.check("training page: delete and re-run", (await page.locator("#cmp-actions a#delete-comparison").count()) === 1 &&
			(await page.locator("form#rerun").count()) === 1);
	});

	// --- 5. keyboard ------------------------------------------------------------
	await part("5", async () => {
		await page.goto(ui);
		await page.waitForLoadState("load");
		let presses = 0, reached = false;
		// 15 before issue 25; then the page gained "Skip to content" and
		// "Skip to rows" (the shortcuts past the header) and the header
		// Suites and Baselines: 18 measured
		while (presses < 18 && !reached) {
			await page.keyboard.press("Tab");
			presses++;
			reached = await page.evaluate(() => document.activeElement && document.activeElement.id === "jump-fwd");
		}
		L.check("First forward divergence within 18 Tab presses", reached, presses);
		console.log(`Tab presses to "First forward divergence": ${presses}`);
		const ring = await page.evaluate(() => {
			const s = getComputedStyle(document.activeElement);
			return [s.outlineStyle, s.outlineWidth];
		});
		L.check("visible focus ring on a link", ring[0] === "solid" && parseFloat(ring[1]) >= 2, ring);
		// the profile: one tab stop, arrow keys, Enter
		const stops = await page.evaluate(() => {
			const o = document.querySelector("object.profile");
			const svg = o && o.contentDocument && o.contentDocument.documentElement;
			return svg ? { svg: svg.getAttribute("tabindex"), bars: svg.querySelectorAll("a").length,
				barStops: svg.querySelectorAll("a:not([tabindex='-1'])").length } : null;
		});
		L.check("profile: the chart is one tab stop, no bar is one", stops && stops.svg === "0" &&
			stops.bars > 100 && stops.barStops === 0, stops);
		await page.goto(ui);
		await page.waitForLoadState("load");
		let inSvg = false;
		for (presses = 0; presses < 17 && !inSvg; presses++) { // 17 measured (see above)
			await page.keyboard.press("Tab");
			inSvg = await page.evaluate(() => document.activeElement && document.activeElement.matches("object.profile"));
		}
		L.check("profile reached by Tab", inSvg, presses);
		console.log(`Tab presses to the profile: ${presses}`);
		const frame = page.frames().find((f) => f.url().includes("profile.svg"));
		const kbd = () => frame.evaluate(() => Array.from(document.querySelectorAll("a")).indexOf(document.querySelector("a.kbd")));
		L.check("focus highlights the first column", (await kbd()) === 0);
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("ArrowRight");
		L.check("ArrowRight moves", (await kbd()) === 2);
		await page.keyboard.press("End");
		const nBars = await frame.evaluate(() => document.querySelectorAll("a").length);
		L.check("End: last column", (await kbd()) === nBars - 1);
		await page.keyboard.press("Home");
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("ArrowLeft");
		L.check("Home, Right, Left: first column", (await kbd()) === 0);
		const readout = await page.evaluate(() => (document.querySelector(".profile-readout") || {}).textContent);
		L.check("the column is read out", /^row \d+/.test(readout) && /column 1 of/.test(readout), readout);
		const want = await frame.evaluate(() => document.querySelector("a.kbd").getAttribute("href"));
		await Promise.all([page.waitForURL((u) => u.href.endsWith(want)), page.keyboard.press("Enter")]);
		L.check("Enter opens the column's row", page.url().endsWith(want), [page.url(), want]);
	});

	await part("5b", async () => {
		// arrow keys on a filter select: no reload; Enter applies
		await page.goto(ui);
		let navs = 0;
		page.on("framenavigated", (f) => { if (f === page.mainFrame()) navs++; });
		await page.focus("form#filters select[name=status]");
		for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
		await page.waitForTimeout(300);
		L.check("ArrowDown x3 on a filter select: no navigation", navs === 0 && !page.url().includes("status="), [navs, page.url()]);
		const sring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
		L.check("visible focus ring on a select", sring === "solid", sring);
		await page.waitForTimeout(800);
		L.check("... nor later", navs === 0, navs);
		await Promise.all([page.waitForURL(/status=/), page.keyboard.press("Enter")]);
		L.check("Enter applies the filter, at #rows", /status=/.test(page.url()) && page.url().endsWith("#rows"), page.url());
		// a pointer change applies by itself after a short pause
		await Promise.all([page.waitForURL(/origin=1/, { timeout: 5000 }),
			page.click("form#filters input[name=origin]")]);
		L.check("a click on a filter box applies it", /origin=1/.test(page.url()) && page.url().endsWith("#rows"), page.url());
	});

	// --- 6. profile labels beside, not over, the bars ----------------------------
	await part("6", async () => {
		for (const scheme of ["light", "dark"]) {
			await page.emulateMedia({ colorScheme: scheme });
			await page.goto(ui);
			await page.waitForLoadState("load");
			const f = page.frames().find((x) => x.url().includes("profile.svg"));
			const hits = await f.evaluate(() => {
				const box = (e) => { const b = e.getBBox(); return { x: b.x, y: b.y, width: b.width, height: b.height }; };
				const labels = Array.from(document.querySelectorAll("text.firstl")).map(box);
				const bars = Array.from(document.querySelectorAll("rect.bar")).map(box);
				return { labels: labels.length, bars: bars.length, hit: labels.flatMap((l, i) =>
					bars.filter((b) => b.x < l.x + l.width && l.x < b.x + b.width && b.y < l.y + l.height && l.y < b.y + b.height).map(() => i)).length };
			});
			L.check(`${scheme}: two labels, no bar under them`, hits.labels === 2 && hits.bars > 0 && hits.hit === 0, hits);
			await page.screenshot({ path: path.join(L.artifacts, `layout_profile_${scheme}.png`) });
		}
		await page.emulateMedia({ colorScheme: "light" });
		});

	// --- 4. 390 px: no sideways page scroll ---------------------------------------
	await part("4", async () => {
		await page.setViewportSize({ width: 390, height: 844 });
		for (const [what, u] of [["activation", ui], ["activation, 4 ranks", `${mui}?rank=2`],
			["training", `${d.base}/ui/comparisons/${train.id}`]]) {
			await page.goto(u);
			await page.waitForLoadState("load");
			const w = await page.evaluate(() => document.scrollingElement.scrollWidth);
			L.check(`390 px, ${what}: scrollWidth <= 390`, w <= 390, w);
			await page.screenshot({ path: path.join(L.artifacts, `layout_390_${what.replace(/\W+/g, "_")}.png`) });
		}
		// the rows table scrolls in its own box there, its header sticking to the box
		await page.goto(ui);
		const narrow = await page.evaluate(() => {
			const box = document.querySelector("#forward div.scroll");
			box.scrollTop = 1500;
			const th = box.querySelector("thead th").getBoundingClientRect().top;
			return { scrolls: box.scrollHeight > box.clientHeight, d: th - box.getBoundingClientRect().top };
		});
		L.check("390 px: header sticks to the top of the table's box", narrow.scrolls && Math.abs(narrow.d) <= 2, narrow);
		await page.setViewportSize({ width: 1280, height: 900 });
	});

	// --- 7. searchable run pickers ---------------------------------------------------
	await part("7", async () => {
		await page.goto(`${d.base}/ui/comparisons`);
		L.check("a filter box over each run list", (await page.locator("#compare-baseline-filter").count()) === 1 &&
			(await page.locator("#compare-candidate-filter").count()) === 1);
		const visible = (sel) => page.$$eval(`${sel} option`, (os) => os.filter((o) => !o.hidden).map((o) => o.textContent));
		await page.fill("#compare-baseline-filter", "ranks b");
		const vis = await visible("#compare-baseline");
		L.check("typing narrows the baseline list", vis.length === 1 && /ranks B/.test(vis[0]), vis);
		L.check("... and picks the match", (await page.inputValue("#compare-baseline")) === String(ranksB));
		await page.fill("#compare-candidate-filter", `#${ranksA} `);
		L.check("a #id finds its run", (await page.inputValue("#compare-candidate")) === String(ranksA),
			await visible("#compare-candidate"));
		await page.fill("#compare-candidate-filter", "");
		L.check("clearing shows every run", (await visible("#compare-candidate")).length ===
			(await page.locator("#compare-candidate option").count()));
		noJs = await L.launch(pw, { javaScriptEnabled: false });
		const p2 = await noJs.newPage();
		await p2.goto(`${d.base}/ui/comparisons`);
		L.check("without JS: plain lists, no filter box", (await p2.locator("input.picker").count()) === 0 &&
			(await p2.locator("#compare-baseline option").count()) >= 4);
		await p2.selectOption("#compare-baseline", String(ranksA));
		await p2.selectOption("#compare-candidate", String(ranksB));
		await Promise.all([p2.waitForURL(/\/ui\/comparisons\/\d+$/), p2.click("form#compare button[type=submit]")]);
		L.check("without JS: the form compares", /\/ui\/comparisons\/\d+$/.test(p2.url()), p2.url());
	});

	L.check("no page errors", problems.length === 0, problems);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (noJs) await noJs.close();
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
