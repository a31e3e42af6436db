/* actcheck.c - activation verdicts under a policy (see actcheck.h).
 *
 * One pass over the rows: each non-match row is either forgiven by the
 * policy or counted against the run under its reason code.  Messages are
 * fixed-size (keys are cut by snprintf), so nothing here allocates. */
#include "actcheck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void matcher_act_policy_init(struct matcher_act_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = MATCHER_POLICY_BITWISE;
}

const char *matcher_act_policy_name(const struct matcher_act_policy *p)
{
	return p && p->kind == MATCHER_POLICY_TOLERANCE ? "tolerance" : "bitwise";
}

int matcher_act_policy_validate(const struct matcher_act_policy *p, char *msg, size_t cap)
{
	size_t i;

	if (!p)
		return 0;
	if (p->kind != MATCHER_POLICY_BITWISE && p->kind != MATCHER_POLICY_TOLERANCE) {
		snprintf(msg, cap, "unknown policy kind %d", (int)p->kind);
		return -1;
	}
	if (p->kind == MATCHER_POLICY_BITWISE)
		return 0;
	if (!isfinite(p->max_hash_distance) || p->max_hash_distance < 0) {
		snprintf(msg, cap, "max_hash_distance must be a finite number >= 0");
		return -1;
	}
	if (p->n_allow_only_ops && !p->allow_only_ops) {
		snprintf(msg, cap, "allow_only_ops is missing");
		return -1;
	}
	if (p->n_allow_only_ops > MATCHER_ACT_MAX_OPS) {
		snprintf(msg, cap, "allow_only_ops: at most %d op names (got %zu)",
		         MATCHER_ACT_MAX_OPS, p->n_allow_only_ops);
		return -1;
	}
	for (i = 0; i < p->n_allow_only_ops; i++) {
		if (!p->allow_only_ops[i] || !*p->allow_only_ops[i]) {
			snprintf(msg, cap, "allow_only_ops[%zu] is empty", i);
			return -1;
		}
		if (strlen(p->allow_only_ops[i]) > MATCHER_ACT_MAX_OP_BYTES) {
			snprintf(msg, cap, "allow_only_ops[%zu]: an op name has at most %d bytes",
			         i, MATCHER_ACT_MAX_OP_BYTES);
			return -1;
		}
	}
	return 0;
}

static int op_allowed(const struct matcher_entry *e, const struct matcher_act_policy *p)
{
	struct buf op = BUF_INIT;
	size_t i;
	int ok = 0;

	if (p->n_allow_only_ops == 0)
		return 0;
	if (matcher_key_op_type(e->key, strlen(e->key), &op) < 0)
		goto done; /* OOM: do not forgive */
	for (i = 0; i < p->n_allow_only_ops && !ok; i++)
		ok = strcmp(op.data ? op.data : "", p->allow_only_ops[i]) == 0;
done:
	buf_reset(&op);
	return ok;
}

int matcher_act_row_tolerated(const struct matcher_row *row, const struct matcher_act_policy *p)
{
	double d;

	if (row->status == MATCHER_MATCH)
		return 1;
	if (!p || p->kind != MATCHER_POLICY_TOLERANCE)
		return 0;
	switch (row->status) {
	case MATCHER_DIFF:
		if (row->shape_differs)
			return 0;
		d = fmax(row->output_hash_distance, row->input_hash_distance);
		return d <= p->max_hash_distance; /* both < 0: no distance, forgiven */
	case MATCHER_A_ONLY: return op_allowed(row->a, p);
	case MATCHER_B_ONLY: return op_allowed(row->b, p);
	default: return 0;
	}
}

static void reason_init(struct matcher_act_reason *rs, const char *code)
{
	memset(rs, 0, sizeof(*rs));
	rs->code = code;
	rs->first_row = MATCHER_NO_ROW;
	rs->first_row_phase[0] = rs->first_row_phase[1] = MATCHER_NO_ROW;
	rs->max_hash_distance = -1.0;
}

static const char *row_key(const struct matcher_row *row)
{
	return row->a ? row->a->key : row->b->key;
}

/* Whether matcher_act_row_tolerated looks at the entries of a row with
 * this status (op names of only-rows under a tolerance policy). */
static int needs_entries(const struct matcher_act_policy *p, unsigned char status)
{
	return p && p->kind == MATCHER_POLICY_TOLERANCE && p->n_allow_only_ops &&
	       (status == MATCHER_A_ONLY || status == MATCHER_B_ONLY);
}

