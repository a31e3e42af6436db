/* forms.c - the browser's write forms, usable without JavaScript: upload
 * a run (form#upload: multipart POST /runs), ask for a comparison
 * (form#compare: POST /comparisons), confirm a delete, and the HTML page
 * an error of a form post becomes.  Field names are the API's (log, name,
 * meta, baseline, candidate, policy, thresholds, overrides), so a page, a
 * curl command and a script speak one vocabulary.  The actions carry
 * ?html=1: the daemon then answers 303 See Other to the new resource's
 * page, and an error as a page with a link back (server/ui/forms.c).
 * parity.js enhances form#upload (drag and drop, progress) and form#compare
 * (candidates and policies of the baseline's kind, the self-compare
 * warning), and sends form#set-baseline as the API's PUT /baselines/{name}
 * with the typed token as bearer (a plain form cannot send the header). */
#include <string.h>

#include "json_views.h"
#include "web_int.h"

int web_upload_form(struct buf *out)
{
	return buf_puts(
	        out,
	        "<form id=\"upload\" class=\"form\" method=\"post\" action=\"/runs?html=1\" "
	        "enctype=\"multipart/form-data\"><h2>Upload a run</h2>"
	        "<div class=\"drop\" id=\"drop\"><label for=\"upload-log\">Log files: one per "
	        "rank (<code>rank_N_&hellip;</code> names give the rank)</label>"
	        "<input type=\"file\" id=\"upload-log\" name=\"log\" multiple required>"
	        "<p class=\"hint\">or drop files here</p></div>"
	        "<label for=\"upload-name\">Name</label><input id=\"upload-name\" name=\"name\" "
	        "maxlength=\"1000\" placeholder=\"eager-bf16\">"
	        "<label for=\"upload-meta\">Metadata</label><textarea id=\"upload-meta\" "
	        "name=\"meta\" rows=\"3\" placeholder=\"commit=3f2a9c1&#10;branch=main\">"
	        "</textarea><p class=\"hint\">One <code>key=value</code> a line (or a JSON "
	        "object).</p><p><button type=\"submit\">Upload</button> "
	        "<progress class=\"progress\" max=\"100\" value=\"0\" hidden></progress> "
	        "<span class=\"form-status\" aria-live=\"polite\"></span></p></form>");
}

/* One <option> per run of list (selected: the run with that id), each
 * with data-kind (parity.js offers as candidates only the runs of the
 * baseline's kind; without script every run stays selectable, and the
 * API refuses two kinds). */
static int run_options(struct buf *out, const struct store_run_page *runs, long long selected)
{
	int bad = 0;

	for (size_t i = 0; runs && i < runs->n_runs; i++) {
		const struct store_run *r = &runs->runs[i];
		struct web_meta meta;
		int oom = web_meta_read(r->meta_json, &meta) < 0;
		const char *commit = web_meta_str(&meta, "commit");

		bad |= web_printf(
		        out,
		        "<option value=\"%lld\" data-kind=\"%s\"%s>#%lld %s (%s, %zu "
		        "rank%s%s%s)</option>",
		        (long long)r->id, r->kind, (long long)r->id == selected ? " selected" : "",
		        (long long)r->id, *r->name ? r->name : "(unnamed)", r->kind, r->n_logs,
		        r->n_logs == 1 ? "" : "s", commit ? ", " : "", commit ? commit : "");
		bad |= oom;
		web_meta_free(&meta);
	}
	return bad ? -1 : 0;
}

/* One kind's <optgroup> of the policy menu, its default first. */
static int policy_group(struct buf *out, int training)
{
	if (training)
		return buf_puts(out,
		                "<optgroup label=\"Training policies\" data-kind=\"training\">"
		                "<option value=\"\">default (training: premerge)</option>"
		                "<option value=\"premerge\">premerge (loss and grad_norm within "
		                "1e-5)</option><option value=\"bitwise\">bitwise (every value "
		                "equal)</option><option value=\"megatron\">megatron (Megatron-LM's "
		                "CI check)</option>"
		                "</optgroup>");
	return buf_puts(out, "<optgroup label=\"Activation policies\" data-kind=\"activation\">"
	                     "<option value=\"\">default (activation: bitwise)</option>"
	                     "<option value=\"bitwise\">bitwise</option>"
	                     "<option value='{\"max_hash_distance\":1e-6}'>tolerance: hash "
	                     "distance &le; 1e-6</option>"
	                     "<option value='{\"max_hash_distance\":1e-3}'>tolerance: hash "
	                     "distance &le; 1e-3</option></optgroup>");
}

/* The policy <select>'s options (form#compare and the re-run form of a
 * comparison page): one <optgroup data-kind> per kind, each with its own
 * default, so a training comparison is never offered an activation
 * tolerance (which it would not apply).  only: the one group shown (a
 * comparison page); else both, the group of kind first (its default
 * selected without script; parity.js hides the other group). */
