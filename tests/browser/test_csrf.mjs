// test_csrf.mjs - a hostile page in headless Chromium.  A page served from
// a second loopback origin (a tiny node http server on another port: the
// same site, another origin, so only the Origin rule can tell them apart)
// fires what any web page can send to the default loopback daemon without
// a CORS preflight: no-cors fetch() POSTs with JSON text as the body (a
// comparison, a raw log upload, a webhook) and text/plain form POSTs
// shaped as JSON (a comparison, a webhook); plus a cors fetch with
// Content-Type: application/json, which the browser must preflight.  The
// daemon runs with --webhook-allow-private so a loopback webhook would be
// accepted if the request got through.  Afterwards nothing was created,
// every request that reached the daemon carried the page's Origin and got
// 403, and the JSON one never went past its preflight.  Then a page of the
// daemon itself posts the same JSON (same origin): accepted.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import * as L from "./lib.mjs";

const pw = await L.loadPlaywright();
let ctx, d, evil;
try {
	d = await new L.Daemon().start(["--webhook-allow-private"]);
	const [a, b] = L.gen("gen_actlog.py", "csrf", ["--layers", "1", "--scenario", "diverge"]);
	const ra = await d.upload(a, "base"), rb = await d.upload(b, "cand");
	const logText = fs.readFileSync(a, "utf8");
	const count = async (p, key) => (await (await fetch(`${d.base}${p}`)).json())[key].length;

	// --- the attacker's origin ----------------------------------------------
	const esc = (s) => s.replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/</g, "&lt;");
	const cmpJson = JSON.stringify({ baseline: ra, candidate: rb });
	const hookJson = JSON.stringify({ url: "http://127.0.0.1:9/h", secret: "s" });
	// a text/plain form sends name=value: split the JSON so "=" lands in a string
	const formCmp = [`{"baseline":${ra},"candidate":${rb},"name":"`, `x"}`];
	const formHook = [`{"url":"http://127.0.0.1:9/h","secret":"`, `s"}`];
	const page_html = `<!doctype html><title>innocent page</title>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="f1" method="POST" action="${d.base}/comparisons" enctype="text/plain" target="sink1">
<input name='${esc(formCmp[0])}' value='${esc(formCmp[1])}'></form>
<form id="f2" method="POST" action="${d.base}/webhooks" enctype="text/plain" target="sink2">
<input name='${esc(formHook[0])}' value='${esc(formHook[1])}'></form>
<script>
const D = ${JSON.stringify(d.base)};
const results = {};
window.attack = async () => {
	const nc = (u, body) => fetch(D + u, { method: "POST", mode: "no-cors", body })
		.then(() => "sent", (e) => "error: " + e.message);
	results.cmp = await nc("/comparisons", ${JSON.stringify(cmpJson)});
	results.run = await nc("/runs?name=evil", ${JSON.stringify(logText)});
	results.hook = await nc("/webhooks", ${JSON.stringify(hookJson)});
	results.cors = await fetch(D + "/comparisons", { method: "POST",
		headers: { "Content-Type": "application/json" }, body: ${JSON.stringify(cmpJson)} })
		.then((r) => "status " + r.status, (e) => "blocked");
	document.getElementById("f1").submit();
	document.getElementById("f2").submit();
	return results;
};
</script>`;
	evil = http.createServer((req, res) => {
		res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
		res.end(page_html);
	});
	await new Promise((r) => evil.listen(0, "127.0.0.1", r));
	const evilOrigin = `http://127.0.0.1:${evil.address().port}`;
	L.check("two different origins", evilOrigin !== d.base, [evilOrigin, d.base]);

	ctx = await L.launch(pw);
	// what the daemon answered, from its access log: no-cors replies are
	// opaque to the page, and Chromium's opaque-response blocking hides
	// their status from the page's network events too
	const daemonLog = () => fs.readFileSync(path.join(d.dir, "daemon.log"), "utf8").split("\n")
		.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
		.filter((x) => x.method === "POST" || x.method === "OPTIONS");
	const before = daemonLog().length; // the two uploads
	const page = await ctx.newPage();
	const resp = await page.goto(`${evilOrigin}/`);
	L.check("attacker page served", resp.status() === 200);
	const results = await page.evaluate(() => window.attack());
	L.check("the no-cors requests were sent", results.cmp === "sent" && results.run === "sent" &&
		results.hook === "sent", results);
	L.check("the JSON cors request is blocked by its preflight", results.cors === "blocked", results);
	// 3 no-cors POSTs + 2 form POSTs + 1 preflight: wait until the daemon answered all
	const attack = () => daemonLog().slice(before);
	for (let i = 0; i < 600 && attack().length < 6; i++) await new Promise((r) => setTimeout(r, 50));
	const got = attack();
	const posts = got.filter((x) => x.method === "POST");
	L.check("five POSTs reached the daemon", posts.length === 5, got);
	L.check("every POST was refused with 403", posts.every((x) => x.status === 403), got);
	L.check("the preflight was not granted", got.filter((x) => x.method === "OPTIONS")
		.every((x) => x.status >= 400), got);
	let frame = "";
	for (let i = 0; i < 600 && !/cross_origin/.test(frame); i++) {
		frame = await page.frame({ name: "sink1" }).content().catch(() => "");
		if (!/cross_origin/.test(frame)) await new Promise((r) => setTimeout(r, 50));
	}
	L.check("the form's answer is the cross_origin error naming the page's Origin",
		/cross_origin/.test(frame) && frame.includes(evilOrigin), frame.slice(0, 300));
	await page.screenshot({ path: path.join(L.artifacts, "csrf_attacker_page.png") });

	L.check("no comparison was created", (await count("/comparisons", "comparisons")) === 0);
	L.check("no run was created", (await count("/runs", "runs")) === 2);
	L.check("no webhook was created", (await count("/webhooks", "webhooks")) === 0);

	// --- the daemon's own origin may write ------------------------------------
	await page.goto(`${d.base}/`);
	const own = await page.evaluate(async (body) => {
		const r = await fetch("/comparisons", { method: "POST",
			headers: { "Content-Type": "application/json" }, body });
		return r.status;
	}, cmpJson);
	L.check("same-origin JSON POST from the daemon's page: 202", own === 202, own);
	L.check("one comparison now", (await count("/comparisons", "comparisons")) === 1);
} catch (e) {
	L.check(`exception: ${e.stack || e}`, false);
} finally {
	if (ctx) await ctx.close();
	if (evil) evil.close();
	if (d) await d.stop();
	L.cleanup();
}
process.exit(L.report());
