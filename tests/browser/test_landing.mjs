// test_landing.mjs - issue 25: a failed activation comparison opens where
// it fails, in headless Chromium at 1440x900 and 390x844.  A comparison
// diverging past row 200 (gen_actlog.py --scenario diverge) opens on the
// page holding its first divergence, says how many rows are hidden and
// links to the start (an explicit ?from= still wins); its red cells are
// in view on landing and each carries its number (span.dv) and a title
// with the exact value; every visible text on the activation and training
// pages has >= 4.5:1 contrast against its effective background (light and
// dark); the cause chain from the max-distance row and from the optimizer
// step reaches an origin and names op keys (no literal "&larr;"); the
// last page and go-to-row work; the skip links come first in the tab
// order; the input-hash links are out of it (tabindex=-1); the bad-regex
// page shows no markup as text; both pages link their PDF, CSV and (the
// training page) PNG charts, and those URLs answer 200 with the right
// content type.  Screenshots saved to PARITY_ARTIFACTS.
import path from "node:path";
import * as L from "./lib.mjs";

const VIEWPORTS = [{ width: 1440, height: 900 }, { width: 390, height: 844 }];

// Every visible element with its own text: its colour against the
// background it is drawn on (the ancestors' backgrounds composited over
// white), as WCAG contrast ratios; those below min are returned.  SVG text
// (drawn with fill, in charts) is left out.
function lowContrast(min) {
	const parse = (c) => {
		const m = (c || "").match(/[\d.]+/g);
		if (!m) return [0, 0, 0, 0];
		const v = m.map(Number);
		return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
	};
	const over = (top, under) => {
		const a = top[3];
		return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
	};
	const lum = (c) => {
		const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
		return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
	};
	const background = (el) => {
		const layers = [];
		for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
			const bg = parse(getComputedStyle(e).backgroundColor);
			if (bg[3] > 0) layers.push(bg);
			if (bg[3] >= 1) break;
		}
		let c = [255, 255, 255, 1];
		for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
		return c;
	};
	const bad = [];
	let n = 0;
	for (const el of document.querySelectorAll("body *")) {
		if (el.closest("svg, script, style, option, noscript")) continue;
		const own = Array.from(el.childNodes).some((t) => t.nodeType === 3 && t.textContent.trim());
		if (!own) continue;
		const cs = getComputedStyle(el);
		if (cs.visibility !== "visible" || cs.display === "none" || !el.getClientRects().length) continue;
		if (Number(cs.opacity) === 0) continue;
		const bg = background(el);
		const fg = over(parse(cs.color), bg);
		const l1 = lum(fg), l2 = lum(bg);
		const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
		n++;
		if (ratio < min)
			bad.push({ text: el.textContent.trim().slice(0, 40), cls: `${el.tagName}.${el.className}`,
				fg: cs.color, bg: `rgb(${bg.slice(0, 3).map(Math.round).join(",")})`,
				ratio: Math.round(ratio * 100) / 100 });
	}
	return { n, bad: bad.slice(0, 12), nBad: bad.length };
}

async function contrast(page, what) {
	for (const scheme of ["light", "dark"]) {
		await page.emulateMedia({ colorScheme: scheme });
		const r = await page.evaluate(lowContrast, 4.5);
		L.check(`${what} (${scheme}): every text >= 4.5:1`, r.n > 50 && r.nBad === 0, r);
	}
	await page.emulateMedia({ colorScheme: "light" });
}

// one numbered part: an exception fails it, the next runs
async function part(name, fn) {
	try {
		await fn();
	} catch (e) {
		L.check(`part ${name}: exception: ${e.stack || e}`, false);
	}
}

