/* cli_report.c - the offline self-contained reports of `parity compare -o
 * diff.html` (API and row selection: cli_report.h).  The page pieces are
 * web/'s streamed report (web_report_act_begin / _all, web_report_rank_*,
 * web_report_section_*, web_report_row), the same the daemon's
 * report.html streams; here rows come from the matcher's result and go to
 * a FILE in ~64 KiB pieces, so memory does not grow with the row count.
 * Nothing here talks to libmicrohttpd or the store. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_report.h"
#include "json_train.h"
#include "web.h"
#include "cli.h"

static int write_buf(FILE *f, struct buf *b)
{
	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		return -1;
	return 0;
}

/* Flush b to f once it holds over 64 KiB (always when force). */
static int flush_buf(FILE *f, struct buf *b, int force)
{
	if (!force && b->len < 65536)
		return 0;
	int rc = write_buf(f, b);
	buf_clear(b);
	return rc;
}

/* ---- rows rendered on two threads --------------------------------------
 * Rendering the rows' HTML is a third of `parity compare -o`'s time.  The
 * rows of a section go out in chunks of RENDER_CHUNK: this thread renders
 * chunk k while a helper thread renders chunk k+1 into its own buffer,
 * then both are written in order, so the file is the same bytes as a
 * one-thread rendering and memory stays two chunks' worth.  Without a
 * helper thread (pthread_create failed) the chunk is rendered inline
 * (web_chunker). */
#define RENDER_CHUNK 512

/* Render rows idx[0..n) of the section into out; pos is the position of
 * idx[0] in the section (the table head goes before position 0). */
static int render_chunk(const struct matcher_match_result *res, const struct web_report_rows *st,
                        const size_t *idx, size_t n, size_t pos, struct buf *out)
{
	struct web_report_rows s = *st;
	struct matcher_row_view v;
	int rc = 0;

	s.n = pos;
	matcher_row_view_init(&v);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct web_act_row wr = {(long)idx[i], matcher_result_row(res, idx[i], &v)};
		if (!wr.row || web_report_row(out, &s, &wr) < 0)
			rc = -1;
	}
	matcher_row_view_free(&v);
	return rc;
}

/* The rows of one section, for the chunker (chunk rows [from, to) are
 * idx[from..to), at positions base + from.. in the section). */
struct section_job {
	const struct matcher_match_result *res;
	struct web_report_rows st;
	const size_t *idx;
	size_t base;
};

static int render_job(void *ctx, size_t from, size_t to, struct buf *out)
{
	const struct section_job *j = ctx;

	return render_chunk(j->res, &j->st, j->idx + from, to - from, j->base + from, out);
}

/* The two phase sections, written to f (out: the caller's buffer, flushed
 * as it goes): forward rows, then backward, each in row order (every row:
 * the report renders them virtually, web/report.c).  The rows of a phase
 * are picked as the sections go, two chunks at a time into win, so no
 * list of a phase's rows is held.  0, or -1 on a write or memory error. */
static int act_report_rows(const struct matcher_match_result *res, FILE *f, struct buf *out,
                           struct web_report_rows *st)
{
	struct web_chunker ch;
	struct section_job job;
	struct buf *theirs;
	size_t win[2 * RENDER_CHUNK];
	int rc = -1;

	web_chunker_init(&ch, render_job);
	for (int ph = 0; ph < 2; ph++) {
		size_t pos = 0, i = 0;

		if (web_report_section_begin(out, st, ph) < 0)
			goto done;
		job = (struct section_job){res, *st, win, 0};
		for (;;) {
			size_t n = 0;

			for (; i < res->n_rows && n < 2 * RENDER_CHUNK; i++) {
				if (res->recs[i].phase == (enum matcher_phase)ph)
					win[n++] = i;
			}
			if (!n)
				break;
			size_t na = n < RENDER_CHUNK ? n : RENDER_CHUNK;

			job.base = pos;
			if (n > na)
				web_chunker_post(&ch, &job, na, n);
			if (render_chunk(res, st, win, na, pos, out) < 0 ||
			    flush_buf(f, out, 1) < 0)
				goto done;
			if (n > na &&
			    (web_chunker_collect(&ch, &theirs) < 0 || flush_buf(f, theirs, 1) < 0))
				goto done;
			pos += n;
		}
		st->n = pos;
		if (web_report_section_end(out, st) < 0)
			goto done;
	}
	rc = 0;
done:
	/* a chunk still with the helper is finished before its rows go away */
	web_chunker_free(&ch);
	return rc;
}

/* One rank's profile (every non-matching row; matched rows are drawn from
 * the row count) and whether its rows carry an L1 statistic.  *pts is the
 * caller's (free).  0 or -1 (OOM). */
static int rank_prep(const struct matcher_match_result *res, struct web_profile *p,
                     struct web_profile_point **pts, int *show_l1)
{
	size_t i, n_pts = 0;

