/* report.js - the rows of the offline activation report (inlined by
 * web/report.c before parity.js).  Each phase section holds its rows as
 * data (script.vrows, the format is described in web/report.c); this
 * renders only the rows in view of the section's scroll container
 * (div.vscroll) plus a few above and below, as the same tbody.pair
 * elements the served page has, and keeps the rest as data:
 *   - virtual rows: a measured height per row (an estimate until it was
 *     shown), prefix sums of the shown rows' heights, spacer tbodies
 *     above and below; rows are built with createElement/textContent
 *     only, so log text is never read as markup;
 *   - filters (form#cfilters): status, method, phase, origins and the
 *     key regex, read as on the server (below), over the data;
 *     "N of M rows" in #cfcount, a bad regex in #cferr;
 *   - #rN and #k{rank}-rN (jumps, the profile, links): the row is
 *     rendered, scrolled to and highlighted (filters that hide it are
 *     cleared);
 *   - an input hash jumps to its producer row (by key, else by output
 *     hash: the nearest row above in the same rank), "origin" walks the
 *     cause chain back and lists it in nav#cchain. */
(function () {
	"use strict";

	var STAT_NAMES = { a_only: "only A", b_only: "only B" };
	var OVERSCAN = 8;
	var cf = document.getElementById("cfilters");
	var sections = [];

	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined) e.textContent = text;
		return e;
	}

	/* ---- the data --------------------------------------------------------
	 * row: [idx, status, method, origin, A, B, T]; a side:
	 * [key, oh, ih, producers, loc, shape, phase, l1, l2, min, max, mean];
	 * B's 0 fields (same as A's) and a B of 1 (all A's) are filled in here. */
	document.querySelectorAll("script.vrows").forEach(function (sc) {
		var rows;
		try { rows = JSON.parse(sc.textContent); } catch (e) { return; }
		for (var i = 0; i < rows.length; i++) {
			var a = rows[i][4], b = rows[i][5];
			if (b === 1) rows[i][5] = a;
			else if (a && b) {
				for (var j = 0; j < b.length; j++)
					if (b[j] === 0 && j !== 6) b[j] = a[j];
			}
		}
		var box = sc.previousElementSibling, table = box.querySelector("table.rows");
		if (box.previousElementSibling && box.previousElementSibling.classList.contains("vwait"))
			box.previousElementSibling.remove();
		var top = el("tbody", "pad"), bot = el("tbody", "pad");
		top.appendChild(el("tr")).appendChild(el("td"));
		bot.appendChild(el("tr")).appendChild(el("td"));
		table.appendChild(top);
		table.appendChild(bot);
		var sec = {
			box: box, table: table, top: top, bot: bot, rows: rows,
			prefix: sc.dataset.prefix || "",
			phase: (sc.closest("details.section") || sc).id.replace(/^k\d+-/, ""),
			details: sc.closest("details.section"),
			l1: table.querySelectorAll("thead th").length > 13,
			h: new Float32Array(rows.length), seen: new Uint8Array(rows.length),
			view: null, pos: null, els: new Map(), from: 0, to: 0, est: 48
		};
		sec.none = el("p", "muted vnone", "No rows match the filters.");
		sec.none.hidden = true;
		box.parentNode.insertBefore(sec.none, box);
		sec.h.fill(sec.est);
		sections.push(sec);
		box.addEventListener("scroll", function () { schedule(sec); }, { passive: true });
		/* an opened hash list changes its row's height */
		box.addEventListener("toggle", function () { remeasure(sec); }, true);
		if (sec.details) sec.details.addEventListener("toggle", function () { render(sec); });
	});
	if (!sections.length) return;

	function sideKey(r, side) {
		var e = side === "b" ? r[5] : r[4];
		return e ? e[0] : "";
	}

	/* ---- one row pair ---------------------------------------------------- */
	function tintCls(base, lvl) {
		return lvl > 0 ? base + " tint t" + lvl : base;
	}

	/* C's "%.2g" of v (the served page's span.dv): 2 significant digits,
	 * exponent of at least two digits */
	function g2(v) {
		var a = Math.abs(v);
		if (v === 0) return "0";
		if (a >= 1e-4 && a < 100) return String(Number(v.toPrecision(2)));
		var s = v.toExponential(1).replace(/\.0e/, "e").split("e");
		var x = parseInt(s[1], 10);
		return s[0] + "e" + (x < 0 ? "-" : "+") + (Math.abs(x) < 10 ? "0" : "") + Math.abs(x);
	}

	/* a tinted cell says what its colour stands for (title: what and the
	 * exact value; v null: NaN) and shows the number (span.dv), as the
	 * served page's td_open/td_close do */
	var WHAT = ["output hash distance A vs B (relative)", "input hash distance A vs B (relative)",
		"L1 norm: relative difference A vs B", "L2 norm: relative difference A vs B",
		"Min: relative difference A vs B", "Max: relative difference A vs B",
		"Mean: relative difference A vs B"];
	function tintNumber(td, lvl, vi, v) {
		if (!(lvl > 0)) return;
		td.title = WHAT[vi] + (v === null || v === undefined ? "" : " = " + v);
		td.appendChild(el("span", "dv", v === null || v === undefined ? "\u2260" : g2(v)));
	}

	/* a comma-separated hash list; inputs (side set) link to their producer,
	 * its key from the ';'-separated producers as tooltip; over 4 collapse */
	function hashList(td, text, producers, side) {
		if (!text) {
			td.appendChild(el("span", "muted", "\u2013"));
			return;
		}
		var items = text.split(","), prods = producers ? producers.split(";") : [];
		var box = td;
		if (items.length > 4) {
			box = el("details", "hl");
			box.appendChild(el("summary", null, items.length + " values"));
			td.appendChild(box);
		}
		for (var i = 0; i < items.length; i++) {
			var h = items[i].replace(/^[ \t]+/, ""), pk = prods[i] || "", a;
			if (i) box.appendChild(document.createTextNode(", "));
			if (side) {
				a = el("a", "ih", h);
				a.href = "#";
				a.dataset.side = side;
				if (pk) a.title = "produced by " + pk;
			} else {
				a = el("span", "h", h);
			}
			box.appendChild(a);
		}
	}

	function sideCells(sec, tr, r, e, label, side) {
		var t = r[6] || [];
		tr.appendChild(el("td", "side", label));
		if (!e) {
			var td = el("td", "absent", "not in " + label);
			td.colSpan = 6 + (sec.l1 ? 5 : 4);
			tr.appendChild(td);
			return;
		}
		var oh = tr.appendChild(el("td", tintCls("oh", t[0])));
		hashList(oh, e[1], null, null);
		tintNumber(oh, t[0], 0, t[8]);
		var ih = tr.appendChild(el("td", tintCls("ihs", t[1])));
		hashList(ih, e[2], e[3], side);
		tintNumber(ih, t[1], 1, t[9]);
		tr.appendChild(el("td", "loc", e[4]));
		var sh = tr.appendChild(el("td", tintCls("shape", t[2]), e[5]));
		if (t[2] > 0) {
			sh.title = "the shapes of A and B differ";
			sh.appendChild(el("span", "dv", "\u2260"));
		}
		tr.appendChild(el("td", "phase", e[6] ? "backward" : "forward"));
		for (var k = sec.l1 ? 0 : 1; k < 5; k++)
			tintNumber(tr.appendChild(el("td", tintCls("num", t[3 + k]), e[7 + k])), t[3 + k],
				2 + k, t[10 + k]);
	}

	var chainSet = new Set(), flash = null;
	function build(sec, k) {
		var r = sec.rows[k], st = r[1], a = r[4], b = r[5];
		var ak = a ? a[0] : "", bk = b ? b[0] : "", same = !a || !b || ak === bk;
		var tb = el("tbody", "pair st-" + st + (r[3] ? " origin" : ""));
		if (chainSet.has(sec.prefix + "r" + r[0])) tb.classList.add("in-chain");
		if (flash === sec.prefix + "r" + r[0]) tb.classList.add("hl");
		tb.id = sec.prefix + "r" + r[0];
		tb.dataset.idx = r[0];
		tb.dataset.status = st;
		tb.dataset.method = r[2] || "";
		tb.dataset.keys = ak + " " + bk;
		tb.vsec = sec;
		tb.vk = k;
		var sa = tb.appendChild(el("tr", "sa")), td = el("td", "idx", String(r[0]));
		td.rowSpan = 2;
		td.appendChild(el("div", "st st-" + st, STAT_NAMES[st] || st));
		if (r[3]) {
			td.appendChild(el("div", "chip origin", "origin"));
		} else if (st === "diff" && a && b) {
			var w = el("a", "walk", "\u21b6 origin");
			w.href = "#";
			w.title = "walk back to the origin";
			td.appendChild(w);
		}
		sa.appendChild(td);
		td = sa.appendChild(el("td", "key", same ? ak || bk : ak));
		if (same) td.rowSpan = 2;
		td = sa.appendChild(el("td", "method"));
		td.rowSpan = 2;
		if (r[2]) td.appendChild(el("span", "chip m-" + r[2], r[2]));
		sideCells(sec, sa, r, a, "A", "a");
		var sb = tb.appendChild(el("tr", "sb"));
		if (!same) sb.appendChild(el("td", "key", bk));
		sideCells(sec, sb, r, b, "B", "b");
		return tb;
	}

	/* ---- virtual rendering ------------------------------------------------ */
	function layout(sec) {
		var v = sec.view, n = v.length, pos = new Float64Array(n + 1);
		for (var i = 0; i < n; i++) pos[i + 1] = pos[i] + sec.h[v[i]];
		sec.pos = pos;
	}

	/* the position in the view of the last row starting at or above y */
	function rowAt(sec, y) {
		var lo = 0, hi = sec.view.length - 1;
		while (lo < hi) {
			var m = (lo + hi + 1) >> 1;
			if (sec.pos[m] <= y) lo = m; else hi = m - 1;
		}
		return lo;
	}

	function headHeight(sec) {
		var th = sec.table.tHead;
		return th ? th.offsetHeight : 0;
	}

	function pads(sec) {
		var n = sec.view.length;
		sec.top.firstChild.firstChild.style.height = sec.pos[sec.from] + "px";
		sec.bot.firstChild.firstChild.style.height = (sec.pos[n] - sec.pos[sec.to]) + "px";
	}

	/* measure the shown rows; keep the first shown row where it is */
	function measure(sec, all) {
		var changed = false, above = 0, y = sec.box.scrollTop - headHeight(sec);
		var sum = 0, cnt = 0;
		for (var i = sec.from; i < sec.to; i++) {
			var k = sec.view[i], e = sec.els.get(k);
			if (!e || (sec.seen[k] && !all)) continue;
			var hh = e.getBoundingClientRect().height;
			sum += hh;
			cnt++;
			sec.seen[k] = 1;
			if (Math.abs(hh - sec.h[k]) > 0.5) {
				if (sec.pos[i + 1] <= y) above += hh - sec.h[k];
				sec.h[k] = hh;
				changed = true;
			}
		}
		/* the first rows measured set the estimate of the others */
		if (cnt && !sec.estimated) {
			sec.estimated = true;
			var est = sum / cnt;
			if (Math.abs(est - sec.est) > 0.5) {
				sec.est = est;
				for (var j = 0; j < sec.h.length; j++)
					if (!sec.seen[j]) sec.h[j] = est;
				changed = true;
			}
		}
		if (!changed) return;
		layout(sec);
		pads(sec);
		if (above) sec.box.scrollTop += above;
	}

	function render(sec, force) {
		var n = sec.view.length;
		sec.none.hidden = n > 0;
		sec.box.hidden = n === 0;
		if (sec.details && !sec.details.open) {
			sec.stale = true; /* render when opened */
			return;
		}
		var y = Math.max(0, sec.box.scrollTop - headHeight(sec));
		var vh = Math.max(sec.box.clientHeight, window.innerHeight);
		var first = n ? Math.max(0, rowAt(sec, y) - OVERSCAN) : 0, last = first;
		while (last < n && sec.pos[last] < y + vh) last++;
		last = Math.min(n, last + OVERSCAN);
		if (!force && !sec.stale && first === sec.from && last === sec.to) return;
		sec.stale = false;
		var keep = new Map(), frag = document.createDocumentFragment();
		for (var i = first; i < last; i++) {
			var k = sec.view[i], e = sec.els.get(k) || build(sec, k);
			keep.set(k, e);
			frag.appendChild(e);
		}
		sec.els.forEach(function (e, k) { if (!keep.has(k)) e.remove(); });
		sec.els = keep;
		sec.table.insertBefore(frag, sec.bot);
		sec.from = first;
		sec.to = last;
		pads(sec);
		measure(sec, false);
		/* estimates corrected: the rows in view may be others now */
		var f2 = n ? Math.max(0, rowAt(sec, y) - OVERSCAN) : 0;
		if (f2 !== first && !sec.again) {
			sec.again = true;
			render(sec, false);
			sec.again = false;
		}
	}

	function remeasure(sec) {
		measure(sec, true);
		render(sec, false);
	}

	var pending = new Set(), raf = 0;
	function schedule(sec) {
		pending.add(sec);
		if (raf) return;
		raf = requestAnimationFrame(function () {
			raf = 0;
			var s = pending;
			pending = new Set();
			s.forEach(function (x) { render(x, false); });
		});
	}
	window.addEventListener("resize", function () { sections.forEach(schedule); });

	/* ---- filters ------------------------------------------------------------
	 * The server matches keys with PCRE2 (store.h, struct store_key_filter);
	 * this reads the same pattern as JavaScript does: first with the "u"
	 * flag (code points, \u{..} as on the server), then, if that is a
	 * syntax error, without it (JS's lenient reading, e.g. "\-" outside a
	 * class).  Like the server: the length limit, case-INSENSITIVE unless
	 * "match case" is ticked (a leading (?i) forces it), a row passes when
	 * its A key or its B key matches, $ only at the end, [^] any character,
	 * an unset back-reference matches "".  Syntax JS lacks (possessive
	 * a++, atomic (?>..), (*VERBS)) is a "Bad regex" here; what JS would
	 * silently read otherwise than PCRE2 is refused with the reason
	 * (refusedSyntax): POSIX classes, the PCRE2-only escapes (\A \Z \z \G
	 * \K \Q \E \h \H \R \X \N \C \e \a \o \g \x{..}) and inline options
	 * other than a leading (?i). */
	var refusedSyntax = function (q) {
		if (/\[:\^?[a-z]+:\]/.test(q)) return "POSIX classes like [[:digit:]] work only on the server; use \\d, \\w, [a-z]";
		for (var i = 0; i < q.length; i++) {
			var c = q.charAt(i);
			if (c === "\\") {
				var e = q.charAt(i + 1);
				if ("AZzGKQEhHRXNCeaog".indexOf(e) >= 0 && e !== "")
					return "\\" + e + " means something else to JavaScript than to the server (PCRE2); write it another way";
				if (e === "x" && q.charAt(i + 2) === "{")
					return "\\x{..} is PCRE2 only; use \\u{..}";
				i++;
			} else if (c === "(" && q.charAt(i + 1) === "?") {
				var n = q.charAt(i + 2);
				if (n !== ":" && n !== "=" && n !== "!" && n !== "<")
					return "inline options like (?" + n + ") work only on the server; (?i) only at the start";
			}
		}
		return null;
	};
	var compileKeyRegex = function (q, icase) {
		var bytes = typeof TextEncoder === "function" ? new TextEncoder().encode(q).length : q.length;
		if (bytes > 1000) throw new Error("longer than 1000 bytes");
		if (q.slice(0, 4) === "(?i)") {
			q = q.slice(4);
			icase = true;
		}
		var why = refusedSyntax(q);
		if (why) throw new Error(why);
		var flags = icase ? "i" : "";
		try {
			return new RegExp(q, flags + "u");
		} catch (e) {
			return new RegExp(q, flags);
		}
	};

	var err = document.getElementById("cferr"), cnt = document.getElementById("cfcount");
	function apply() {
		var f = cf ? cf.elements : null;
		var st = f ? f.status.value : "", method = f && f.method ? f.method.value : "";
		var phase = f && f.phase ? f.phase.value : "", orig = f ? f.origin.checked : false;
		var q = f ? f.q.value : "", re = null, icase = !(f && f["case"] && f["case"].checked);
		if (err) err.textContent = "";
		if (q) {
			try { re = compileKeyRegex(q, icase); } catch (e) { if (err) err.textContent = "Bad regex: " + e.message; return; }
		}
		var want = st ? st.split(",") : null, shown = 0, total = 0;
		sections.forEach(function (sec) {
			var rows = sec.rows, n = rows.length, v = new Int32Array(n), m = 0;
			total += n;
			if (!phase || phase === sec.phase) {
				for (var i = 0; i < n; i++) {
					var r = rows[i];
					if (want && want.indexOf(r[1]) < 0) continue;
					if (method && r[2] !== method) continue;
					if (orig && !r[3]) continue;
					if (re) {
						var ak = r[4] ? r[4][0] : "", bk = r[5] ? r[5][0] : "";
						if (!((ak !== "" && re.test(ak)) || (bk !== "" && bk !== ak && re.test(bk)))) continue;
					}
					v[m++] = i;
				}
			}
			sec.view = v.subarray(0, m);
			shown += m;
			layout(sec);
			sec.box.scrollTop = 0;
			render(sec, true);
		});
		if (cnt) cnt.textContent = shown + " of " + total + " rows";
	}
	if (cf) {
		cf.addEventListener("input", apply);
		cf.addEventListener("change", apply);
		cf.addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
	}
	apply();

	/* ---- rows by id: jumps, profile, cause chain -------------------------- */
	function findRow(id) {
		var m = /^(k\d+-)?r(\d+)$/.exec(id);
		if (!m) return null;
		var prefix = m[1] || "", idx = +m[2];
		for (var s = 0; s < sections.length; s++) {
			var sec = sections[s], rows = sec.rows, lo = 0, hi = rows.length - 1;
			if (sec.prefix !== prefix) continue;
			while (lo <= hi) {
				var mid = (lo + hi) >> 1;
				if (rows[mid][0] === idx) return { sec: sec, k: mid };
				if (rows[mid][0] < idx) lo = mid + 1; else hi = mid - 1;
			}
		}
		return null;
	}

	/* render row id (filters hiding it cleared), scroll to it, flash it */
	function showRow(id) {
		var hit = findRow(id);
		if (!hit) return false;
		var sec = hit.sec, v = sec.view, p = -1;
		for (var lo = 0, hi = v.length - 1; lo <= hi;) {
			var mid = (lo + hi) >> 1;
			if (v[mid] === hit.k) { p = mid; break; }
			if (v[mid] < hit.k) lo = mid + 1; else hi = mid - 1;
		}
		if (p < 0) {
			if (cf) cf.reset();
			apply();
			return showRow(id);
		}
		if (sec.details) sec.details.open = true;
		flash = id;
		sec.box.scrollTop = sec.pos[p] + headHeight(sec);
		render(sec, false);
		var e = document.getElementById(id);
		if (e) {
			/* the row a quarter down its box, the box just below the
			 * sticky filter bar (--fbar-h, parity.js) */
			var box = sec.box, head = headHeight(sec);
			var bar = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--fbar-h")) || 0;
			e.classList.add("hl");
			box.scrollTop += e.getBoundingClientRect().top - box.getBoundingClientRect().top - head -
				(box.clientHeight - head) / 4;
			window.scrollBy(0, box.getBoundingClientRect().top - bar - 4);
		}
		setTimeout(function () {
			if (flash !== id) return;
			flash = null;
			var x = document.getElementById(id);
			if (x) x.classList.remove("hl");
		}, 1500);
		return true;
	}

	function fromHash() {
		if (location.hash.length > 1) showRow(decodeURIComponent(location.hash.slice(1)));
	}
	window.addEventListener("hashchange", fromHash);
	/* the browser's own scroll to the fragment comes after the parse */
	window.addEventListener("load", fromHash);
	document.addEventListener("click", function (ev) {
		var a = ev.target.closest ? ev.target.closest("a") : null;
		var href = a ? a.getAttribute("href") || a.getAttribute("xlink:href") : null;
		/* a link to the hash already in the URL: no hashchange */
		if (href && href.charAt(0) === "#" && href === location.hash && findRow(href.slice(1))) {
			ev.preventDefault();
			showRow(href.slice(1));
		}
	});
	fromHash();

	/* the producer of hash (key when known) on side, nearest above row k
	 * of sec in the same rank: by key, else by output hash */
	function producerOf(sec, k, side, key, hash) {
		var secs = sections.filter(function (s) { return s.prefix === sec.prefix; });
		var byHash = null;
		for (var s = secs.indexOf(sec); s >= 0; s--) {
			var rows = secs[s].rows;
			for (var i = (secs[s] === sec ? k : rows.length) - 1; i >= 0; i--) {
				var r = rows[i], e = side === "b" ? r[5] : r[4];
				if (key && sideKey(r, side) === key) return { sec: secs[s], k: i };
				if (!byHash && e && e[1] && e[1].split(",").map(function (x) { return x.trim(); }).indexOf(hash) >= 0)
					byHash = { sec: secs[s], k: i };
			}
		}
		return byHash;
	}
	function inputsOf(r, side) {
		var e = side === "b" ? r[5] : r[4];
		if (!e || !e[2]) return [];
		var prods = e[3] ? e[3].split(";") : [];
		return e[2].split(",").map(function (h, i) { return { hash: h.trim(), key: prods[i] || "" }; });
	}
	function itemDiffers(a, b) {
		if (a === b) return false;
		var x = parseFloat(a), y = parseFloat(b);
		if (isNaN(x) || isNaN(y)) return true;
		return Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y), 1e-30) > 1e-8;
	}
	function rowId(ref) {
		return ref.sec.prefix + "r" + ref.sec.rows[ref.k][0];
	}
	function go(id) {
		if (location.hash === "#" + id) showRow(id);
		else location.hash = id;
	}

	document.addEventListener("click", function (ev) {
		var a = ev.target.closest ? ev.target.closest("a.ih, a.walk") : null;
		var tb = a ? a.closest("tbody.pair") : null;
		if (!tb || !tb.vsec) return;
		ev.preventDefault();
		var sec = tb.vsec, k = tb.vk;
		if (a.classList.contains("ih")) {
			var p = producerOf(sec, k, a.dataset.side || "a", (a.getAttribute("title") || "").replace(/^produced by /, ""), a.textContent);
			if (p) go(rowId(p));
			return;
		}
		var chain = [{ sec: sec, k: k }], at = chain[0];
		while (chain.length < 64) {
			var r = at.sec.rows[at.k], ia = inputsOf(r, "a"), ib = inputsOf(r, "b"), j = -1;
			for (var i = 0; i < Math.max(ia.length, ib.length); i++) {
				if (!ia[i] || !ib[i] || itemDiffers(ia[i].hash, ib[i].hash)) { j = i; break; }
			}
			if (j < 0) break;
			var side = ia[j] ? "a" : "b", it = ia[j] || ib[j];
			var prev = producerOf(at.sec, at.k, side, it.key, it.hash);
			if (!prev || chain.some(function (c) { return c.sec === prev.sec && c.k === prev.k; })) break;
			chain.push(prev);
			at = prev;
		}
		var nav = document.getElementById("cchain");
		if (!nav) {
			nav = el("nav", "chain");
			nav.id = "cchain";
			cf.parentNode.insertBefore(nav, cf.nextSibling);
		}
		chainSet = new Set(chain.map(rowId));
		document.querySelectorAll("tbody.pair").forEach(function (t) {
			t.classList.toggle("in-chain", chainSet.has(t.id));
		});
		nav.textContent = "Cause chain: ";
		chain.forEach(function (c, i) {
			if (i) nav.appendChild(document.createTextNode(" \u2190 "));
			var l = el("a", null, "row " + c.sec.rows[c.k][0]);
			l.href = "#" + rowId(c);
			nav.appendChild(l);
		});
		go(rowId(chain[chain.length - 1]));
	});
})();
