/* noise_page.c - what a page, PNG chart or PDF of a noise comparison
 * (issue 26) needs in one read: the comparison with its rebuilt noise
 * result (store_comparison_get) and each member run's values of each
 * compared metric at the result's steps (store_run_metric_values), so the
 * renderers in web/ draw the band, the members and the candidate without
 * touching the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "views.h"
#include "web.h"

void srv_noise_page_free(struct srv_noise_page *p)
{
	if (!p)
		return;
	free(p->member_values);
	free(p->names);
	free(p->name_v);
	free(p->vals);
	free(p->per);
	store_comparison_view_free(&p->view);
	memset(p, 0, sizeof *p);
}

/* "NAME (run N)", or "run N" when the run has no name. */
static void run_label(char *out, size_t cap, int64_t id, const char *name)
{
	if (name && *name)
		snprintf(out, cap, "%.70s (run %lld)", name, (long long)id);
	else
		snprintf(out, cap, "run %lld", (long long)id);
}

int srv_noise_page_load(struct store *db, int64_t id, struct srv_noise_page *out)
{
	struct store_comparison_view v;
	int rc = store_comparison_get(db, id, &v);
	if (rc < 0) {
		memset(out, 0, sizeof *out);
		store_comparison_view_free(&v);
		return rc;
	}
	return srv_noise_page_from_view(db, &v, out);
}

int srv_noise_page_from_view(struct store *db, struct store_comparison_view *v,
                             struct srv_noise_page *out)
{
	const char *names[MATCHER_TRAIN_MAX_METRICS];
	int rc = 0;
	memset(out, 0, sizeof *out);
	out->view = *v; /* taken over */
	memset(v, 0, sizeof *v);
	const struct matcher_noise_result *r = out->view.cmp.noise;
	if (!r)
		return 0; /* not a noise comparison, or not done */
	size_t k = out->view.cmp.n_baseline_set, nm = r->n_metrics, ns = r->n_steps;
	if (nm > MATCHER_TRAIN_MAX_METRICS)
		nm = MATCHER_TRAIN_MAX_METRICS;
	for (size_t m = 0; m < nm; m++)
		names[m] = r->metrics[m].name;
	size_t per_run = nm * ns, total = k * per_run;
	out->member_values = malloc((total > 0 ? total : 1) * sizeof *out->member_values);
	if (!out->member_values)
		return STORE_ERROR;
	out->k = k;
	out->n_metrics = nm;
	for (size_t j = 0; rc == 0 && j < k; j++)
		rc = store_run_metric_values(db, out->view.cmp.baseline_set[j], r->rank, names, nm,
		                             r->steps, ns, out->member_values + j * per_run);
	/* the members' names (a run deleted since: its number alone) */
	out->names = calloc(k ? k : 1, sizeof *out->names);
	if (!out->names)
		return rc < 0 ? rc : STORE_ERROR;
	for (size_t j = 0; rc == 0 && j < k; j++) {
		struct store_run_view rv;
		memset(&rv, 0, sizeof rv);
		int64_t rid = out->view.cmp.baseline_set[j];
		int grc = store_run_get(db, rid, &rv);
		run_label(out->names[j], sizeof out->names[j], rid, grc == 0 ? rv.run.name : NULL);
		store_run_view_free(&rv);
	}
	return rc;
}

const double *srv_noise_page_member(const struct srv_noise_page *p, size_t member, size_t metric)
{
	const struct matcher_noise_result *r = p->view.cmp.noise;
	if (!r || member >= p->k || metric >= p->n_metrics)
		return NULL;
	return p->member_values + (member * p->n_metrics + metric) * r->n_steps;
}

int srv_noise_page_view(struct srv_noise_page *p, enum web_mode mode, struct web_noise_view *v)
{
	const struct store_comparison *c = &p->view.cmp;
	size_t k = p->k, nm = p->n_metrics;
	memset(v, 0, sizeof *v);
	if (!c->noise)
		return -1;
	if (!p->name_v) {
		p->name_v = calloc(k ? k : 1, sizeof *p->name_v);
		p->vals = calloc((nm ? nm : 1) * (k ? k : 1), sizeof *p->vals);
		p->per = calloc(nm ? nm : 1, sizeof *p->per);
		if (!p->names || !p->name_v || !p->vals || !p->per)
			return -1;
		for (size_t j = 0; j < k; j++)
			p->name_v[j] = p->names[j];
		for (size_t m = 0; m < nm; m++) {
			for (size_t j = 0; j < k; j++)
				p->vals[m * k + j] = srv_noise_page_member(p, j, m);
			p->per[m] = p->vals + m * k;
		}
		run_label(p->candidate, sizeof p->candidate, c->candidate_id,
		          c->candidate ? c->candidate->name : NULL);
	}
	v->res = c->noise;
	v->member_names = p->name_v;
	v->candidate_name = p->candidate;
	v->member_values = p->per;
	v->mode = mode;
	v->cmp_id = (long long)c->id;
	v->csv_hint = "steps.csv";
	return 0;
}
