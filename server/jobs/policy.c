/* policy.c - activation policies from JSON (see jobs.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

void srv_act_policy_storage_free(struct srv_act_policy_storage *storage)
{
	free(storage->ops);
	json_decref(storage->ref);
	storage->ops = NULL;
	storage->ref = NULL;
}

int srv_policy_size_ok(json_t *v, char *msg, size_t cap)
{
	size_t n = v ? json_dumpb(v, NULL, 0, JSON_COMPACT) : 0;
	if (n <= SRV_POLICY_MAX_BYTES)
		return 1;
	snprintf(msg, cap, "policy: at most %d bytes of JSON (got %zu)", SRV_POLICY_MAX_BYTES, n);
	return 0;
}

int srv_act_policy_parse(json_t *v, struct matcher_act_policy *p,
                         struct srv_act_policy_storage *storage, char *msg, size_t cap)
{
	matcher_act_policy_init(p);
	storage->ops = NULL;
	storage->ref = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		if (!strcmp(json_string_value(v), "bitwise"))
			return 0;
		snprintf(msg, cap,
		         "unknown activation policy '%s' (bitwise, or an object with "
		         "max_hash_distance / allow_only_ops)",
		         json_string_value(v));
		return -1;
	}
	if (!json_is_object(v)) {
		snprintf(msg, cap, "policy must be a name or an object");
		return -1;
	}
	const char *key;
	json_t *val;
	json_object_foreach(v, key, val)
	{
		if (strcmp(key, "name") && strcmp(key, "max_hash_distance") &&
		    strcmp(key, "allow_only_ops")) {
			snprintf(msg, cap, "unknown policy field '%.60s'", key);
			return -1;
		}
	}
	json_t *name = json_object_get(v, "name");
	json_t *mhd = json_object_get(v, "max_hash_distance");
	json_t *ops = json_object_get(v, "allow_only_ops");
	if (name && (!json_is_string(name) || (strcmp(json_string_value(name), "bitwise") &&
	                                       strcmp(json_string_value(name), "tolerance")))) {
		snprintf(msg, cap, "policy name must be bitwise or tolerance");
		return -1;
	}
	if (name && !strcmp(json_string_value(name), "bitwise") && !mhd && !ops)
		return 0;
	p->kind = MATCHER_POLICY_TOLERANCE;
	p->max_hash_distance = 0;
	if (mhd) {
		if (!json_is_number(mhd) || !isfinite(json_number_value(mhd)) ||
		    json_number_value(mhd) < 0 || json_number_value(mhd) > 1) {
			snprintf(msg, cap, "max_hash_distance must be a number from 0 to 1");
			return -1;
		}
		p->max_hash_distance = json_number_value(mhd);
	}
	if (ops) {
		if (!json_is_array(ops)) {
			snprintf(msg, cap, "allow_only_ops must be an array of op names");
			return -1;
		}
		size_t n = json_array_size(ops);
		storage->ops = calloc(n ? n : 1, sizeof *storage->ops);
		if (!storage->ops) {
			snprintf(msg, cap, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_array_get(ops, i);
			if (!json_is_string(o) || !*json_string_value(o)) {
				snprintf(msg, cap, "allow_only_ops must be an array of op names");
				srv_act_policy_storage_free(storage);
				return -1;
			}
			storage->ops[i] = json_string_value(o);
		}
		storage->ref = json_incref(ops);
		p->allow_only_ops = storage->ops;
		p->n_allow_only_ops = n;
	}
	if (matcher_act_policy_validate(p, msg, cap) < 0) {
		srv_act_policy_storage_free(storage);
		return -1;
	}
	return 0;
}
