/* cli_ci.c - `parity submit --junit FILE` and `--markdown FILE`: the
 * verdict in the two shapes CI systems read, JUnit XML (test report
 * panels: one testcase per metric of a training comparison or per rank
 * of an activation comparison) and a Markdown summary (a PR comment,
 * GitHub's $GITHUB_STEP_SUMMARY).  Both are written whatever the outcome:
 * a failing metric is a <failure>, a comparison that could not be made
 * an <error>.
 *
 * Both writers read the same list of cases (collect), built from the
 * comparison document of GET /comparisons/ID.  Every value that came
 * from the server or a log goes through the escaper of its format:
 * xml_text (entities, control characters dropped) or md_text (Markdown
 * and HTML specials).  Single-threaded CLI use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "web.h"

enum ci_state { CASE_PASS, CASE_FAIL, CASE_SKIP, CASE_ERROR };

struct ci_case {
	char name[96]; /* "loss", "rank 3", "parity submit" */
	enum ci_state state;
	const char *type; /* the first reason's code, or a word of ours */
	struct buf why;   /* the reasons' messages, "; " between them */
};

struct ci_cases {
	struct ci_case *v;
	size_t n, cap;
	const char *kind; /* "training", "activation", or NULL */
};

static struct ci_case *add_case(struct ci_cases *cs, const char *name, enum ci_state st,
                                const char *type)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct ci_case *nv = realloc(cs->v, cap * sizeof *nv);
		if (!nv)
			return NULL;
		cs->v = nv;
		cs->cap = cap;
	}
	struct ci_case *c = &cs->v[cs->n++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->state = st;
	c->type = type;
	return c;
}

static void cases_free(struct ci_cases *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		buf_reset(&cs->v[i].why);
	free(cs->v);
	memset(cs, 0, sizeof *cs);
}

/* Append the message of each reason whose "metric" is metric (NULL:
 * reasons without a metric, or naming none of metrics); the first one's
 * code becomes the case's type.  The number appended. */
static size_t add_reasons(struct ci_case *c, json_t *reasons, const char *metric, json_t *metrics)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(reasons, i, r)
	{
		const char *m = json_string_value(json_object_get(r, "metric"));
		int mine = metric ? m && !strcmp(m, metric) : !m || !json_object_get(metrics, m);
		const char *msg = json_string_value(json_object_get(r, "message"));
		if (!mine || !msg)
			continue;
		if (c->why.len)
			buf_puts(&c->why, "; ");
		buf_puts(&c->why, msg);
		if (!c->type)
			c->type = json_string_value(json_object_get(r, "code"));
		n++;
	}
	return n;
}

static void training_cases(struct ci_cases *cs, json_t *result, const char *verdict)
{
	json_t *metrics = json_object_get(result, "metrics"),
	       *reasons = json_object_get(result, "reasons");
	const char *name;
	json_t *m;
	json_object_foreach(metrics, name, m)
	{
		int skipped = json_is_true(json_object_get(m, "not_logged"));
		int failed = !skipped && json_is_false(json_object_get(m, "pass"));
		struct ci_case *c = add_case(cs, name,
		                             skipped  ? CASE_SKIP
		                             : failed ? CASE_FAIL
		                                      : CASE_PASS,
		                             NULL);
		if (!c)
			return;
		if (skipped) {
			buf_printf(&c->why, "%s is not logged by either run", name);
			continue;
		}
		if (failed && add_reasons(c, reasons, name, metrics))
			continue;
		const char *max = json_string_value(json_object_get(m, "max_abs_exact"));
		json_int_t compared = json_integer_value(json_object_get(m, "compared"));
		json_int_t over = json_integer_value(json_object_get(m, "over"));
		buf_printf(&c->why, "max |diff| %s over %lld steps", max ? max : "?",
		           (long long)compared);
		if (failed)
			buf_printf(&c->why, ", %lld over the threshold", (long long)over);
		c->type = failed ? "threshold_exceeded" : NULL;
	}
	/* what fails besides the metrics (steps missing, warnings, min_steps) */
	struct ci_case probe = {0};
	if (strcmp(verdict, "pass") && add_reasons(&probe, reasons, NULL, metrics)) {
		struct ci_case *c = add_case(cs, "run", CASE_FAIL, probe.type);
		if (c)
			c->why = probe.why;
		else
			buf_reset(&probe.why);
	} else {
		buf_reset(&probe.why);
	}
}

