/* act_ranks.c - the multi-rank activation result document, assembled from
 * the per-rank documents (server/act_json.h web_act_result_json + "rank"):
 * shared by the daemon's comparison job (server/jobs.c) and `parity
 * compare runA/ runB/` (server/cli_compare.c), so both give one shape:
 * the lowest rank's document without "rank", with the worst "verdict",
 * every rank's "reasons" (each with its "rank"), "summary" = the per-rank
 * sums and "ranks" = the per-rank documents. */
#include "web.h"

void web_act_sum_counts(json_t *dst, json_t *src)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v)
	{
		json_t *d = json_object_get(dst, k);
		if (json_is_integer(v)) {
			json_int_t base = json_is_integer(d) ? json_integer_value(d) : 0;
			json_object_set_new(dst, k, json_integer(base + json_integer_value(v)));
		} else if (json_is_object(v)) {
			if (!json_is_object(d)) {
				d = json_object();
				json_object_set_new(dst, k, d);
			}
			web_act_sum_counts(d, v);
		}
	}
}

int web_act_rank_reasons_append(json_t *reasons, json_t *rank_doc, int rank)
{
	size_t k;
	json_t *r;
	json_array_foreach(json_object_get(rank_doc, "reasons"), k, r)
	{
		json_t *c = json_deep_copy(r);
		if (!c || json_object_set_new(c, "rank", json_integer(rank)) < 0 ||
		    json_array_append_new(reasons, c) < 0)
			return -1;
	}
	return 0;
}

json_t *web_act_ranks_result(json_t *ranks, const char *verdict, json_t *reasons, json_t *summary,
                             json_t *policy)
{
	json_t *top =
	        json_array_size(ranks) ? json_deep_copy(json_array_get(ranks, 0)) : json_object();
	if (!top)
		return NULL;
	json_object_del(top, "rank");
	if (json_object_set_new(top, "kind", json_string("activation")) < 0 ||
	    json_object_set_new(top, "verdict", json_string(verdict)) < 0 ||
	    json_object_set(top, "reasons", reasons) < 0 ||
	    json_object_set(top, "policy", policy) < 0 ||
	    json_object_set(top, "summary", summary) < 0 ||
	    json_object_set(top, "ranks", ranks) < 0) {
		json_decref(top);
		return NULL;
	}
	return top;
}
