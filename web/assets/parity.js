/* parity.js - the viewer's progressive enhancement (embedded; also inlined
 * into offline reports).  Pages read completely without it.  It adds:
 * filters applied on Apply, Enter or a pointer change (debounced), the
 * sticky filter bar's height, the keyboard-driven divergence profile,
 * filter boxes over the run lists of form#compare, hover read-outs on the
 * SVG charts, highlighting the producer row of a hovered input hash, a
 * bare #rN that loads the page holding row N.  The offline activation
 * report's rows, filters and cause chain are report.js's.  It never
 * evaluates page text: user data is read from data-* attributes and
 * textContent only. */
(function () {
	"use strict";

	function each(sel, fn, root) {
		Array.prototype.forEach.call((root || document).querySelectorAll(sel), fn);
	}

	/* ---- activation page layout: filters, sticky bar, profile keys ----
	 * Filters apply on an explicit action: the Apply button, Enter (also
	 * on a select), or 400 ms after a pointer change of a select or a
	 * box; a select changed with the keyboard (arrow keys) only marks the
	 * form pending, so stepping through its options never reloads the
	 * page on each press. */
	each("form.filters", function (form) {
		if (form.dataset.clientFilter) return;
		var timer = null, keyAt = 0;
		var submit = function () {
			clearTimeout(timer);
			if (form.requestSubmit) form.requestSubmit(); else form.submit();
		};
		each(".autosubmit", function (el) {
			el.addEventListener("keydown", function (ev) {
				if (ev.key === "Enter" && el.tagName === "SELECT") {
					ev.preventDefault();
					submit();
					return;
				}
				keyAt = Date.now();
			});
			el.addEventListener("change", function () {
				clearTimeout(timer);
				if (el.tagName === "SELECT" && Date.now() - keyAt < 1000) {
					form.classList.add("pending");
					return;
				}
				timer = setTimeout(submit, 400);
			});
		}, form);
	});

	/* the sticky filter bar's height (headers stick below it) and, where
	 * the page itself scrolls a rows table (wide screens), a table wider
	 * than its box falls back to scrolling inside the box (.hscroll) */
	var fbar = document.querySelector("form.filters");
	var layout = function () {
		var root = document.documentElement;
		if (fbar) {
			var sticky = getComputedStyle(fbar).position === "sticky";
			root.style.setProperty("--fbar-h", (sticky ? fbar.offsetHeight : 0) + "px");
		}
		each("div.scroll", function (box) {
			var t = box.firstElementChild;
			if (!t || !t.classList.contains("rows")) return;
			box.classList.remove("hscroll");
			if (t.offsetWidth > box.clientWidth + 1) box.classList.add("hscroll");
		});
	};
	layout();
	window.addEventListener("resize", layout);
	if (window.ResizeObserver && fbar) new ResizeObserver(layout).observe(fbar);

	/* the divergence profile: one tab stop; Left/Right/Home/End pick a
	 * column (highlighted, value read out), Enter opens its row.  The
	 * bars are links with tabindex=-1 (web_profile_svg), so without script
	 * the chart is no tab stop at all and the jump links reach the rows.
	 * The daemon's page embeds the SVG with <object> (a document of the
	 * same origin): the keys are wired into that document once it loads;
	 * the offline report has it inline. */
	var profileKeys = function (svg, after) {
		var bars = svg.querySelectorAll("a");
		if (!bars.length || svg.getAttribute("tabindex") === "0") return;
		var cur = 0;
		var out = document.createElement("p");
		out.className = "profile-readout muted";
		after.parentNode.insertBefore(out, after.nextSibling);
		svg.setAttribute("tabindex", "0");
		svg.setAttribute("role", "slider");
		svg.setAttribute("aria-label", "Divergence profile column (arrow keys move, Enter opens its row)");
		svg.setAttribute("aria-valuemin", "1");
		svg.setAttribute("aria-valuemax", String(bars.length));
		var hrefOf = function (a) {
			return a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href");
		};
		var show = function (i) {
			if (bars[cur]) bars[cur].classList.remove("kbd");
			cur = Math.max(0, Math.min(bars.length - 1, i));
			var a = bars[cur], t = a.querySelector("title");
			a.classList.add("kbd");
			var text = (t ? t.textContent : hrefOf(a)) + " (column " + (cur + 1) + " of " + bars.length + "; Enter opens it)";
			svg.setAttribute("aria-valuenow", String(cur + 1));
			svg.setAttribute("aria-valuetext", text);
			out.textContent = text;
		};
		svg.addEventListener("focus", function () { show(cur); });
		svg.addEventListener("blur", function () {
			if (bars[cur]) bars[cur].classList.remove("kbd");
		});
		svg.addEventListener("keydown", function (ev) {
			var k = ev.key, step = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 }[k];
			if (step) show(cur + step);
			else if (k === "PageDown") show(cur + 10);
			else if (k === "PageUp") show(cur - 10);
			else if (k === "Home") show(0);
			else if (k === "End") show(bars.length - 1);
			else if (k === "Enter" || k === " ") window.location.assign(hrefOf(bars[cur]));
			else return;
			ev.preventDefault();
		});
	};
	each("svg.profile", function (svg) { profileKeys(svg, svg); });
	each("object.profile", function (obj) {
		var wire = function () {
			var doc = obj.contentDocument;
			if (doc && doc.documentElement && doc.documentElement.localName === "svg")
				profileKeys(doc.documentElement, obj);
		};
		obj.addEventListener("load", wire);
		wire();
	});

	/* form#compare: a filter box over the baseline and candidate lists
	 * (words match the option text: #id, name, kind, commit); the selects
	 * work as they are without script */
	each("form#compare select[name=baseline], form#compare select[name=candidate]", function (sel) {
		var box = document.createElement("input");
		var note = document.createElement("span");
		var opts = Array.prototype.slice.call(sel.options);
		box.type = "search";
		box.className = "picker";
		box.id = sel.id + "-filter";
		box.placeholder = "filter: name, #id, commit";
		box.setAttribute("aria-label", "Filter the " + sel.name + " list");
		box.setAttribute("aria-controls", sel.id);
		box.autocomplete = "off";
		note.className = "hint picker-count";
		note.setAttribute("aria-live", "polite");
		sel.parentNode.insertBefore(box, sel);
		sel.parentNode.insertBefore(note, sel.nextSibling);
		box.addEventListener("input", function () {
			var words = box.value.toLowerCase().split(/\s+/).filter(Boolean), first = null, n = 0;
			opts.forEach(function (o) {
				var t = o.textContent.toLowerCase();
				var ok = words.every(function (w) { return t.indexOf(w) >= 0; });
				o.hidden = !ok;
				if (ok) { n++; if (!first && !o.disabled) first = o; }
			});
			var s = sel.options[sel.selectedIndex];
			if (first && (!s || s.hidden)) {
				sel.value = first.value;
				sel.dispatchEvent(new Event("change")); /* the kind filter follows */
			}
			note.textContent = words.length ? n + " of " + opts.length + " runs" + (n ? "" : ": none matches") : "";
		});
		box.addEventListener("keydown", function (ev) {
			if (ev.key === "Enter") { ev.preventDefault(); sel.focus(); }
		});
	});

	/* chart read-outs */
	each("svg.chart-svg", function (svg) {
		var x0 = parseFloat(svg.dataset.x0), x1 = parseFloat(svg.dataset.x1);
		var l = parseFloat(svg.dataset.l), r = parseFloat(svg.dataset.r);
		var series = [];
		each("path.line", function (p) {
			var pts = (p.dataset.pts || "").split(";").filter(Boolean).map(function (s) {
				var i = s.indexOf(":");
				return [parseFloat(s.slice(0, i)), s.slice(i + 1)];
			});
			series.push({ label: p.dataset.label || "", pts: pts });
		}, svg);
		var cursor = svg.querySelector(".cursor");
		var out = svg.parentNode.querySelector(".readout");
		if (!out || !isFinite(x0) || !isFinite(x1)) return;
		svg.addEventListener("mousemove", function (ev) {
			var box = svg.getBoundingClientRect();
			var vb = svg.viewBox.baseVal;
			var px = (ev.clientX - box.left) / box.width * vb.width;
			if (px < l || px > r) return;
			var x = x0 + (px - l) / (r - l) * (x1 - x0);
			var parts = [];
			var best = null;
			series.forEach(function (s) {
				var lo = 0, hi = s.pts.length - 1;
				if (hi < 0) return;
				while (lo < hi) {
					var mid = (lo + hi) >> 1;
					if (s.pts[mid][0] < x) lo = mid + 1; else hi = mid;
				}
				if (lo > 0 && Math.abs(s.pts[lo - 1][0] - x) < Math.abs(s.pts[lo][0] - x)) lo--;
				best = s.pts[lo][0];
				parts.push(s.label + " " + s.pts[lo][1]);
			});
			if (best === null) return;
			out.textContent = "step " + best + ": " + parts.join(", ");
			var cx = l + (best - x0) / (x1 - x0 || 1) * (r - l);
			cursor.setAttribute("x1", cx);
			cursor.setAttribute("x2", cx);
			svg.classList.add("hover");
		});
		svg.addEventListener("mouseleave", function () {
			svg.classList.remove("hover");
		});
	});

	/* hovering an input hash highlights the row that produced it (looked
	 * up at each hover: the offline report's rows come and go) */
	function pairsByKey() {
		var pairs = {};
		each("tbody.pair", function (tb) {
			(tb.dataset.keys || "").split(" ").forEach(function (k) {
				if (k) (pairs[k] = pairs[k] || []).push(tb);
			});
		});
		return pairs;
	}
	document.addEventListener("mouseover", function (ev) {
		var t = ev.target;
		if (!t.classList || !t.classList.contains("ih")) return;
		var key = (t.getAttribute("title") || "").replace(/^produced by /, "");
		(pairsByKey()[key] || []).forEach(function (tb) { tb.classList.add("hl"); });
	});
	document.addEventListener("mouseout", function (ev) {
		var t = ev.target;
		if (!t.classList || !t.classList.contains("ih")) return;
		each("tbody.pair.hl", function (tb) { tb.classList.remove("hl"); });
	});

	/* ---- rows: cause chain and row links (issue 15) ---------------------
	 * Server pages: an input hash links to /ui/comparisons/ID/producer and
	 * "origin" to .../origin (303s to ?row=N#rN); a bare #rN whose row is
	 * not on this page loads the page holding it (?row=N keeps rows of
	 * context above).  Offline reports: report.js resolves them in the
	 * document. */
	var filtersForm = document.getElementById("filters");
	var gotoRow = function () {
		var m = /^#r(\d+)$/.exec(location.hash);
		if (!m || !filtersForm || document.getElementById("r" + m[1])) return;
		var rank = filtersForm.elements.rank ? filtersForm.elements.rank.value : "";
		location.replace(location.pathname + "?rank=" + encodeURIComponent(rank) + "&row=" + m[1] + "#r" + m[1]);
	};
	gotoRow();
	window.addEventListener("hashchange", gotoRow);
	/* a walked chain (?chain=): mark its rows on this page */
	each("nav.chain a", function (a) {
		var m = /#(r\d+)$/.exec(a.getAttribute("href") || "");
		var tb = m && document.getElementById(m[1]);
		if (tb) tb.classList.add("in-chain");
	});

	/* form#upload: drop files on it, and show the upload's progress (the
	 * form posts as without script; the 303 lands on the run's page) */
	var up = document.getElementById("upload");
	if (up && window.FormData && window.XMLHttpRequest) {
		var input = up.querySelector("input[type=file]");
		var drop = up.querySelector(".drop") || up;
		var bar = up.querySelector("progress");
		var status = up.querySelector(".form-status");
		["dragenter", "dragover"].forEach(function (t) {
			drop.addEventListener(t, function (ev) {
				ev.preventDefault();
				drop.classList.add("over");
			});
		});
		["dragleave", "drop"].forEach(function (t) {
			drop.addEventListener(t, function () { drop.classList.remove("over"); });
		});
		drop.addEventListener("drop", function (ev) {
			ev.preventDefault();
			if (ev.dataTransfer && ev.dataTransfer.files.length) {
				input.files = ev.dataTransfer.files;
				if (status) status.textContent = ev.dataTransfer.files.length + " file(s) chosen";
			}
		});
		up.addEventListener("submit", function (ev) {
			if (!input.files.length) return; /* the browser's own required check */
			ev.preventDefault();
			var xhr = new XMLHttpRequest();
			xhr.open("POST", up.action);
			xhr.setRequestHeader("Accept", "text/html");
			if (bar) { bar.hidden = false; bar.value = 0; }
			xhr.upload.addEventListener("progress", function (e) {
				if (!e.lengthComputable) return;
				var pct = Math.round(100 * e.loaded / e.total);
				if (bar) bar.value = pct;
				if (status) status.textContent = pct < 100 ? pct + " % sent" : "checking the logs\u2026";
			});
			xhr.addEventListener("load", function () {
				/* 303 followed: the run's page; an error: its page */
				if (xhr.status < 400 && xhr.responseURL) {
					window.location.assign(xhr.responseURL);
					return;
				}
				var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
				var msg = doc.querySelector("#form-error .error");
				if (status) status.textContent = "Refused: " + (msg ? msg.textContent : "HTTP " + xhr.status);
				if (bar) bar.hidden = true;
			});
			xhr.addEventListener("error", function () {
				if (status) status.textContent = "The upload failed (connection lost).";
				if (bar) bar.hidden = true;
			});
			xhr.send(new FormData(up));
		});
	}

	/* ---- landing (issue 25): a page opened at the first divergence
	 * (p#landed, no #fragment, a fresh navigation: not a reload or back,
	 * whose scroll position the browser restores) scrolls to its rows,
	 * so the red cells are in view; the verdict is one scroll up */
	(function () {
		var landed = document.getElementById("landed"), area = document.getElementById("rows");
		var nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
		if (!landed || !area || location.hash || (nav && nav.type !== "navigate")) return;
		area.scrollIntoView({ block: "start" });
		var first = document.querySelector("tbody.pair.st-diff, tbody.pair.st-a_only, tbody.pair.st-b_only");
		if (first && first.getBoundingClientRect().bottom > window.innerHeight)
			first.scrollIntoView({ block: "center" });
	})();

	/* ---- go to row (issue 25): form#goto-row lands on the row itself
	 * (#rN: on this page, or the page holding it); without script the
	 * form's GET ?row=N opens that page, the row a few rows down */
	each("form#goto-row", function (form) {
		form.addEventListener("submit", function (ev) {
			var n = parseInt(form.elements.row.value, 10);
			if (!(n >= 0)) return;
			ev.preventDefault();
			if (document.getElementById("r" + n)) {
				location.hash = "r" + n;
				return;
			}
			location.assign(form.getAttribute("action") + "?rank=" +
				encodeURIComponent(form.elements.rank.value) + "&row=" + n + "#r" + n);
		});
	});

	/* ---- issue 25: kind-aware compare forms, sortable tables, set as
	 * baseline (web/forms.c, web/lists.c) ----
	 * form#compare: the candidates and the policy menu follow the
	 * baseline's kind (runs of another kind disabled, the other kind's
	 * optgroup disabled and hidden); p#self-compare shows while both
	 * selects name one run. */
	each("form#compare", function (form) {
		var base = form.querySelector("select[name=baseline]");
		var cand = form.querySelector("select[name=candidate]");
		var pol = form.querySelector("select[name=policy]");
		var warn = form.querySelector("#self-compare");
		if (!base || !cand) return;
		var sync = function () {
			var bo = base.options[base.selectedIndex];
			var kind = bo ? bo.getAttribute("data-kind") : "";
			var first = null;
			Array.prototype.forEach.call(cand.options, function (o) {
				var off = !!kind && o.getAttribute("data-kind") !== kind;
				o.disabled = off;
				o.classList.toggle("other-kind", off);
				if (!off && !first && o.value !== base.value) first = o;
			});
			var co = cand.options[cand.selectedIndex];
			if ((!co || co.disabled) && first) cand.value = first.value;
			if (pol) {
				each("optgroup", function (g) {
					var off = !!kind && g.getAttribute("data-kind") !== kind;
					g.disabled = off;
					g.hidden = off;
				}, pol);
				var po = pol.options[pol.selectedIndex];
				if (!po || po.parentNode.disabled) {
					var d = pol.querySelector("optgroup:not([disabled]) option");
					if (d) pol.selectedIndex = d.index;
				}
			}
			if (warn) warn.hidden = !(base.value && base.value === cand.value && cand.options.length > 1);
		};
		base.addEventListener("change", sync);
		cand.addEventListener("change", sync);
		sync();
	});

	/* table.sortable: each labelled header becomes a button; a click
	 * sorts the rows by that column (numbers as numbers, "#12" as 12),
	 * again the other way; aria-sort tells which. */
	var sortKey = function (cell) {
		var t = cell ? cell.textContent.trim() : "";
		var n = t.replace(/^#/, "").replace(/\s.*$/, "");
		if (n !== "" && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(n)) return { n: parseFloat(n), s: t };
		return { n: null, s: t.toLowerCase() };
	};
	var sortCmp = function (a, b) {
		if (a.n !== null && b.n !== null) return a.n - b.n;
		if (a.n !== null) return -1;
		if (b.n !== null) return 1;
		return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
	};
	each("table.sortable", function (table) {
		var head = table.tHead && table.tHead.rows[0];
		var body = table.tBodies[0];
		if (!head || !body) return;
		Array.prototype.forEach.call(head.cells, function (th, col) {
			if (!th.textContent.trim()) return;
			var btn = document.createElement("button");
			btn.type = "button";
			btn.className = "sort";
			while (th.firstChild) btn.appendChild(th.firstChild);
			th.appendChild(btn);
			th.setAttribute("aria-sort", "none");
			btn.addEventListener("click", function () {
				var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
				Array.prototype.forEach.call(head.cells, function (h) {
					if (h.hasAttribute("aria-sort")) h.setAttribute("aria-sort", "none");
				});
				th.setAttribute("aria-sort", dir);
				var rows = Array.prototype.map.call(body.rows, function (tr, i) {
					return { tr: tr, k: sortKey(tr.cells[col]), i: i };
				});
				rows.sort(function (a, b) {
					var c = sortCmp(a.k, b.k);
					return (dir === "ascending" ? c : -c) || a.i - b.i;
				});
				rows.forEach(function (x) { body.appendChild(x.tr); });
			});
		});
	});

	/* form.set-baseline: PUT /baselines/{name} with the token as the
	 * API's bearer header (a plain form cannot send it, so the button is
	 * disabled until this runs); the outcome in .form-status
	 * (data-state ok / refused). */
	each("form.set-baseline", function (form) {
		var btn = form.querySelector("button[type=submit]");
		var status = form.querySelector(".form-status");
		if (!window.fetch || !btn || !status) return;
		btn.disabled = false;
		form.addEventListener("submit", function (ev) {
			ev.preventDefault();
			var name = form.elements.name.value.trim();
			var token = form.elements.token.value.trim();
			var note = form.elements.note.value;
			var run = parseInt(form.getAttribute("data-run"), 10);
			var body = { run: run };
			var hdrs = { "Content-Type": "application/json" };
			if (note) body.note = note;
			if (token) hdrs.Authorization = "Bearer " + token;
			status.textContent = "Setting\u2026";
			status.removeAttribute("data-state");
			fetch("/baselines/" + name.split("/").map(encodeURIComponent).join("/"), {
				method: "PUT", headers: hdrs, body: JSON.stringify(body), credentials: "same-origin",
			}).then(function (r) {
				return r.json().catch(function () { return {}; }).then(function (j) {
					status.textContent = "";
					if (r.ok) {
						var a = document.createElement("a");
						a.href = "/ui/baselines/" + name;
						a.textContent = name;
						status.appendChild(document.createTextNode("Baseline "));
						status.appendChild(a);
						status.appendChild(document.createTextNode(" is now run #" + run + "."));
						status.setAttribute("data-state", "ok");
						form.elements.token.value = "";
					} else {
						status.textContent = "Refused (" + r.status + "): " +
							((j.error && j.error.message) || "HTTP " + r.status);
						status.setAttribute("data-state", "refused");
					}
				});
			}, function () {
				status.textContent = "The request failed (connection lost).";
				status.setAttribute("data-state", "refused");
			});
		});
	});
})();