static void activation_cases(struct ci_cases *cs, json_t *result)
{
	json_t *ranks = json_object_get(result, "ranks");
	json_t *one[1] = {result};
	size_t n = json_is_array(ranks) && json_array_size(ranks) ? json_array_size(ranks) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_is_array(ranks) && json_array_size(ranks)
		                    ? json_array_get(ranks, i)
		                    : one[0];
		const char *v = json_string_value(json_object_get(r, "verdict"));
		json_t *rank = json_object_get(r, "rank");
		char name[64];
		snprintf(name, sizeof name, "rank %lld",
		         json_is_integer(rank) ? (long long)json_integer_value(rank)
		                               : (long long)i);
		enum ci_state st = !v || !strcmp(v, "pass") ? CASE_PASS
		                   : !strcmp(v, "fail")     ? CASE_FAIL
		                                            : CASE_ERROR;
		struct ci_case *c = add_case(cs, name, st, NULL);
		if (!c)
			return;
		if (add_reasons(c, json_object_get(r, "reasons"), NULL, NULL))
			continue;
		json_t *sum = json_object_get(r, "summary");
		buf_printf(&c->why,
		           "%lld rows: %lld match, %lld differ, %lld only in A, %lld only in B",
		           (long long)json_integer_value(json_object_get(sum, "rows")),
		           (long long)json_integer_value(json_object_get(sum, "match")),
		           (long long)json_integer_value(json_object_get(sum, "diff")),
		           (long long)json_integer_value(json_object_get(sum, "a_only")),
		           (long long)json_integer_value(json_object_get(sum, "b_only")));
	}
}

/* The cases of ci: the comparison's metrics or ranks, and an error case
 * when the command ended in an error (no comparison, a failed job, a
 * verdict "error", a refused promotion). */
static void collect(const struct srv_cli_ci *ci, struct ci_cases *cs)
{
	json_t *c = ci->comparison;
	const char *status = json_string_value(json_object_get(c, "status"));
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	json_t *result = json_object_get(c, "result");
	cs->kind = json_string_value(json_object_get(c, "kind"));
	if (status && !strcmp(status, "done") && json_is_object(result)) {
		if (cs->kind && !strcmp(cs->kind, "training"))
			training_cases(cs, result, verdict ? verdict : "");
		else
			activation_cases(cs, result);
	}
	if (ci->exit_code < 2)
		return;
	struct ci_case *e = add_case(cs, "parity submit", CASE_ERROR, "error");
	if (!e)
		return;
	const char *job_error = json_string_value(json_object_get(c, "error"));
	if (status && !strcmp(status, "failed"))
		buf_printf(&e->why, "the comparison failed: %s",
		           job_error ? job_error : "(no message)");
	else if (verdict && !strcmp(verdict, "error"))
		add_reasons(e, json_object_get(result, "reasons"), NULL, NULL);
	if (!e->why.len)
		buf_puts(&e->why, ci->error ? ci->error : "parity submit ended in an error");
}

/* ---- output ----------------------------------------------------------------- */

/* s as XML character data or an attribute value (double-quoted): the five
 * specials as entities, control characters other than tab and newline
 * dropped (XML 1.0 cannot carry them). */
static void xml_text(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		case '\'': buf_puts(b, "&apos;"); break;
		default:
			if (ch >= 0x20 || ch == '\t' || ch == '\n')
				buf_putc(b, (char)ch);
		}
	}
}

/* s as the text of a Markdown table cell: HTML specials as entities,
 * Markdown's specials backslash-escaped, line breaks as spaces. */
static void md_text(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '&')
			buf_puts(b, "&amp;");
		else if (ch == '<')
			buf_puts(b, "&lt;");
		else if (ch == '>')
			buf_puts(b, "&gt;");
		else if (ch == '\n' || ch == '\r' || ch == '\t')
			buf_putc(b, ' ');
		else if (ch < 0x20)
			continue;
		else {
			if (strchr("\\`*_[]|#!~", ch))
				buf_putc(b, '\\');
			buf_putc(b, (char)ch);
		}
	}
}

