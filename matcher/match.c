/* match.c - the four-pass activation matcher, row statuses, distances and
 * the summary (contract: matching.md; API: match.h).
 *
 * Each pass groups the still-unclaimed B entries by the pass's key into
 * FIFO queues (a hash table from key to queue, queues linked through one
 * `next` array, so B file order is kept inside each group), then walks A in
 * file order and pops the head of its group.  Popping the head is exactly
 * "the first unclaimed B entry of the group": the queue only ever holds
 * unclaimed entries.  So every pass is O(|A| + |B|) expected time.  The
 * logs are compact records (actlog.h): a pass key is re-derived into a
 * scratch buffer when it is needed, and the group table holds only hashes
 * (a hash match is confirmed against the group's key, derived again from
 * one of its B entries), so a pass costs ~28 bytes per B entry, not a
 * copy of B's keys; rows are kept as 32-byte records and re-derived for
 * their readers (matcher_result_row). */
#include "match.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "strmap.h"

/* ---- small text helpers ----------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void trim(const char **p, size_t *n)
{
	while (*n && is_space(**p)) {
		(*p)++;
		(*n)--;
	}
	while (*n && is_space((*p)[*n - 1]))
		(*n)--;
}

static int is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static int is_word(char c)
{
	return is_upper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* ---- names ------------------------------------------------------------- */

const char *matcher_status_name(enum matcher_status s)
{
	static const char *const names[MATCHER_N_STATUS] = {"match", "diff", "a_only", "b_only"};
	return (unsigned)s < MATCHER_N_STATUS ? names[s] : NULL;
}

const char *matcher_method_name(enum matcher_method m)
{
	static const char *const names[MATCHER_N_METHODS] = {"override", "exact", "fuzzy", "stats"};
	return (unsigned)m < MATCHER_N_METHODS ? names[m] : NULL;
}

const char *matcher_phase_name(enum matcher_phase p)
{
	return p == MATCHER_BACKWARD ? "backward" : p == MATCHER_FORWARD ? "forward" : NULL;
}

/* ---- keys -------------------------------------------------------------- */

size_t matcher_key_root_len(const char *key, size_t n)
{
	size_t i, caps = 0;

	if (n == 0 || !is_upper(key[0]))
		return 0;
	for (i = 0; i < n && is_word(key[i]); i++)
		caps += is_upper(key[i]);
	if (i < n && key[i] == '.' && caps >= 2)
		return i + 1;
	return 0;
}

int matcher_key_fuzzy(const char *key, size_t n, struct buf *out)
{
	size_t i = 0, start = 0, root;

	buf_clear(out);
	/* counters removed first, straight into out; the strip applies to the
	 * result (no scratch buffer: the passes call this per key) */
	while (i < n) {
		size_t j;

		if (key[i] != '/' || n - i < 5 || memcmp(key + i, "/op_", 4) != 0) {
			i++;
			continue;
		}
		j = i + 4;
		while (j < n && key[j] >= '0' && key[j] <= '9')
			j++;
		if (j == i + 4 || j >= n || key[j] != '_') {
			i++;
			continue;
		}
		if (buf_append(out, key + start, i - start) < 0 || buf_putc(out, '/') < 0)
			return -1;
		i = start = j + 1;
	}
	if (buf_append(out, key + start, n - start) < 0 || buf_reserve(out, 0) < 0)
		return -1;
	root = matcher_key_root_len(out->data, out->len);
	if (root) {
		memmove(out->data, out->data + root, out->len - root);
		out->len -= root;
		out->data[out->len] = 0;
	}
	return 0;
}

int matcher_key_op_type(const char *key, size_t n, struct buf *out)
{
	const char *slash;

	if (!memchr(key, '/', n)) {
		buf_clear(out);
		return buf_append(out, key, n);
	}
	if (matcher_key_fuzzy(key, n, out) < 0)
		return -1;
	slash = out->len ? memrchr(out->data, '/', out->len) : NULL;
	if (slash) {
		size_t skip = (size_t)(slash - out->data) + 1;

		memmove(out->data, out->data + skip, out->len - skip);
		out->len -= skip;
		out->data[out->len] = 0;
	}
	return 0;
}

/* ---- distances ----------------------------------------------------------- */

static double rel_diff_n(double a, double b, const char *ta, size_t la, const char *tb, size_t lb)
{
	double m, d;

	if (isnan(a) || isnan(b))
		return (la == lb && memcmp(ta, tb, la) == 0) ? 0.0 : 1.0;
	if (a == b)
		return 0.0;
	if (isinf(a) || isinf(b))
		return 1.0;
	m = fmax(fmax(fabs(a), fabs(b)), 1e-30);
	d = fabs(a - b) / m;
	/* opposite signs can give up to 2 (or inf on overflow): keep [0, 1] */
	return d > 1.0 || isnan(d) ? 1.0 : d;
}

double matcher_rel_diff(double a, double b, const char *ta, const char *tb)
{
	ta = or_empty(ta);
	tb = or_empty(tb);
	return rel_diff_n(a, b, ta, strlen(ta), tb, strlen(tb));
}

static size_t count_items(const char *s)
{
	size_t n = 1;

	for (; *s; s++)
		n += *s == ',';
	return n;
}