	*show_l1 = 0;
	memset(p, 0, sizeof *p);
	*pts = malloc((res->n_rows ? res->n_rows : 1) * sizeof **pts);
	if (!*pts)
		return -1;
	for (i = 0; i < res->n_rows; i++) {
		const struct matcher_row_rec *row = &res->recs[i];
		if (row->status != MATCHER_MATCH) {
			struct web_profile_point *q = &(*pts)[n_pts++];
			q->idx = (long)i;
			q->dist = row->output_hash_distance > row->input_hash_distance
			                  ? row->output_hash_distance
			                  : row->input_hash_distance;
			q->status = (unsigned char)row->status;
			q->phase = row->phase == MATCHER_BACKWARD;
		}
		if (!*show_l1 &&
		    ((row->a != MATCHER_REC_NONE &&
		      res->log_a->recs[row->a].field[MATCHER_STAT_L1] != MATCHER_REC_NONE) ||
		     (row->b != MATCHER_REC_NONE &&
		      res->log_b->recs[row->b].field[MATCHER_STAT_L1] != MATCHER_REC_NONE)))
			*show_l1 = 1;
	}
	p->pts = *pts;
	p->n = n_pts;
	p->n_rows = (long)res->n_rows;
	p->first_fwd = res->summary.first_divergence[0] == MATCHER_NO_ROW
	                       ? -1
	                       : (long)res->summary.first_divergence[0];
	p->first_bwd = res->summary.first_divergence[1] == MATCHER_NO_ROW
	                       ? -1
	                       : (long)res->summary.first_divergence[1];
	return 0;
}

int srv_report_act_file(FILE *f, const struct store_act_input *d)
{
	const struct matcher_match_result *res = d->result;
	struct store_act_build typed;
	struct web_profile_point *pts = NULL;
	struct web_profile p;
	struct web_report_rows st;
	struct buf b = BUF_INIT;
	int rc = -1;

	memset(&st, 0, sizeof st);
	store_act_build_init(&typed, d->policy);
	if (store_act_build_rank(&typed, d, -1) < 0 || rank_prep(res, &p, &pts, &st.show_l1) < 0)
		goto done;
	typed.res.verdict = typed.res.ranks[0].verdict;
	if (web_report_act_begin(&b, NULL, &typed.res, &p, -1, NULL) < 0 || flush_buf(f, &b, 1) < 0)
		goto done;
	/* the profile and the head are written: free them before the rows */
	free(pts);
	pts = NULL;
	store_act_build_free(&typed);
	if (act_report_rows(res, f, &b, &st) < 0 || web_report_act_end(&b) < 0)
		goto done;
	rc = flush_buf(f, &b, 1);
done:
	store_act_build_free(&typed);
	free(pts);
	buf_reset(&b);
	return rc;
}

int srv_report_act_all_begin(FILE *f, struct buf *b, const struct store_act_result *top)
{
	struct buf note = BUF_INIT;
	size_t n_ranks = top->n_ranks;
	int rc = buf_printf(&note,
	                    "This report shows every rank (%zu), a section each, with every "
	                    "row of the rank.",
	                    n_ranks);
	if (rc == 0)
		rc = web_report_act_begin_all(b, NULL, top, note.data);
	buf_reset(&note);
	return rc < 0 ? -1 : flush_buf(f, b, 1);
}

int srv_report_act_rank(FILE *f, struct buf *b, const struct store_act_result *top, int rank,
                        const struct matcher_match_result *res)
{
	char prefix[WEB_RANK_PREFIX];
	struct web_profile_point *pts = NULL;
	struct web_profile p;
	struct web_report_rows st;
	int rc = -1;

	memset(&st, 0, sizeof st);
	web_report_rank_prefix(prefix, rank);
	if (rank_prep(res, &p, &pts, &st.show_l1) < 0)
		goto done;
	p.id_prefix = prefix;
	st.id_prefix = prefix;
	if (web_report_rank_begin(b, top, rank, &p, NULL) < 0 || flush_buf(f, b, 1) < 0)
		goto done;
	free(pts);
	pts = NULL;
	if (act_report_rows(res, f, b, &st) < 0 || web_report_rank_end(b) < 0)
		goto done;
	rc = flush_buf(f, b, 1);
done:
	free(pts);
	return rc;
}

int srv_report_act_all_end(FILE *f, struct buf *b)
{
	if (web_report_act_end(b) < 0)
		return -1;
	return flush_buf(f, b, 1);
}

int srv_report_train_file(FILE *f, const struct matcher_train_result *r,
                          const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                          const char *name_a, const char *name_b)
{
	struct store_train_result res;
	struct store_step_row *steps = NULL;
	struct arena arena;
	struct buf out = BUF_INIT;
	int rc = -1;
	arena_init(&arena);
	if (store_train_result_of_check(&res, &arena, r, a, b) < 0 ||
	    web_train_steps_of_check(r, &arena, &steps, &(size_t){0}) < 0)
		goto done;
	struct web_train_view v = {.res = &res,
	                           .name_a = name_a,
	                           .name_b = name_b,
	                           .steps = steps,
	                           .n_steps = r->n_common};
	if (web_report_html(&out, &v) < 0)
		goto done;
	rc = write_buf(f, &out);
done:
	free(steps);
	arena_reset(&arena);
	buf_reset(&out);
	return rc;
}

int srv_report_is_html_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n >= 5 && (!strcasecmp(path + n - 5, ".html") ||
	                  (n >= 4 && !strcasecmp(path + n - 4, ".htm")));
}
