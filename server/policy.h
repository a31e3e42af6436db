/* policy.h - activation comparison policies from their JSON / CLI forms.
 *
 * JSON: "bitwise", {"name":"bitwise"}, or the tolerance form
 * {"max_hash_distance": 1e-6, "allow_only_ops": ["wait_tensor", ...]}
 * (optionally with "name":"tolerance").  The parsed policy borrows its op
 * names from `storage`, which the caller keeps alive as long as the
 * policy. */
#ifndef PARITY_POLICY_H
#define PARITY_POLICY_H

#include <jansson.h>
#include <stddef.h>

#include "actcheck.h"

struct srv_act_policy_storage {
	const char **ops; /* malloc'd array of borrowed strings */
	json_t *ref;      /* keeps the strings alive */
};

/* Parse v (NULL = bitwise) into *p.  0, or -1 with a sentence in msg. */
int srv_act_policy_parse(json_t *v, struct matcher_act_policy *p,
                         struct srv_act_policy_storage *storage, char *msg, size_t cap);
void srv_act_policy_storage_free(struct srv_act_policy_storage *storage);

#endif