static int is_nan_text(const char *p, size_t n)
{
	return n == 3 && memcmp(p, "nan", 3) == 0;
}

double matcher_hash_distance(const char *a, const char *b)
{
	double worst = 0.0;

	a = or_empty(a);
	b = or_empty(b);
	if (!*a && !*b)
		return -1.0;
	if (!*a || !*b)
		return 1.0;
	if (strcmp(a, b) == 0)
		return 0.0;
	if (count_items(a) != count_items(b))
		return 1.0;
	while (*a || *b) {
		const char *ea = strchr(a, ','), *eb = strchr(b, ',');
		size_t la = ea ? (size_t)(ea - a) : strlen(a);
		size_t lb = eb ? (size_t)(eb - b) : strlen(b);
		const char *pa = a, *pb = b;
		double x, y, d;

		trim(&pa, &la);
		trim(&pb, &lb);
		if (is_nan_text(pa, la) && is_nan_text(pb, lb)) {
			d = 0.0;
		} else if (is_nan_text(pa, la) || is_nan_text(pb, lb)) {
			d = 1.0;
		} else if (!matcher_parse_number(pa, la, &x) || !matcher_parse_number(pb, lb, &y)) {
			d = (la == lb && memcmp(pa, pb, la) == 0) ? 0.0 : 1.0;
		} else {
			d = rel_diff_n(x, y, pa, la, pb, lb);
		}
		if (d > worst)
			worst = d;
		if (worst >= 1.0 || !ea || !eb)
			break;
		a = ea + 1;
		b = eb + 1;
	}
	return worst;
}

double matcher_colour_intensity(double rd)
{
	if (!(rd > 1e-8))
		return 0.0;
	if (rd >= 0.1)
		return 1.0;
	return (log10(rd) + 8.0) / 7.0;
}

const char *matcher_entry_output_hash(const struct matcher_entry *e)
{
	if (e->output_hash)
		return e->output_hash;
	return e->stats[MATCHER_STAT_L1]; /* legacy: L1 norm stands in; may be NULL */
}

/* ---- rows -------------------------------------------------------------- */

/* The per-stat differences of a paired row (both entries set). */
static void row_stat_diffs(struct matcher_row *row)
{
	const struct matcher_entry *a = row->a, *b = row->b;
	int i;

	for (i = 0; i < MATCHER_N_STATS; i++) {
		const char *ta = a->stats[i], *tb = b->stats[i];
		unsigned bit = 1u << i;

		row->stat_diff[i] = -1.0;
		if (!ta || !tb || strcmp(ta, tb) == 0)
			continue;
		if (i != MATCHER_STAT_SHAPE && (a->stat_isnum & bit) && (b->stat_isnum & bit))
			row->stat_diff[i] =
			        matcher_rel_diff(a->stat_num[i], b->stat_num[i], ta, tb);
		else
			row->stat_diff[i] = 1.0;
	}
}

/* Status and origin from the shape flag and the two distances. */
static void row_status(struct matcher_row *row)
{
	int in_differs = row->input_hash_distance > MATCHER_HASH_EPS;
	int diff = row->shape_differs || in_differs || row->output_hash_distance > MATCHER_HASH_EPS;

	row->status = diff ? MATCHER_DIFF : MATCHER_MATCH;
	row->origin = diff && !in_differs;
}

void matcher_row_compare(struct matcher_row *row)
{
	const struct matcher_entry *a = row->a, *b = row->b;

	row->shape_differs = strcmp(or_empty(a->stats[MATCHER_STAT_SHAPE]),
	                            or_empty(b->stats[MATCHER_STAT_SHAPE])) != 0;
	row->output_hash_distance =
	        matcher_hash_distance(matcher_entry_output_hash(a), matcher_entry_output_hash(b));
	row->input_hash_distance = matcher_hash_distance(a->input_hashes, b->input_hashes);
	row_status(row);
	row_stat_diffs(row);
}

static void row_only(struct matcher_row *row, const struct matcher_entry *a,
                     const struct matcher_entry *b)
{
	int i;

	memset(row, 0, sizeof(*row));
	row->a = a;
	row->b = b;
	row->status = a ? MATCHER_A_ONLY : MATCHER_B_ONLY;
	row->method = MATCHER_METHOD_NONE;
	row->phase = a ? a->phase : b ? b->phase : MATCHER_FORWARD;
	row->output_hash_distance = -1.0;
	row->input_hash_distance = -1.0;
	for (i = 0; i < MATCHER_N_STATS; i++)
		row->stat_diff[i] = -1.0;
}

void matcher_row_view_init(struct matcher_row_view *v)
{
	memset(&v->row, 0, sizeof(v->row));
	matcher_entry_view_init(&v->a);
	matcher_entry_view_init(&v->b);
}

void matcher_row_view_free(struct matcher_row_view *v)
{
	matcher_entry_view_free(&v->a);
	matcher_entry_view_free(&v->b);
}

const struct matcher_row *matcher_row_of_rec(const struct matcher_row_rec *q,
                                             struct matcher_row *row)
{
	row_only(row, NULL, NULL);
	row->status = (enum matcher_status)q->status;
	row->method = (enum matcher_method)q->method;
	row->phase = (enum matcher_phase)q->phase;
	row->origin = q->origin;
	row->shape_differs = q->shape_differs;
	row->output_hash_distance = q->output_hash_distance;
	row->input_hash_distance = q->input_hash_distance;
	return row;
}