/* Describe the first counted diff of a phase into out. */
static void describe_diff(char *out, size_t cap, const struct matcher_match_result *r, size_t i,
                          struct matcher_row_view *v)
{
	const struct matcher_row *row;

	if (i == MATCHER_NO_ROW) {
		snprintf(out, cap, "none");
		return;
	}
	if (!(row = matcher_result_row(r, i, v))) {
		snprintf(out, cap, "row %zu", i);
		return;
	}
	snprintf(out, cap, "row %zu %.160s (%s%s)", i, row->a->key,
	         row->shape_differs ? "shape differs, " : "",
	         row->origin ? "origin" : "propagated");
}

int matcher_act_check(const struct matcher_match_result *r, const struct matcher_act_policy *p,
                      struct matcher_act_verdict *out)
{
	struct matcher_act_reason diff, only[2];
	struct matcher_row_view v;
	struct matcher_row bare;
	char msg[256];
	size_t i, k;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (matcher_act_policy_validate(p, msg, sizeof(msg)) < 0) {
		out->verdict = MATCHER_VERDICT_ERROR;
		reason_init(&out->reasons[0], "bad_policy");
		snprintf(out->reasons[0].message, sizeof(out->reasons[0].message),
		         "invalid policy: %s", msg);
		out->n_reasons = 1;
		return -1;
	}
	matcher_row_view_init(&v);
	reason_init(&diff, "diff_rows");
	reason_init(&only[0], "a_only_rows");
	reason_init(&only[1], "b_only_rows");
	for (i = 0; i < r->n_rows; i++) {
		const struct matcher_row *row;
		struct matcher_act_reason *rs;
		int ph = r->recs[i].phase == MATCHER_BACKWARD;

		if (r->recs[i].status == MATCHER_MATCH)
			continue;
		if (needs_entries(p, r->recs[i].status)) {
			if (!(row = matcher_result_row(r, i, &v)))
				goto oom;
		} else {
			row = matcher_row_of_rec(&r->recs[i], &bare);
		}
		rs = row->status == MATCHER_DIFF ? &diff : &only[row->status == MATCHER_B_ONLY];
		if (matcher_act_row_tolerated(row, p)) {
			rs->tolerated++;
			out->n_tolerated++;
			continue;
		}
		rs->count++;
		if (rs->first_row == MATCHER_NO_ROW)
			rs->first_row = i;
		if (rs->first_row_phase[ph] == MATCHER_NO_ROW)
			rs->first_row_phase[ph] = i;
		if (row->status == MATCHER_DIFF) {
			double d = fmax(row->output_hash_distance, row->input_hash_distance);

			if (d > rs->max_hash_distance)
				rs->max_hash_distance = d;
		}
	}
	if (diff.count) {
		char fw[224], bw[224];

		describe_diff(fw, sizeof(fw), r, diff.first_row_phase[MATCHER_FORWARD], &v);
		describe_diff(bw, sizeof(bw), r, diff.first_row_phase[MATCHER_BACKWARD], &v);
		snprintf(diff.message, sizeof(diff.message),
		         "%zu paired op%s differ%s (largest hash distance %.3g); "
		         "first forward divergence: %s; first backward divergence: %s",
		         diff.count, diff.count == 1 ? "" : "s", diff.count == 1 ? "s" : "",
		         diff.max_hash_distance < 0 ? 0.0 : diff.max_hash_distance, fw, bw);
		out->reasons[out->n_reasons++] = diff;
	}
	for (k = 0; k < 2; k++) {
		const struct matcher_row *row;

		if (!only[k].count)
			continue;
		if (!(row = matcher_result_row(r, only[k].first_row, &v)))
			goto oom;
		snprintf(only[k].message, sizeof(only[k].message),
		         "%zu op%s only in run %c; first: %.300s", only[k].count,
		         only[k].count == 1 ? "" : "s", k ? 'B' : 'A', row_key(row));
		out->reasons[out->n_reasons++] = only[k];
	}
	out->verdict = out->n_reasons ? MATCHER_VERDICT_FAIL : MATCHER_VERDICT_PASS;
	rc = 0;
	goto done;
oom:
	memset(out, 0, sizeof(*out));
	out->verdict = MATCHER_VERDICT_ERROR;
	reason_init(&out->reasons[0], "oom");
	snprintf(out->reasons[0].message, sizeof(out->reasons[0].message),
	         "out of memory while checking the rows");
	out->n_reasons = 1;
done:
	matcher_row_view_free(&v);
	return rc;
}