const pw = await L.loadPlaywright();
const d = await new L.Daemon().start();
let ctx;
try {
	const [a, b] = L.gen("gen_actlog.py", "land", ["--layers", "16", "--scenario", "diverge",
		"--diverge-at", "0.85"]);
	const cmp = await d.compare(await d.upload(a, "baseline"), await d.upload(b, "candidate"));
	const id = cmp.id;
	const fd = cmp.result.first_divergence.forward.row;
	const rows = await d.rows(id);
	const nRows = rows.length;
	const maxRow = cmp.result.summary.max_hash_row;
	const optRow = rows.filter((r) => /fused_adamw/.test(r.a_key || ""))[0];
	L.check("diverges past row 200", cmp.verdict === "fail" && fd > 200, fd);
	L.check("the optimizer step differs", optRow && optRow.status === "diff", optRow && optRow.status);
	const origins = new Set(rows.filter((r) => r.origin).map((r) => r.idx));
	const ui = `${d.base}/ui/comparisons/${id}`;

	const [ta, tb] = L.gen("gen_trainlog.py", "landtrain", ["--steps", "300", "--scenario", "regress",
		"--at", "150"]);
	const tcmp = await d.compare(await d.upload(ta, "tbase"), await d.upload(tb, "tcand"));
	const tui = `${d.base}/ui/comparisons/${tcmp.id}`;
	L.check("training comparison fails", tcmp.verdict === "fail", tcmp.verdict);

	ctx = await L.launch(pw);
	const page = await ctx.newPage();
	const problems = [];
	page.on("console", (m) => {
		if (m.type() === "error" && !/status of 400/.test(m.text())) problems.push(`console: ${m.text()}`);
	});
	page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));

	for (const vp of VIEWPORTS) {
		const tag = `${vp.width}x${vp.height}`;
		await page.setViewportSize(vp);

		await part(`${tag} landing`, async () => {
			const resp = await page.goto(ui);
			L.check(`${tag}: page 200`, resp.status() === 200, resp.status());
			const idxs = await page.$$eval("tbody.pair", (ts) => ts.map((t) => Number(t.dataset.idx)));
			L.check(`${tag}: the first divergence's row is on the landing page`, idxs.includes(fd),
				[idxs[0], idxs[idxs.length - 1]]);
			L.check(`${tag}: a few rows of context above it`, idxs[0] < fd && fd - idxs[0] <= 10, idxs[0]);
			const note = await page.locator("#landed").innerText();
			L.check(`${tag}: the hidden rows are counted`, note.includes(`rows 0\u2013${idxs[0] - 1} above this page are hidden (${idxs[0]} rows)`), note);
			// red cells in view on landing, each with its number and exact value
			const red = await page.evaluate(() => {
				const cells = Array.from(document.querySelectorAll("td.tint"));
				const inView = cells.filter((c) => {
					const r = c.getBoundingClientRect();
					return r.width > 0 && r.bottom > 0 && r.top < innerHeight && r.left < innerWidth && r.right > 0;
				});
				const bad = cells.filter((c) => {
					const dv = c.querySelector(".dv");
					const t = dv ? dv.textContent : "";
					const title = c.getAttribute("title") || "";
					if (c.classList.contains("shape")) return !(t === "\u2260" && /shapes/.test(title));
					return !(/^\d(\.\d)?(e[-+]\d+)?$|^0\.\d+$/.test(t) && /(distance|difference).* = \d/.test(title) &&
						Math.abs(Number(title.split(" = ")[1]) - Number(t)) <= Number(t) * 0.06);
				}).map((c) => c.outerHTML.slice(0, 200));
				return { n: cells.length, inView: inView.length, bad: bad.slice(0, 3), nBad: bad.length };
			});
			L.check(`${tag}: red cells in view on landing`, red.inView > 0, red);
			L.check(`${tag}: every tinted cell carries its number and a title`, red.n > 100 && red.nBad === 0, red);
			await page.screenshot({ path: path.join(L.artifacts, `landing_${tag}.png`) });
			await contrast(page, `${tag} activation page`);

			// explicit positions win; the start link opens the start
			await page.click("#landed-start");
			let first = await page.$eval("tbody.pair", (t) => Number(t.dataset.idx));
			L.check(`${tag}: "show from the start" opens row 0`, first === 0 &&
				(await page.locator("#landed").count()) === 0, first);
			await page.goto(`${ui}?rank=0&from=50`);
			first = await page.$eval("tbody.pair", (t) => Number(t.dataset.idx));
			L.check(`${tag}: ?from=50 opens at row 50`, first === 50 && (await page.locator("#landed").count()) === 0, first);
			await page.goto(`${ui}?rank=0&status=diff`);
			first = await page.$eval("tbody.pair", (t) => Number(t.dataset.idx));
			L.check(`${tag}: a filtered view opens at its first row`, first === fd, first);
		});

		await part(`${tag} cause chain`, async () => {
			for (const [what, start] of [["max-distance row", maxRow], ["optimizer step", optRow.idx]]) {
				// the row's "origin" link, as a reader clicks it
				await page.goto(`${ui}?rank=0&row=${start}#r${start}`);
				await Promise.all([page.waitForURL(/chain=/), page.click(`#r${start} a.walk`)]);
				const chain = await page.$$eval("nav.chain li", (lis) => lis.map((li) => ({
					row: Number(/row (\d+)/.exec(li.innerText)[1]),
					key: (li.querySelector("code") || {}).textContent || "",
				})));
				const text = await page.locator("nav.chain").innerText();
				const last = chain[chain.length - 1];
				L.check(`${tag}: chain from the ${what} starts there`, chain.length > 1 && chain[0].row === start, chain.slice(0, 3));
				L.check(`${tag}: chain from the ${what} reaches an origin`, last && origins.has(last.row), last);
				L.check(`${tag}: chain from the ${what} names op keys`, chain.every((c) => c.key.includes("/op_")), chain.slice(0, 3));
				L.check(`${tag}: no escaped entity printed`, !/&\w+;/.test(text), text.slice(0, 120));
				const arrow = await page.$eval("nav.chain li + li", (li) => getComputedStyle(li, "::before").content);
				L.check(`${tag}: chain steps joined by an arrow`, arrow.includes("\u2190"), arrow);
				const target = await page.$eval(`#r${last.row}`, (t) => t.dataset.idx).catch(() => null);
				L.check(`${tag}: the chain's page holds the origin row`, Number(target) === last.row, target);
			}
		});

		await part(`${tag} paging`, async () => {
			await page.goto(`${ui}?rank=0&from=0`);
			await Promise.all([page.waitForURL(/from=/), page.click("#page-last")]);
			const idxs = await page.$$eval("tbody.pair", (ts) => ts.map((t) => Number(t.dataset.idx)));
			L.check(`${tag}: the last page ends at the last row`, Math.max(...idxs) === nRows - 1 &&
				(await page.locator("#page-next").count()) === 0, [Math.max(...idxs), nRows]);
			// (the optimizer step's long input list: a summary in a red cell)
			L.check(`${tag}: the last page has a collapsed list in a red cell`,
				(await page.locator("td.tint details.hl > summary").count()) > 0);
			await contrast(page, `${tag} last page`);
			// go to a row on another page, then one on this page
			await page.fill("#goto-row input[name=row]", "100");
			await Promise.all([page.waitForURL(/#r100$/), page.press("#goto-row input[name=row]", "Enter")]);
			const box = await page.locator("#r100").boundingBox();
			L.check(`${tag}: go to row 100 lands on it, in view`, box && box.y >= 0 && box.y < vp.height, box);
			await page.fill("#goto-row input[name=row]", "102");
			await page.press("#goto-row input[name=row]", "Enter");
			await page.waitForFunction(() => location.hash === "#r102");
			const box2 = await page.locator("#r102").boundingBox();
			L.check(`${tag}: go to a row of this page`, box2 && box2.y >= 0 && box2.y < vp.height, box2);
		});

		await part(`${tag} keyboard`, async () => {
			await page.goto(ui);
			await page.keyboard.press("Tab");
			const f1 = await page.evaluate(() => {
				const a = document.activeElement, r = a.getBoundingClientRect();
				return { cls: a.className, href: a.getAttribute("href"), text: a.innerText, x: r.left, y: r.top, w: r.width };
			});
			L.check(`${tag}: first Tab: "Skip to rows", shown`, f1.cls === "skip" && f1.href === "#rows" &&
				/Skip to rows/.test(f1.text) && f1.x >= 0 && f1.x < vp.width && f1.w > 0, f1);
			await page.keyboard.press("Enter");
			const h = await page.evaluate(() => location.hash);
			L.check(`${tag}: the skip link goes to the rows`, h === "#rows", h);
			const ih = await page.$$eval("a.ih", (as) => ({ n: as.length,
				out: as.filter((a) => a.getAttribute("tabindex") === "-1").length }));
			L.check(`${tag}: input-hash links out of the tab order`, ih.n > 100 && ih.out === ih.n, ih);
		});

		await part(`${tag} bad regex`, async () => {
			const resp = await page.goto(`${ui}?rank=0&q=%28`);
			L.check(`${tag}: bad regex 400`, resp.status() === 400, resp.status());
			const t = await page.locator("main").innerText();
			L.check(`${tag}: bad regex page: the error, no markup as text`, /Filter error/.test(t) && !/<\/?\w+>/.test(t), t.slice(-200));
		});

		await part(`${tag} downloads`, async () => {
			const want = { pdf: /^application\/pdf/, csv: /^text\/csv/, png: /^image\/png/ };
			const fetchAll = async (hrefs) => {
				const out = [];
				for (const h of hrefs) {
					const r = await fetch(new URL(h, d.base));
					const buf = Buffer.from(await r.arrayBuffer());
					out.push({ h, status: r.status, type: r.headers.get("content-type"), head: buf.subarray(0, 4).toString("latin1") });
				}
				return out;
			};
			await page.goto(`${ui}?rank=0&from=0`);
			const act = await fetchAll([await page.getAttribute("#dl-pdf", "href"), await page.getAttribute("#dl-csv", "href")]);
			L.check(`${tag}: activation PDF link answers a PDF`, act[0].status === 200 && want.pdf.test(act[0].type) && act[0].head === "%PDF", act[0]);
			L.check(`${tag}: activation CSV link answers CSV`, act[1].status === 200 && want.csv.test(act[1].type), act[1]);

			const resp = await page.goto(tui);
			L.check(`${tag}: training page 200`, resp.status() === 200, resp.status());
			const pngs = await page.$$eval("a.dl-png", (as) => as.map((a) => a.getAttribute("href")));
			const metrics = Object.keys(tcmp.result.metrics);
			L.check(`${tag}: training page links two PNG charts per metric`, pngs.length === 2 * metrics.length, pngs);
			const tr = await fetchAll([await page.getAttribute("#dl-pdf", "href"), await page.getAttribute("#dl-csv", "href"), ...pngs]);
			L.check(`${tag}: training PDF link answers a PDF`, tr[0].status === 200 && want.pdf.test(tr[0].type) && tr[0].head === "%PDF", tr[0]);
			L.check(`${tag}: training CSV link is steps.csv, answers CSV`, /steps\.csv$/.test(tr[1].h) && tr[1].status === 200 && want.csv.test(tr[1].type), tr[1]);
			const badPng = tr.slice(2).filter((x) => x.status !== 200 || !want.png.test(x.type) || x.head !== "\x89PNG");
			L.check(`${tag}: every PNG link answers a PNG`, badPng.length === 0, badPng);
			// the training table's red cells: their number and why, on the page holding the first offending step
			const firstOver = Math.min(...Object.values(tcmp.result.metrics).map((m) => m.first_over).filter((x) => x != null));
			await page.goto(`${tui}?step=${firstOver}#hit`);
			const over = await page.$$eval("td.over", (tds) => tds.map((t) => [t.textContent.trim(), t.getAttribute("title") || ""]));
			L.check(`${tag}: training red cells carry a number and why`, over.length > 0 && over.every(([t, ti]) =>
				/\d/.test(t) && /\|candidate - baseline\| = [-+.\deE]+, over the threshold/.test(ti)), over.slice(0, 3));
			const skip = await page.getAttribute("a.skip", "href");
			L.check(`${tag}: training page skip link to the per-step table`, skip === "#per-step" &&
				(await page.locator("#per-step").count()) === 1, skip);
			await page.screenshot({ path: path.join(L.artifacts, `landing_train_${tag}.png`) });
			await contrast(page, `${tag} training page`);
		});
	}
	L.check("no console errors", problems.length === 0, problems);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	await d.stop();
	L.cleanup();
}
process.exit(L.report());