const struct matcher_row *matcher_result_row(const struct matcher_match_result *r, size_t i,
                                             struct matcher_row_view *v)
{
	const struct matcher_row_rec *q = &r->recs[i];
	struct matcher_row *row = &v->row;

	matcher_row_of_rec(q, row);
	if (q->a != MATCHER_REC_NONE && !(row->a = matcher_actlog_entry(r->log_a, q->a, &v->a)))
		return NULL;
	if (q->b != MATCHER_REC_NONE && !(row->b = matcher_actlog_entry(r->log_b, q->b, &v->b)))
		return NULL;
	if (row->a && row->b)
		row_stat_diffs(row);
	return row;
}

/* ---- override file ----------------------------------------------------- */

void matcher_overrides_free(struct matcher_overrides *ov)
{
	if (!ov)
		return;
	free(ov->items);
	free(ov->warnings);
	arena_reset(&ov->arena);
	free(ov);
}

static int add_no_comma_warning(struct matcher_overrides *ov, size_t *cap, unsigned long line,
                                const char *p, size_t n)
{
	struct buf msg = BUF_INIT;
	struct matcher_warning *w;
	int rc = -1;

	if (ov->n_warnings == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct matcher_warning *nw = realloc(ov->warnings, ncap * sizeof(*nw));

		if (!nw)
			goto done;
		ov->warnings = nw;
		*cap = ncap;
	}
	if (buf_printf(&msg,
	               "override file line %lu has no comma; expected "
	               "\"<A key>, <B key>\" (line skipped)",
	               line) < 0)
		goto done;
	w = &ov->warnings[ov->n_warnings];
	w->code = "override_no_comma";
	w->line = line;
	w->message = arena_strdup(&ov->arena, msg.data);
	w->excerpt = arena_strndup(&ov->arena, p, n > 200 ? 200 : n);
	if (!w->message || !w->excerpt)
		goto done;
	ov->n_warnings++;
	rc = 0;
done:
	buf_reset(&msg);
	return rc;
}

int matcher_overrides_parse(const char *text, size_t n, struct matcher_overrides **out)
{
	struct matcher_overrides *ov = calloc(1, sizeof(*ov));
	struct matcher_strmap by_a;
	size_t cap_items = 0, cap_warnings = 0, pos = 0;
	unsigned long line = 0;
	int rc = -1;

	matcher_strmap_init(&by_a);
	*out = NULL;
	if (!ov)
		goto done;
	arena_init(&ov->arena);
	if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	while (pos < n) {
		const char *p = text + pos, *nl = memchr(p, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - p) : n - pos;
		const char *comma, *ka, *kb;
		size_t la, lb;
		struct matcher_strmap_slot *slot;
		int inserted;

		pos += len + 1;
		line++;
		trim(&p, &len);
		if (len == 0 || p[0] == '#')
			continue;
		comma = memchr(p, ',', len);
		if (!comma) {
			if (add_no_comma_warning(ov, &cap_warnings, line, p, len) < 0)
				goto done;
			continue;
		}
		ka = p;
		la = (size_t)(comma - p);
		kb = comma + 1;
		lb = len - la - 1;
		trim(&ka, &la);
		trim(&kb, &lb);
		slot = matcher_strmap_get(&by_a, ka, la);
		if (slot) {
			/* the later line wins */
			struct matcher_override *it = &ov->items[slot->value];

			it->b_key = arena_strndup(&ov->arena, kb, lb);
			it->line = line;
			if (!it->b_key)
				goto done;
			continue;
		}
		if (ov->n_items == cap_items) {
			size_t ncap = cap_items ? 2 * cap_items : 16;
			struct matcher_override *ni = realloc(ov->items, ncap * sizeof(*ni));

			if (!ni)
				goto done;
			ov->items = ni;
			cap_items = ncap;
		}
		ov->items[ov->n_items].a_key = arena_strndup(&ov->arena, ka, la);
		ov->items[ov->n_items].b_key = arena_strndup(&ov->arena, kb, lb);
		ov->items[ov->n_items].line = line;
		if (!ov->items[ov->n_items].a_key || !ov->items[ov->n_items].b_key)
			goto done;
		/* the map borrows the arena copy, which lives as long as ov */
		if (!matcher_strmap_upsert(&by_a, ov->items[ov->n_items].a_key, la, ov->n_items,
		                           &inserted))
			goto done;
		ov->n_items++;
	}
	*out = ov;
	ov = NULL;
	rc = 0;
done:
	matcher_strmap_reset(&by_a);
	matcher_overrides_free(ov);
	return rc;
}

/* ---- the passes -------------------------------------------------------- */

#define NO_IDX MATCHER_REC_NONE

/* Scratch buffers a pass key is derived into. */
struct keybufs {
	struct buf key, tmp, tmp2, field;
	char id[8]; /* an exact-pass key: its two part ids (see exact_keys) */
};

/* A slot of the group table: a pass key's hash and its group + 1 (0: an
 * empty slot). */
