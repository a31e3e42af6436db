/* msprobe_side.c - the files beside an msprobe dump in POST /runs: the
 * multipart fields `stack` (stack.json) and `construct` (construct.json).
 *
 * Each arrives as its own part, in any order relative to the `log` parts;
 * the k-th `stack` part belongs to the k-th dump (the k-th msprobe `log`
 * part), and likewise `construct`.  A part is buffered (bounded by
 * MATCHER_MSPROBE_MAX_BYTES_DEFAULT, named in the error) and checked when
 * the upload settles: a stack.json is parsed into its locations, which the
 * commit writes into the dump's entries (srv_msprobe_locate); a
 * construct.json must be a JSON object (the op names already carry the
 * module path, so it adds nothing to matching).  A broken file is 400 with
 * jansson's line and column or the key, and nothing is stored. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "ingest.h"
#include "msprobe.h"

struct side_file {
	struct buf text;
	struct matcher_msprobe_stack *stack; /* `stack` parts, after settle */
};

struct srv_msprobe_side {
	struct side_file **files[2]; /* [0] stack, [1] construct */
	size_t n[2];
	int cur; /* field of the part being received: 0, 1, or -1 */
};

static int field_index(const char *key)
{
	return !strcmp(key, "stack") ? 0 : !strcmp(key, "construct") ? 1 : -1;
}

static const char *const FIELD_FILE[2] = {"stack.json", "construct.json"};

int srv_msprobe_side_field(struct srv_msprobe_side **sidep, const char *key, const char *data,
                           uint64_t off, size_t size, unsigned *status, json_t **err)
{
	int f = key ? field_index(key) : -1;
	if (f < 0)
		return 0;
	struct srv_msprobe_side *s = *sidep;
	if (!s && !(s = *sidep = calloc(1, sizeof *s)))
		goto oom;
	if (off == 0 || s->cur != f) {
		struct side_file **nf = realloc(s->files[f], (s->n[f] + 1) * sizeof *nf);
		if (!nf)
			goto oom;
		s->files[f] = nf;
		if (!(nf[s->n[f]] = calloc(1, sizeof **nf)))
			goto oom;
		s->n[f]++;
		s->cur = f;
	}
	struct side_file *sf = s->files[f][s->n[f] - 1];
	if (size > MATCHER_MSPROBE_MAX_BYTES_DEFAULT - sf->text.len) {
		*status = 413;
		*err = srv_error_json("too_large", 0, "%s (field `%s`) is over the %zu MiB limit",
		                      FIELD_FILE[f], key, MATCHER_MSPROBE_MAX_BYTES_DEFAULT >> 20);
		return -1;
	}
	if (buf_append(&sf->text, data, size) < 0)
		goto oom;
	return 1;
oom:
	*status = 503;
	*err = srv_error_json("out_of_memory", 0, "out of memory");
	return -1;
}

int srv_msprobe_side_settle(struct srv_msprobe_side *s, size_t n_dumps, unsigned *status,
                            json_t **err)
{
	if (!s)
		return 0;
	for (int f = 0; f < 2; f++) {
		if (s->n[f] > n_dumps) {
			*status = 400;
			*err = srv_error_json(
			        "bad_field", 0,
			        "%zu `%s` parts for %zu msprobe dumps: at most one per "
			        "dump, in the dumps' order",
			        s->n[f], f ? "construct" : "stack", n_dumps);
			return -1;
		}
		for (size_t k = 0; k < s->n[f]; k++) {
			struct side_file *sf = s->files[f][k];
			struct matcher_error e;
			const char *t = sf->text.data ? sf->text.data : "";
			if (f == 0 && !sf->stack &&
			    matcher_msprobe_stack_parse(t, sf->text.len, 0, &sf->stack, &e) < 0)
				goto bad;
			if (f == 1) {
				json_error_t je;
				json_t *c = json_loadb(t, sf->text.len, 0, &je);
				int ok = json_is_object(c);
				json_decref(c);
				if (!c) {
					snprintf(
					        e.message, sizeof e.message,
					        "construct.json is not valid JSON: line %d, column "
					        "%d: %s",
					        je.line, je.column, je.text);
					e.code = "bad_json";
					e.line = (unsigned long)(je.line > 0 ? je.line : 0);
					goto bad;
				}
				if (!ok) {
					snprintf(e.message, sizeof e.message,
					         "construct.json is not a JSON object");
					e.code = "bad_construct";
					e.line = 0;
					goto bad;
				}
			}
			buf_reset(&sf->text);
			continue;
		bad:
			*status = e.code && !strcmp(e.code, "oom") ? 503 : 400;
			*err = srv_error_json(e.code, e.line, "%s part %zu: %s",
			                      f ? "construct" : "stack", k + 1, e.message);
			return -1;
		}
	}
	return 0;
}

const struct matcher_msprobe_stack *srv_msprobe_side_stack(const struct srv_msprobe_side *s,
                                                           size_t k)
{
	return s && k < s->n[0] ? s->files[0][k]->stack : NULL;
}

void srv_msprobe_side_free(struct srv_msprobe_side *s)
{
	if (!s)
		return;
	for (int f = 0; f < 2; f++) {
		for (size_t k = 0; k < s->n[f]; k++) {
			buf_reset(&s->files[f][k]->text);
			matcher_msprobe_stack_free(s->files[f][k]->stack);
			free(s->files[f][k]);
		}
		free(s->files[f]);
	}
	free(s);
}

int srv_msprobe_locate(const struct matcher_msprobe_stack *st, const struct matcher_entry *e,
                       struct matcher_entry *copy)
{
	const char *loc = e->location ? NULL : matcher_msprobe_stack_find(st, e->key);
	if (!loc)
		return 0;
	*copy = *e;
	copy->location = loc;
	return 1;
}