static int policy_options(struct buf *out, const char *only, const char *kind)
{
	int train_first = (only ? only : kind) && !strcmp(only ? only : kind, "training");
	int bad = policy_group(out, train_first);

	if (!only)
		bad |= policy_group(out, !train_first);
	return bad ? -1 : 0;
}

/* The kind of run id in runs, NULL when it is not listed. */
static const char *kind_of(const struct store_run_page *runs, long long id)
{
	for (size_t i = 0; runs && i < runs->n_runs; i++)
		if ((long long)runs->runs[i].id == id)
			return runs->runs[i].kind;
	return NULL;
}

/* The newest run of runs with that kind other than id, else 0. */
static long long newest_other(const struct store_run_page *runs, const char *kind, long long id)
{
	for (size_t i = 0; runs && kind && i < runs->n_runs; i++) {
		const struct store_run *r = &runs->runs[i];
		if ((long long)r->id != id && !strcmp(r->kind, kind))
			return (long long)r->id;
	}
	return 0;
}

int web_compare_form(struct buf *out, const struct store_run_page *runs, long long baseline,
                     long long candidate)
{
	size_t n = runs ? runs->n_runs : 0;
	/* by default the newest is the candidate, the newest other run of its
	 * kind the baseline (a candidate preselected: the same for it) */
	long long cand = candidate > 0 ? candidate : n ? (long long)runs->runs[0].id : 0;
	long long base = baseline > 0 ? baseline : newest_other(runs, kind_of(runs, cand), cand);
	if (!base)
		base = cand;
	const char *kind = kind_of(runs, base);
	int bad = 0;

	bad |= buf_puts(out, "<form id=\"compare\" class=\"form\" method=\"post\" "
	                     "action=\"/comparisons?html=1\" enctype=\"multipart/form-data\">"
	                     "<h2>Compare two runs</h2>");
	if (n < 2)
		bad |= buf_puts(out, "<p class=\"hint\">Upload two runs to compare them.</p>");
	bad |= buf_puts(out, "<label for=\"compare-baseline\">Baseline</label>"
	                     "<select id=\"compare-baseline\" name=\"baseline\" required>");
	bad |= run_options(out, runs, base);
	bad |= buf_puts(out, "</select><label for=\"compare-candidate\">Candidate <span "
	                     "class=\"hint\">(runs of the baseline's kind)</span></label>"
	                     "<select id=\"compare-candidate\" name=\"candidate\" required>");
	bad |= run_options(out, runs, cand);
	bad |= web_printf(out,
	                  "</select><p class=\"warn\" id=\"self-compare\" role=\"status\"%s>"
	                  "Baseline and candidate are the same run: the comparison can only "
	                  "pass. Pick another candidate.</p>",
	                  n > 1 && base == cand ? "" : " hidden");
	bad |= buf_puts(out, "<label for=\"compare-policy\">Policy</label>"
	                     "<select id=\"compare-policy\" name=\"policy\">");
	bad |= policy_options(out, NULL, kind);
	bad |= buf_puts(
	        out,
	        "</select><label for=\"compare-thresholds\">Thresholds (training)</label>"
	        "<input id=\"compare-thresholds\" name=\"thresholds\" "
	        "placeholder='{\"loss\":{\"rel\":0.01}}'>"
	        "<label for=\"compare-overrides\">Override file (activation, optional)</label>"
	        "<input type=\"file\" id=\"compare-overrides\" name=\"overrides\">"
	        "<label for=\"compare-name\">Name</label><input id=\"compare-name\" name=\"name\" "
	        "maxlength=\"1000\"><p><button type=\"submit\">Compare</button></p></form>");
	return bad ? -1 : 0;
}

int web_set_baseline_form(struct buf *out, long long run, const char *name)
{
	/* the token goes as the API's bearer header (parity.js: PUT
	 * /baselines/{name}), never in a URL; a plain form cannot send a
	 * header, so without script the button stays disabled */
	return web_printf(
	        out,
	        "<form id=\"set-baseline\" class=\"form set-baseline\" data-run=\"%lld\">"
	        "<h2>Set run #%lld as a golden baseline</h2>"
	        "<label for=\"sb-name\">Baseline name</label><input id=\"sb-name\" "
	        "name=\"name\" required maxlength=\"%d\" value=\"%s\" "
	        "placeholder=\"llama3-8b/bf16\">"
	        "<label for=\"sb-note\">Note</label><input id=\"sb-note\" name=\"note\" "
	        "maxlength=\"2000\">"
	        "<label for=\"sb-token\">API token <span class=\"hint\">(when the server "
	        "requires one for writes)</span></label><input type=\"password\" "
	        "id=\"sb-token\" name=\"token\" autocomplete=\"off\" placeholder=\"pty_&hellip;\">"
	        "<p><button type=\"submit\" disabled>Set as baseline</button> <span "
	        "class=\"form-status\" id=\"sb-status\" aria-live=\"polite\"></span></p>"
	        "<noscript><p class=\"hint\">Needs JavaScript (the token travels as an "
	        "<code>Authorization</code> header). Without it: <code>curl -X PUT -H "
	        "'Authorization: Bearer TOKEN' -H 'Content-Type: application/json' -d "
	        "'{\"run\":%lld}' SERVER/baselines/NAME</code></p></noscript></form>",
	        run, run, STORE_BASELINE_NAME_MAX, name ? name : "", run);
}