struct gslot {
	uint32_t hash_hi; /* the key hash's upper half (the lower picks the slot) */
	uint32_t group1;
};

enum pass { PASS_RAW = 0, PASS_EXACT, PASS_FUZZY, PASS_STATS };

struct ctx {
	const struct matcher_actlog *a, *b;
	uint32_t *a_pair;         /* [na] B index or NO_IDX */
	unsigned char *a_method;  /* [na] enum matcher_method */
	unsigned char *b_claimed; /* [nb] */
	uint32_t *next;           /* [nb] queue links */
	uint32_t *head, *tail;    /* [nb] per group */
	uint32_t *rep;            /* [nb] per group: a B entry with the group's key */
	struct gslot *slots;      /* the group table, by key hash */
	size_t cap;               /* its size (a power of two), 0 before any pass */
	enum pass pass;           /* the pass the table holds */
	struct keybufs kb[2];     /* [0] the key looked up, [1] a group's key */
	uint64_t *xkey[2];        /* [na], [nb]: exact-pass keys during that pass */
};

/* The key of entry i of side `side` (0 A, 1 B) under pass `pass`
 * (PASS_RAW: the key as is; PASS_EXACT: the 8 bytes of its part ids), into
 * *k and *len, pointing into kb (valid until its next use).  0 or -1 on
 * OOM. */
static int pass_key(const struct ctx *c, struct keybufs *kb, enum pass pass, int side, size_t i,
                    const char **k, size_t *len)
{
	const struct matcher_actlog *log = side ? c->b : c->a;
	size_t n;
	const char *shape, *hash;
	int rc;

	if (pass == PASS_EXACT) { /* run_pass made the keys first (exact_begin) */
		memcpy(kb->id, &c->xkey[side][i], sizeof kb->id);
		*k = kb->id;
		*len = sizeof kb->id;
		return 0;
	}
	buf_clear(&kb->key);
	if (matcher_actlog_key(log, i, &kb->key) < 0 || buf_reserve(&kb->key, 0) < 0)
		return -1;
	n = kb->key.len;
	switch (pass) {
	case PASS_EXACT: /* not reached: returned above */
	case PASS_RAW:
		*k = kb->key.data;
		*len = n;
		return 0;
	case PASS_FUZZY:
		if (matcher_key_fuzzy(kb->key.data, n, &kb->tmp) < 0)
			return -1;
		break;
	case PASS_STATS:
		/* (op type, Shape, Output hash), length-prefixed so that no
		 * choice of texts can make two different triples collide */
		if (matcher_key_op_type(kb->key.data, n, &kb->tmp2) < 0)
			return -1;
		buf_clear(&kb->field);
		rc = matcher_actlog_field(log, i, MATCHER_STAT_SHAPE, &kb->field);
		if (rc < 0 || buf_add(&kb->field, "", 1) < 0)
			return -1;
		size_t shape_len = kb->field.len - 1;

		/* the output hash, or the L1 norm for legacy entries */
		rc = matcher_actlog_field(log, i, MATCHER_REC_OUTHASH, &kb->field);
		if (rc == 1)
			rc = matcher_actlog_field(log, i, MATCHER_STAT_L1, &kb->field);
		if (rc < 0 || buf_reserve(&kb->field, 0) < 0)
			return -1;
		shape = kb->field.data;
		hash = kb->field.data + shape_len + 1;
		buf_clear(&kb->tmp);
		if (buf_put_uint(&kb->tmp, kb->tmp2.len) < 0 || buf_putc(&kb->tmp, ':') < 0 ||
		    buf_append(&kb->tmp, kb->tmp2.data ? kb->tmp2.data : "", kb->tmp2.len) < 0 ||
		    buf_put_uint(&kb->tmp, shape_len) < 0 || buf_putc(&kb->tmp, ':') < 0 ||
		    buf_append(&kb->tmp, shape, shape_len) < 0 ||
		    buf_append(&kb->tmp, hash, kb->field.len - shape_len - 1) < 0)
			return -1;
		break;
	}
	if (buf_reserve(&kb->tmp, 0) < 0)
		return -1;
	*k = kb->tmp.data;
	*len = kb->tmp.len;
	return 0;
}

/* The slot of key k (hash h) in the group table: its group's, or the empty
 * slot where it would go.  Equal hashes are confirmed by comparing k with
 * the group's key, derived again from its representative B entry (so the
 * table holds no key text: 8 bytes a slot, not a copy of every B key).
 * NULL on OOM. */
static struct gslot *find_slot(struct ctx *c, const char *k, size_t len, uint64_t h)
{
	size_t j = (size_t)h & (c->cap - 1);

	for (;; j = (j + 1) & (c->cap - 1)) {
		struct gslot *s = &c->slots[j];
		const char *gk;
		size_t glen;

		if (!s->group1)
			return s;
		if (s->hash_hi != (uint32_t)(h >> 32))
			continue;
		if (pass_key(c, &c->kb[1], c->pass, 1, c->rep[s->group1 - 1], &gk, &glen) < 0)
			return NULL;
		if (glen == len && memcmp(gk, k, len) == 0)
			return s;
	}
}

