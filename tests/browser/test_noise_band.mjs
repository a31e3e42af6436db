// test_noise_band.mjs - issue 26: the band chart of a candidate against a
// baseline set, in the self-contained report `parity compare M1 ... M5
// CAND -o x.html`, opened from disk with the network off.  A regressed
// candidate (shifted by 6 sd from step 180): the lane, the band visible
// with 5 member lines and one bold candidate line, outside markers that
// add up to the outside count of the metrics table, the step table opened
// at the first outside step; a member named with markup stays text; no
// console errors; at 1440x900 and 390x844 the page does not scroll
// sideways and the chart fits.
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

// a log of n steps: a decaying loss plus noise (sd 1e-3), shifted by shift
// from step from on; grad_norm alike
function log(file, seed, shift = 0, from = 1e9, n = 300) {
	let s = seed * 2654435761 % 4294967296 || 1;
	const unif = () => {
		s = (s * 1664525 + 1013904223) % 4294967296;
		return (s + 0.5) / 4294967296;
	};
	const gauss = () => Math.sqrt(-2 * Math.log(unif())) * Math.cos(2 * Math.PI * unif());
	const lines = [];
	for (let i = 1; i <= n; i++) {
		const loss = 3 * Math.exp(-i / 200) + 1 + 1e-3 * gauss() + (i >= from ? shift : 0);
		const g = 1 + 0.1 * Math.sin(i / 10) + 1e-3 * gauss();
		lines.push(`step: ${i} loss: ${loss.toFixed(5)} grad_norm: ${g.toFixed(5)}`);
	}
	fs.writeFileSync(file, lines.join("\n") + "\n");
	return file;
}

const pw = await L.loadPlaywright();
let ctx;
try {
	const evil = "m5<img src=x onerror=alert(1)>.log";
	const members = [1, 2, 3, 4].map((i) => log(path.join(L.tmp, `m${i}.log`), i));
	members.push(log(path.join(L.tmp, evil), 5));
	const cand = log(path.join(L.tmp, "cand.log"), 9, 6e-3, 180);
	const html = path.join(L.tmp, "noise.html");
	L.check("compare M1..M5 CAND -o x.html exits 1 (regression)", L.cli(["compare", ...members, cand, "-o", html]) === 1);
	L.check("report written", fs.existsSync(html) && fs.statSync(html).size > 1000);

	ctx = await L.launch(pw, { offline: true });
	const blocked = await L.blockNetwork(ctx);
	const page = await ctx.newPage();
	const problems = L.watchProblems(page);
	for (const [w, h] of [[1440, 900], [390, 844]]) {
		await page.setViewportSize({ width: w, height: h });
		await page.goto("file://" + html);
		const at = `${w}x${h}`;
		L.check(`${at}: lane regression`, (await page.getAttribute("#verdict", "data-lane")) === "regression");
		L.check(`${at}: the lane is said`, /Regression/.test(await page.locator("#lane").innerText()));
		const fig = page.locator('#noise-m0 figure.noise-chart[data-view="values"]');
		const dev = page.locator('#noise-m0 figure.noise-chart[data-view="deviation"]');
		await dev.scrollIntoViewIfNeeded();
		L.check(`${at}: the band chart is visible`, await fig.locator("svg.noise-svg").isVisible());
		const band = await dev.locator("path.band").boundingBox();
		L.check(`${at}: the band has an area`, band && band.width > 100 && band.height > 5, band);
		L.check(`${at}: the band is shaded`, (await dev.locator("path.band").evaluate((e) =>
			parseFloat(getComputedStyle(e).fillOpacity))) > 0);
		L.check(`${at}: 5 member lines`, (await fig.locator("path.member").count()) === 5);
		L.check(`${at}: one candidate line`, (await fig.locator("path.cand").count()) === 1);
		const widths = await dev.evaluate((f) => [
			parseFloat(getComputedStyle(f.querySelector("path.member")).strokeWidth),
			parseFloat(getComputedStyle(f.querySelector("path.cand")).strokeWidth)]);
		L.check(`${at}: candidate bold, members thin`, widths[1] > 2 * widths[0], widths);
		// the markers add up to the table's outside count
		const marked = await fig.locator("circle.out").evaluateAll((cs) =>
			cs.reduce((n, c) => n + Number(c.dataset.n), 0));
		const cell = await page.locator("#noise-metrics tbody tr").first().locator("td").nth(1).innerText();
		const outside = Number(cell.split("/")[0]);
		L.check(`${at}: outside markers exist`, (await fig.locator("circle.out").count()) > 0);
		L.check(`${at}: markers add up to the outside steps`, marked === outside && outside > 3, [marked, cell]);
		L.check(`${at}: a marker is visible`, await dev.locator("circle.out").first().isVisible());
		L.check(`${at}: the chart has a title and a description`,
			(await fig.locator("svg > title").count()) === 1 && (await fig.locator("svg > desc").count()) === 1);
		L.check(`${at}: the step table marks outside steps`, (await page.locator("#noise-steps-0 tr.out").count()) > 0);
		// the name with markup is text
		L.check(`${at}: a member's name stays text`, (await page.locator("img").count()) === 0 &&
			(await page.locator("ol.members").innerText()).includes("<img src=x"));
		const sw = await page.evaluate(() => document.scrollingElement.scrollWidth);
		L.check(`${at}: no sideways scroll`, sw <= w, sw);
		const fb = await fig.boundingBox();
		L.check(`${at}: the chart fits the viewport`, fb && fb.x >= 0 && fb.x + fb.width <= w, fb);
		await page.screenshot({ path: path.join(L.artifacts, `noise_band_${at}.png`), fullPage: false });
	}
	L.check("no network request was attempted", blocked.length === 0, blocked.slice(0, 5));
	L.check("no errors or dialogs", problems.length === 0, problems);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	L.cleanup();
}
process.exit(L.report());
