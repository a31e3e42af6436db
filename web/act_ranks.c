/* act_ranks.c - the overall "summary" of a multi-rank activation result
 * document: the per-rank summaries' integer members summed (used by
 * web_act_result_doc, web/json_act.c). */
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