/* Add B entry j to the queue of its key k (hash h). */
static int enqueue(struct ctx *c, const char *k, size_t len, uint64_t h, size_t j, size_t *n_groups)
{
	struct gslot *s = find_slot(c, k, len, h);
	uint32_t g;

	if (!s)
		return -1;
	c->next[j] = NO_IDX;
	if (!s->group1) {
		g = (uint32_t)(*n_groups)++;
		s->hash_hi = (uint32_t)(h >> 32);
		s->group1 = g + 1;
		c->rep[g] = c->head[g] = c->tail[g] = (uint32_t)j;
	} else if (c->head[g = s->group1 - 1] == NO_IDX) {
		c->head[g] = c->tail[g] = (uint32_t)j;
	} else {
		c->next[c->tail[g]] = (uint32_t)j;
		c->tail[g] = (uint32_t)j;
	}
	return 0;
}

/* The group of key k, or NO_IDX when no B entry has it; -1 on OOM. */
static int group_of(struct ctx *c, const char *k, size_t len, uint32_t *g)
{
	struct gslot *s;

	*g = NO_IDX;
	if (!c->cap)
		return 0;
	if (!(s = find_slot(c, k, len, matcher_strmap_hash(k, len))))
		return -1;
	if (s->group1)
		*g = s->group1 - 1;
	return 0;
}

/* Pop the first unclaimed B entry of key k into *j (NO_IDX: none). */
static int dequeue(struct ctx *c, const char *k, size_t len, uint32_t *j)
{
	uint32_t g;

	*j = NO_IDX;
	if (group_of(c, k, len, &g) < 0)
		return -1;
	if (g == NO_IDX || c->head[g] == NO_IDX)
		return 0;
	*j = c->head[g];
	c->head[g] = c->next[*j];
	return 0;
}

static void pair(struct ctx *c, size_t i, uint32_t j, enum matcher_method m)
{
	c->a_pair[i] = j;
	c->a_method[i] = (unsigned char)m;
	c->b_claimed[j] = 1;
}

/* Queue every unclaimed B entry (every B entry for PASS_RAW) under its
 * pass key.  *n_groups set.  0 or -1 on OOM. */
static int queue_b(struct ctx *c, enum pass pass, size_t *n_groups)
{
	size_t nb = c->b->n_entries, j;

	*n_groups = 0;
	c->pass = pass;
	if (!c->cap) { /* sized once, at most 3/4 full: nb groups at most */
		size_t cap = 16;

		while (3 * cap < 4 * nb)
			cap *= 2;
		if (!(c->slots = matcher_zalloc(cap, sizeof(*c->slots))))
			return -1;
		c->cap = cap;
	} else {
		memset(c->slots, 0, c->cap * sizeof(*c->slots));
	}
	for (j = 0; j < nb; j++) {
		const char *k;
		size_t len;

		if (pass != PASS_RAW && c->b_claimed[j])
			continue;
		if (pass_key(c, &c->kb[0], pass, 1, j, &k, &len) < 0 ||
		    enqueue(c, k, len, matcher_strmap_hash(k, len), j, n_groups) < 0)
			return -1;
	}
	return 0;
}

/* ---- the exact pass on ids ----------------------------------------------
 * A key is pre + op, split after its last '/' (actlog.h), so pre is "" or
 * ends in '/' and op holds no '/'.  The exact pass's key, the key without
 * its root class, is strip(pre) + op when pre is not empty (the root ends
 * at a '.' before the first '/', inside pre), else strip(op); and two such
 * keys are equal exactly when both parts are.  So each part's text gets
 * one id shared by both logs (a map over the distinct texts: each hashed
 * once per log, not once per entry), and the pass groups entries by the
 * pair: no key text per entry, and equal pairs are equal keys. */
struct part_ids {
	struct matcher_idset set; /* text -> id, over str/len */
	const char **str;         /* [n]: a part's text, in a log's string table */
	uint32_t *len;
	size_t n, cap;
};

static int part_id(struct part_ids *u, const char *s, size_t n, uint32_t *out)
{
	uint64_t h = matcher_strmap_hash(s, n);
	int64_t got = matcher_idset_get(&u->set, h, s, n, u->str, u->len);

	if (got >= 0) {
		*out = (uint32_t)got;
		return 0;
	}
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 1024;
		const char **str = realloc(u->str, cap * sizeof(*str));

		if (str)
			u->str = str;
		uint32_t *len = str ? realloc(u->len, cap * sizeof(*len)) : NULL;

		if (!len)
			return -1;
		u->len = len;
		u->cap = cap;
	}
	if (u->n >= NO_IDX || matcher_idset_add(&u->set, h, (uint32_t)u->n) < 0)
		return -1;
	u->str[u->n] = s;
	u->len[u->n] = (uint32_t)n;
	*out = (uint32_t)u->n++;
	return 0;
}

/* The id of interned text id t of log, root-stripped when strip; cached in
 * cache[t] (NO_IDX: not yet). */
static int cached_part(struct part_ids *u, const struct matcher_actlog *log, uint32_t t, int strip,
                       uint32_t *cache)
{
	const char *s = log->strs.str[t];
	size_t n = log->strs.len[t], root = strip ? matcher_key_root_len(s, n) : 0;

	if (cache[t] == NO_IDX && part_id(u, s + root, n - root, &cache[t]) < 0)
		return -1;
	return 0;
}