int web_cmp_actions(struct buf *out, long long id, long long baseline, long long candidate,
                    const char *kind, const char *baseline_name)
{
	int bad = 0;

	bad |= buf_puts(out, "<div class=\"cmp-actions\" id=\"cmp-actions\">");
	if (baseline > 0 && candidate > 0) {
		bad |= web_printf(out,
		                  "<form class=\"rerun\" id=\"rerun\" method=\"post\" "
		                  "action=\"/comparisons?html=1\" enctype=\"multipart/form-data\">"
		                  "<input type=\"hidden\" name=\"baseline\" value=\"%lld\">"
		                  "<input type=\"hidden\" name=\"candidate\" value=\"%lld\">"
		                  "<label for=\"rerun-policy\">Re-run with policy</label> "
		                  "<select id=\"rerun-policy\" name=\"policy\">",
		                  baseline, candidate);
		bad |= policy_options(out, kind, NULL);
		bad |= web_printf(out,
		                  "</select> <button type=\"submit\">Re-run</button> <a "
		                  "class=\"rerun\" href=\"/ui/comparisons?baseline=%lld&amp;"
		                  "candidate=%lld#compare\">more options&hellip;</a></form>",
		                  baseline, candidate);
	}
	bad |= web_printf(out,
	                  "<a class=\"delete\" id=\"delete-comparison\" "
	                  "href=\"/ui/comparisons/%lld/delete\">Delete this comparison&hellip;"
	                  "</a>",
	                  id);
	if (candidate > 0) {
		bad |= buf_puts(out, "<details class=\"set-baseline\"><summary>Set the candidate "
		                     "as a baseline&hellip;</summary>");
		bad |= web_set_baseline_form(out, candidate, baseline_name);
		bad |= buf_puts(out, "</details>");
	}
	bad |= buf_puts(out, "</div>");
	return bad ? -1 : 0;
}

int web_form_error(struct buf *out, unsigned status, const char *code, const char *message,
                   const char *back)
{
	int bad = 0;
	char title[64];

	snprintf(title, sizeof title, "%u \xe2\x80\x94 parity", status);
	bad |= web_page_begin(out, WEB_SERVER, title, 0);
	bad |= web_printf(out,
	                  "<h1>Not done</h1><section class=\"form-error\" id=\"form-error\" "
	                  "data-code=\"%s\"><p class=\"error\">%s</p><p class=\"muted\">%u "
	                  "<code>%s</code></p><p><a id=\"back\" href=\"%s\">Back</a></p></section>",
	                  code ? code : "", message ? message : "", status, code ? code : "",
	                  back ? back : "/");
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

int web_delete_confirm(struct buf *out, const char *what, long long id, const char *name,
                       const struct store_comparison_page *using)
{
	int bad = 0;
	size_t n = using ? using->n_cmps : 0;
	int run = !strcmp(what, "run");
	char title[96];

	snprintf(title, sizeof title, "Delete %s #%lld \xe2\x80\x94 parity", what, id);
	bad |= web_page_begin(out, WEB_SERVER, title, 0);
	bad |= web_printf(out, "<h1>Delete %s #%lld <span class=\"name\">%s</span></h1>", what, id,
	                  name && *name ? name : "(unnamed)");
	if (n) {
		bad |= web_printf(out,
		                  "<section id=\"in-use\"><p class=\"error\">This run is used by "
		                  "%zu comparison%s%s; delete %s first.</p>",
		                  n, n == 1 ? "" : "s", using->next_cursor[0] ? " (and more)" : "",
		                  n == 1 ? "it" : "them");
		bad |= web_cmp_table(out, using, 1);
		bad |= web_printf(
		        out, "<p><a href=\"/ui/runs/%lld\">Back to the run</a></p></section>", id);
	} else {
		bad |= web_printf(
		        out,
		        "<form id=\"delete\" class=\"form\" method=\"post\" "
		        "action=\"/ui/%s/%lld/delete?html=1\"><p>This deletes the %s%s for "
		        "good.</p>"
		        "<p><button type=\"submit\" class=\"danger\">Delete %s #%lld</button> "
		        "<a href=\"/ui/%s/%lld\">Cancel</a></p></form>",
		        run ? "runs" : "comparisons", id, what, run ? " and its logs" : "", what,
		        id, run ? "runs" : "comparisons", id);
	}
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}