/* A URL as a Markdown link target: bytes that would end or break it
 * percent-encoded. */
static void md_url(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch <= 0x20 || ch >= 0x7f || strchr("()<>\"'`[]\\|", ch))
			buf_printf(b, "%%%02X", ch);
		else
			buf_putc(b, (char)ch);
	}
}

/* buf to path ("-" = stdout).  0, or -1 (printed). */
static int write_out(const struct buf *b, const char *path, const char *what)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int ok = f && (!b->len || fwrite(b->data, 1, b->len, f) == b->len);
	if (f && f != stdout)
		ok = fclose(f) == 0 && ok;
	else if (f)
		ok = fflush(f) == 0 && ok;
	if (!ok)
		fprintf(stderr, "parity submit: cannot write the %s to %s\n", what, path);
	return ok ? 0 : -1;
}

static void xml_property(struct buf *b, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	buf_printf(b, "      <property name=\"%s\" value=\"", name);
	xml_text(b, value);
	buf_puts(b, "\"/>\n");
}

static long long run_id(json_t *c, const char *side)
{
	return (long long)json_integer_value(json_object_get(c, side));
}

static const char *policy_name(json_t *c)
{
	const char *p = json_string_value(json_object_get(json_object_get(c, "policy"), "name"));
	return p ? p : "default";
}

int srv_cli_ci_junit(const struct srv_cli_ci *ci, const char *path)
{
	struct ci_cases cs = {0};
	struct buf b = BUF_INIT;
	collect(ci, &cs);
	json_t *c = ci->comparison;
	size_t n_fail = 0, n_err = 0, n_skip = 0;
	for (size_t i = 0; i < cs.n; i++) {
		n_fail += cs.v[i].state == CASE_FAIL;
		n_err += cs.v[i].state == CASE_ERROR;
		n_skip += cs.v[i].state == CASE_SKIP;
	}
	char suite[400], num[32];
	const char *name = json_string_value(json_object_get(c, "name"));
	if (c)
		snprintf(suite, sizeof suite, "parity %s comparison %lld%s%.300s",
		         cs.kind ? cs.kind : "", run_id(c, "id"), name && *name ? ": " : "",
		         name ? name : "");
	else
		snprintf(suite, sizeof suite, "parity submit");
	buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_printf(&b,
	           "<testsuites name=\"parity\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
	           cs.n, n_fail, n_err);
	buf_puts(&b, "  <testsuite name=\"");
	xml_text(&b, suite);
	buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", cs.n,
	           n_fail, n_err, n_skip);
	buf_puts(&b, "    <properties>\n");
	xml_property(&b, "comparison_url", ci->page_url);
	xml_property(&b, "verdict", json_string_value(json_object_get(c, "verdict")));
	xml_property(&b, "lane", json_string_value(json_object_get(c, "lane")));
	xml_property(&b, "kind", cs.kind);
	if (c) {
		xml_property(&b, "policy", policy_name(c));
		snprintf(num, sizeof num, "%lld", run_id(c, "baseline"));
		xml_property(&b, "baseline_run", num);
		snprintf(num, sizeof num, "%lld", run_id(c, "candidate"));
		xml_property(&b, "candidate_run", num);
	}
	xml_property(&b, "baseline_name", json_string_value(json_object_get(c, "baseline_name")));
	snprintf(num, sizeof num, "%d", ci->exit_code);
	xml_property(&b, "exit_code", num);
	buf_puts(&b, "    </properties>\n");
	for (size_t i = 0; i < cs.n; i++) {
		const struct ci_case *k = &cs.v[i];
		buf_puts(&b, "    <testcase classname=\"parity");
		if (cs.kind && strcmp(k->name, "parity submit")) {
			buf_putc(&b, '.');
			xml_text(&b, cs.kind);
		}
		buf_puts(&b, "\" name=\"");
		xml_text(&b, k->name);
		buf_puts(&b, "\" time=\"0\"");
		if (k->state == CASE_PASS) {
			buf_puts(&b, "/>\n");
			continue;
		}
		const char *el = k->state == CASE_FAIL   ? "failure"
		                 : k->state == CASE_SKIP ? "skipped"
		                                         : "error";
		buf_printf(&b, ">\n      <%s", el);
		if (k->type) {
			buf_puts(&b, " type=\"");
			xml_text(&b, k->type);
			buf_puts(&b, "\"");
		}
		buf_puts(&b, " message=\"");
		xml_text(&b, k->why.data);
		buf_printf(&b, "\">");
		xml_text(&b, k->why.data);
		if (ci->page_url[0] && k->state != CASE_SKIP) {
			buf_puts(&b, "\n");
			xml_text(&b, ci->page_url);
		}
		buf_printf(&b, "</%s>\n    </testcase>\n", el);
	}
	buf_puts(&b, "  </testsuite>\n</testsuites>\n");
	int rc = write_out(&b, path, "JUnit report");
	buf_reset(&b);
	cases_free(&cs);
	return rc;
}