/* The exact-pass keys of every entry of log into keys[]. */
static int exact_keys(struct part_ids *u, const struct matcher_actlog *log, uint64_t *keys)
{
	size_t ns = log->strs.n ? log->strs.n : 1;
	uint32_t *pre = malloc(ns * sizeof(*pre)), *op = malloc(ns * sizeof(*op)),
	         *op_stripped = malloc(ns * sizeof(*op_stripped)), none;
	int rc = -1;

	if (!pre || !op || !op_stripped || part_id(u, "", 0, &none) < 0)
		goto done;
	memset(pre, 0xFF, ns * sizeof(*pre));
	memset(op, 0xFF, ns * sizeof(*op));
	memset(op_stripped, 0xFF, ns * sizeof(*op_stripped));
	for (size_t i = 0; i < log->n_entries; i++) {
		const struct matcher_rec *r = &log->recs[i];

		if (log->strs.len[r->key_pre]) {
			if (cached_part(u, log, r->key_pre, 1, pre) < 0 ||
			    cached_part(u, log, r->key_op, 0, op) < 0)
				goto done;
			keys[i] = (uint64_t)pre[r->key_pre] << 32 | op[r->key_op];
		} else {
			if (cached_part(u, log, r->key_op, 1, op_stripped) < 0)
				goto done;
			keys[i] = (uint64_t)none << 32 | op_stripped[r->key_op];
		}
	}
	rc = 0;
done:
	free(pre);
	free(op);
	free(op_stripped);
	return rc;
}

/* Both sides' exact-pass keys into c->xkey (freed after the pass). */
static int exact_begin(struct ctx *c)
{
	struct part_ids u = {{NULL, 0, 0}, NULL, NULL, 0, 0};
	int rc = -1;

	c->xkey[0] = malloc((c->a->n_entries ? c->a->n_entries : 1) * sizeof(uint64_t));
	c->xkey[1] = malloc((c->b->n_entries ? c->b->n_entries : 1) * sizeof(uint64_t));
	if (c->xkey[0] && c->xkey[1] && exact_keys(&u, c->a, c->xkey[0]) == 0 &&
	    exact_keys(&u, c->b, c->xkey[1]) == 0)
		rc = 0;
	matcher_idset_reset(&u.set);
	free(u.str);
	free(u.len);
	return rc;
}

static void exact_end(struct ctx *c)
{
	free(c->xkey[0]);
	free(c->xkey[1]);
	c->xkey[0] = c->xkey[1] = NULL;
}

static int run_queues(struct ctx *c, enum pass pass, enum matcher_method method)
{
	size_t i, n_groups;

	if (queue_b(c, pass, &n_groups) < 0)
		return -1;
	if (n_groups == 0)
		return 0;
	for (i = 0; i < c->a->n_entries; i++) {
		const char *k;
		size_t len;
		uint32_t j;

		if (c->a_pair[i] != NO_IDX)
			continue;
		if (pass_key(c, &c->kb[0], pass, 0, i, &k, &len) < 0 || dequeue(c, k, len, &j) < 0)
			return -1;
		if (j != NO_IDX)
			pair(c, i, j, method);
	}
	return 0;
}

static int run_pass(struct ctx *c, enum pass pass, enum matcher_method method)
{
	int rc;

	if (pass == PASS_EXACT && exact_begin(c) < 0) {
		exact_end(c);
		return -1;
	}
	rc = run_queues(c, pass, method);
	exact_end(c);
	return rc;
}

/* Pass 0.  Also records which overrides paired something and, for the
 * others, why not. */
static int run_overrides(struct ctx *c, const struct matcher_overrides *ov,
                         struct matcher_match_result *r)
{
	struct matcher_strmap by_a;
	unsigned char *used = NULL, *a_seen = NULL;
	size_t i, k, n_groups = 0;
	uint32_t j, g;
	int rc = -1;

	matcher_strmap_init(&by_a);
	if (!ov || ov->n_items == 0)
		return 0;
	used = calloc(ov->n_items, 1);
	a_seen = calloc(ov->n_items, 1);
	r->unused = calloc(ov->n_items, sizeof(*r->unused));
	if (!used || !a_seen || !r->unused)
		goto done;
	for (k = 0; k < ov->n_items; k++) {
		if (!matcher_strmap_upsert(&by_a, ov->items[k].a_key, strlen(ov->items[k].a_key), k,
		                           NULL))
			goto done;
	}
	if (queue_b(c, PASS_RAW, &n_groups) < 0)
		goto done;
	for (i = 0; i < c->a->n_entries; i++) {
		const char *key, *target;
		size_t len;
		struct matcher_strmap_slot *s;

		if (pass_key(c, &c->kb[0], PASS_RAW, 0, i, &key, &len) < 0)
			goto done;
		s = matcher_strmap_get(&by_a, key, len);

		if (!s)
			continue;
		k = s->value;
		a_seen[k] = 1;
		target = ov->items[k].b_key;
		if (dequeue(c, target, strlen(target), &j) < 0)
			goto done;
		if (j == NO_IDX)
			continue;
		pair(c, i, j, MATCHER_METHOD_OVERRIDE);
		used[k] = 1;
	}
	for (k = 0; k < ov->n_items; k++) {
		struct matcher_unused_override *u;
		const char *target = ov->items[k].b_key;

		if (used[k]) {
			r->n_overrides_used++;
			continue;
		}
		u = &r->unused[r->n_unused++];
		u->a_key = ov->items[k].a_key;
		u->b_key = target;
		u->line = ov->items[k].line;
		if (group_of(c, target, strlen(target), &g) < 0)
			goto done;
		if (!a_seen[k])
			u->reason = "a_key_not_found";
		else if (g == NO_IDX)
			u->reason = "b_key_not_found";
		else
			u->reason = "b_key_already_paired";
	}
	rc = 0;
done:
	free(used);
	free(a_seen);
	matcher_strmap_reset(&by_a);
	return rc;
}

static void summarise(struct matcher_match_result *r)
{
	struct matcher_match_summary *s = &r->summary;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n_rows = r->n_rows;
	s->first_divergence[0] = s->first_divergence[1] = MATCHER_NO_ROW;
	s->max_hash_distance = -1.0;
	s->max_hash_row = MATCHER_NO_ROW;
	for (i = 0; i < r->n_rows; i++) {
		const struct matcher_row_rec *row = &r->recs[i];
		int ph = row->phase == MATCHER_BACKWARD;
		double d = fmax(row->output_hash_distance, row->input_hash_distance);

		s->n_status[row->status]++;
		s->n_phase_status[ph][row->status]++;
		if (row->method < MATCHER_N_METHODS)
			s->n_method[row->method]++;
		if (row->status == MATCHER_DIFF) {
			if (row->origin)
				s->n_origin++;
			else
				s->n_propagated++;
			if (s->first_divergence[ph] == MATCHER_NO_ROW)
				s->first_divergence[ph] = i;
		}
		if (row->a != NO_IDX && row->b != NO_IDX && d >= 0 && d > s->max_hash_distance) {
			s->max_hash_distance = d;
			s->max_hash_row = i;
		}
	}
}

void matcher_match_result_free(struct matcher_match_result *r)
{
	if (!r)
		return;
	free(r->recs);
	free(r->unused);
	free(r);
}

/* The compact form of a row. */
static void keep_row(struct matcher_row_rec *q, const struct matcher_row *row, uint32_t a,
                     uint32_t b)
{
	q->a = a;
	q->b = b;
	q->status = (unsigned char)row->status;
	q->method = (unsigned char)row->method;
	q->phase = (unsigned char)row->phase;
	q->origin = (unsigned char)row->origin;
	q->shape_differs = (unsigned char)row->shape_differs;
	q->output_hash_distance = row->output_hash_distance;
	q->input_hash_distance = row->input_hash_distance;
}

/* The texts a paired row's comparison reads: Shape, the output hash
 * (field OUTHASH, or L1 for a legacy entry: matcher_entry_output_hash)
 * and the input hashes, of both sides. */
struct cmp_texts {
	struct buf t[2][3];
};

/* The text of field f of entry i into b (NULL when absent), NUL-terminated.
 * 0 or -1 on OOM. */
static int field_text(const struct matcher_actlog *log, size_t i, int f, struct buf *b,
                      const char **out)
{
	int rc;

	buf_clear(b);
	rc = matcher_actlog_field(log, i, f, b);
	if (rc < 0 || (rc == 0 && buf_add(b, "", 1) < 0))
		return -1;
	*out = rc == 1 ? NULL : b->data ? b->data : "";
	return 0;
}

/* The output-hash field of entry i: Output hash, or L1 for legacy entries. */
static int outhash_field(const struct matcher_actlog *log, size_t i)
{
	return log->recs[i].field[MATCHER_REC_OUTHASH] != MATCHER_REC_NONE ? MATCHER_REC_OUTHASH
	                                                                   : MATCHER_STAT_L1;
}

/* Distance of field fa of A entry i to field fb of B entry j, as
 * matcher_hash_distance gives it on their texts; equal non-empty texts
 * (most paired rows) are known to be 0 without re-deriving them. */
static int field_distance(struct ctx *c, struct cmp_texts *t, int k, size_t i, int fa, size_t j,
                          int fb, double *out)
{
	const char *ta, *tb;

	if (fa == fb && matcher_actlog_same_field(c->a, i, c->b, j, fa)) {
		*out = 0.0;
		return 0;
	}
	if (field_text(c->a, i, fa, &t->t[0][k], &ta) < 0 ||
	    field_text(c->b, j, fb, &t->t[1][k], &tb) < 0)
		return -1;
	*out = matcher_hash_distance(ta, tb);
	return 0;
}

/* matcher_row_compare on the records: the same shape flag, distances,
 * status and origin (the stat differences are not kept in a row). */
static int compare_recs(struct ctx *c, struct cmp_texts *t, size_t i, size_t j,
                        struct matcher_row *row)
{
	const char *sa, *sb;