int srv_cli_ci_markdown(const struct srv_cli_ci *ci, const char *path)
{
	struct ci_cases cs = {0};
	struct buf b = BUF_INIT;
	collect(ci, &cs);
	json_t *c = ci->comparison;
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	const char *head = ci->exit_code == 0 ? "PASS" : ci->exit_code == 1 ? "FAIL" : "ERROR";
	const char *mark = ci->exit_code == 0 ? "\xe2\x9c\x85" : "\xe2\x9d\x8c"; /* check, cross */
	buf_printf(&b, "### %s parity: %s\n\n", mark, head);
	if (c) {
		json_t *runs = json_object_get(c, "runs");
		const char *bn = json_string_value(
		        json_object_get(json_object_get(runs, "baseline"), "name"));
		const char *cn = json_string_value(
		        json_object_get(json_object_get(runs, "candidate"), "name"));
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *base_name = json_string_value(json_object_get(c, "baseline_name"));
		buf_printf(&b, "| | |\n|---|---|\n| verdict | **");
		char vl[64]; /* issue 26: "pass (within noise)" */
		md_text(&b,
		        verdict ? web_verdict_lane(verdict,
		                                   json_string_value(json_object_get(c, "lane")),
		                                   vl, sizeof vl)
		                : "none");
		buf_puts(&b, "** |\n| comparison | ");
		buf_printf(&b, "%lld, ", run_id(c, "id"));
		md_text(&b, cs.kind ? cs.kind : "?");
		buf_puts(&b, ", policy ");
		md_text(&b, policy_name(c));
		if (name && *name) {
			buf_puts(&b, ", ");
			md_text(&b, name);
		}
		buf_printf(&b, " |\n| runs | baseline %lld (", run_id(c, "baseline"));
		md_text(&b, bn ? bn : "");
		if (base_name) {
			buf_puts(&b, ", baseline ");
			md_text(&b, base_name);
		}
		buf_printf(&b, ") → candidate %lld (", run_id(c, "candidate"));
		md_text(&b, cn ? cn : "");
		buf_puts(&b, ") |\n");
		if (ci->page_url[0]) {
			buf_puts(&b, "| page | [");
			md_text(&b, ci->page_url);
			buf_puts(&b, "](");
			md_url(&b, ci->page_url);
			buf_puts(&b, ") |\n");
		}
		buf_puts(&b, "\n");
	}
	if (cs.n) {
		buf_printf(&b, "| %s | result | details |\n|---|---|---|\n",
		           cs.kind && !strcmp(cs.kind, "training") ? "metric" : "check");
		for (size_t i = 0; i < cs.n; i++) {
			const struct ci_case *k = &cs.v[i];
			buf_puts(&b, "| ");
			md_text(&b, k->name);
			buf_puts(&b, k->state == CASE_PASS   ? " | \xe2\x9c\x85 pass | "
			             : k->state == CASE_FAIL ? " | \xe2\x9d\x8c **FAIL** | "
			             : k->state == CASE_SKIP ? " | not logged | "
			                                     : " | \xe2\x9d\x8c **ERROR** | ");
			md_text(&b, k->why.data);
			buf_puts(&b, " |\n");
		}
	}
	int rc = write_out(&b, path, "Markdown summary");
	buf_reset(&b);
	cases_free(&cs);
	return rc;
}