	if (matcher_actlog_same_field(c->a, i, c->b, j, MATCHER_STAT_SHAPE)) {
		row->shape_differs = 0;
	} else {
		if (field_text(c->a, i, MATCHER_STAT_SHAPE, &t->t[0][0], &sa) < 0 ||
		    field_text(c->b, j, MATCHER_STAT_SHAPE, &t->t[1][0], &sb) < 0)
			return -1;
		row->shape_differs = strcmp(or_empty(sa), or_empty(sb)) != 0;
	}
	if (field_distance(c, t, 1, i, outhash_field(c->a, i), j, outhash_field(c->b, j),
	                   &row->output_hash_distance) < 0 ||
	    field_distance(c, t, 2, i, MATCHER_REC_INHASH, j, MATCHER_REC_INHASH,
	                   &row->input_hash_distance) < 0)
		return -1;
	row_status(row);
	return 0;
}

/* Rows in row order: A's file order, then never-claimed B entries. */
static int build_rows(struct ctx *c, struct matcher_match_result *r)
{
	const struct matcher_actlog *a = c->a, *b = c->b;
	struct cmp_texts t;
	struct matcher_row row;
	size_t i, j, n = 0;
	int rc = -1;

	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++)
			buf_init(&t.t[s][k]);
	for (i = 0; i < a->n_entries; i++) {
		row_only(&row, NULL, NULL);
		row.phase = matcher_actlog_phase(a, i);
		if (c->a_pair[i] == NO_IDX) {
			row.status = MATCHER_A_ONLY;
		} else {
			row.method = (enum matcher_method)c->a_method[i];
			if (compare_recs(c, &t, i, c->a_pair[i], &row) < 0)
				goto done;
		}
		keep_row(&r->recs[n++], &row, (uint32_t)i, c->a_pair[i]);
	}
	for (j = 0; j < b->n_entries; j++) {
		if (c->b_claimed[j])
			continue;
		struct matcher_row_rec *q = &r->recs[n++];

		memset(q, 0, sizeof(*q));
		q->a = NO_IDX;
		q->b = (uint32_t)j;
		q->status = MATCHER_B_ONLY;
		q->method = MATCHER_METHOD_NONE;
		q->phase = (unsigned char)matcher_actlog_phase(b, j);
		q->output_hash_distance = q->input_hash_distance = -1.0;
	}
	r->n_rows = n;
	rc = 0;
done:
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++)
			buf_reset(&t.t[s][k]);
	return rc;
}

int matcher_match(const struct matcher_actlog *a, const struct matcher_actlog *b,
                  const struct matcher_overrides *ov, struct matcher_match_result **out)
{
	struct ctx c;
	struct matcher_match_result *r = calloc(1, sizeof(*r));
	size_t na = a->n_entries, nb = b->n_entries, i;
	int rc = -1;

	memset(&c, 0, sizeof(c));
	c.a = a;
	c.b = b;
	for (int k = 0; k < 2; k++) {
		buf_init(&c.kb[k].key);
		buf_init(&c.kb[k].tmp);
		buf_init(&c.kb[k].tmp2);
		buf_init(&c.kb[k].field);
	}
	*out = NULL;
	if (!r || na >= NO_IDX || nb >= NO_IDX)
		goto done;
	r->log_a = a;
	r->log_b = b;
	c.a_pair = malloc((na ? na : 1) * sizeof(*c.a_pair));
	c.a_method = malloc(na ? na : 1);
	c.b_claimed = calloc(nb ? nb : 1, 1);
	c.next = malloc((nb ? nb : 1) * sizeof(*c.next));
	c.head = malloc((nb ? nb : 1) * sizeof(*c.head));
	c.tail = malloc((nb ? nb : 1) * sizeof(*c.tail));
	c.rep = malloc((nb ? nb : 1) * sizeof(*c.rep));
	if (!c.a_pair || !c.a_method || !c.b_claimed || !c.next || !c.head || !c.tail || !c.rep)
		goto done;
	for (i = 0; i < na; i++) {
		c.a_pair[i] = NO_IDX;
		c.a_method[i] = MATCHER_METHOD_NONE;
	}
	if (run_overrides(&c, ov, r) < 0 || run_pass(&c, PASS_EXACT, MATCHER_METHOD_EXACT) < 0 ||
	    run_pass(&c, PASS_FUZZY, MATCHER_METHOD_FUZZY) < 0 ||
	    run_pass(&c, PASS_STATS, MATCHER_METHOD_STATS) < 0)
		goto done;
	/* the pass structures go before the rows come */
	free(c.slots);
	free(c.next);
	free(c.head);
	free(c.tail);
	free(c.rep);
	c.slots = NULL;
	c.next = c.head = c.tail = c.rep = NULL;
	r->recs = malloc((na + nb ? na + nb : 1) * sizeof(*r->recs));
	if (!r->recs || build_rows(&c, r) < 0)
		goto done;
	summarise(r);
	*out = r;
	r = NULL;
	rc = 0;
done:
	free(c.a_pair);
	free(c.a_method);
	free(c.b_claimed);
	free(c.slots);
	free(c.next);
	free(c.head);
	free(c.tail);
	free(c.rep);
	for (int k = 0; k < 2; k++) {
		buf_reset(&c.kb[k].key);
		buf_reset(&c.kb[k].tmp);
		buf_reset(&c.kb[k].tmp2);
		buf_reset(&c.kb[k].field);
	}
	matcher_match_result_free(r);
	return rc;
}
