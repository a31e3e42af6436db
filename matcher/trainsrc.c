/* trainsrc.c - one push parser over the training sources (see
 * trainsrc.h): a table of the sources' parsers, one row per source, and a
 * handle that forwards every call to its row.  A new source is a parser
 * module with the lossfile.h shape (new/feed/finish/error/free/detect) and
 * one SOURCE_ROW line below. */
#include "trainsrc.h"

#include <stdlib.h>
#include <string.h>

#include "lossfile.h"
#include "nvinspect.h"
#include "megatron.h"
#include "mllog.h"
#include "tfevents.h"

/* One source's parser behind untyped handles. */
struct source_ops {
	const char *name; /* logs.source, the API's and the pages' name */
	int (*detect)(const char *data, size_t n);
	void *(*create)(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line);
	int (*feed)(void *p, const char *data, size_t n);
	int (*finish)(void *p, struct matcher_trainlog_summary *out);
	const struct matcher_error *(*error)(const void *p);
	size_t (*meta)(const void *p, size_t i, const char **key, const char **value);
	void (*destroy)(void *p);
};

/* Typed wrappers around a parser module named matcher_<name>_*: the table
 * calls these, never a function through a cast pointer.  SOURCE_IO: feed,
 * error and free; SOURCE_WRAP adds create and finish of the lossfile.h
 * shape (rank and line limit; a struct matcher_trainlog_summary). */
#define SOURCE_IO(NAME)                                                                            \
	static int NAME##_feed(void *p, const char *data, size_t n)                                \
	{                                                                                          \
		return matcher_##NAME##_feed(p, data, n);                                          \
	}                                                                                          \
	static const struct matcher_error *NAME##_error(const void *p)                             \
	{                                                                                          \
		return matcher_##NAME##_error(p);                                                  \
	}                                                                                          \
	static void NAME##_destroy(void *p)                                                        \
	{                                                                                          \
		matcher_##NAME##_parser_free(p);                                                   \
	}
#define SOURCE_WRAP(NAME)                                                                          \
	SOURCE_IO(NAME)                                                                            \
	static void *NAME##_create(const struct matcher_trainlog_callbacks *cb, int rank,          \
	                           size_t max_line)                                                \
	{                                                                                          \
		return matcher_##NAME##_parser_new(cb, rank, max_line);                            \
	}                                                                                          \
	static int NAME##_finish(void *p, struct matcher_trainlog_summary *out)                    \
	{                                                                                          \
		return matcher_##NAME##_finish(p, out);                                            \
	}

/* The header meta of a parser module NAME (lossfile.h's
 * matcher_lossfile_meta shape). */
#define SOURCE_META(NAME)                                                                          \
	static size_t NAME##_meta(const void *p, size_t i, const char **key, const char **value)   \
	{                                                                                          \
		return matcher_##NAME##_meta(p, i, key, value);                                    \
	}

/* stdout logs (trainlog.h): the parser carries the ranks itself; it takes
 * whatever no other source claims. */
SOURCE_IO(trainlog)
static void *trainlog_create(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line)
{
	(void)rank;
	return matcher_trainlog_parser_new(cb, max_line);
}
static int trainlog_finish(void *p, struct matcher_trainlog_summary *out)
{
	return matcher_trainlog_finish(p, out);
}

/* TensorBoard event files: their own summary, and their record limit
 * instead of a line limit. */
SOURCE_IO(tfevents)
static int tfevents_detect(const char *data, size_t n)
{
	return matcher_tfevents_detect(data, n);
}
static void *tfevents_create(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line)
{
	(void)max_line;
	return matcher_tfevents_parser_new(cb, rank, 0);
}
static int tfevents_finish(void *p, struct matcher_trainlog_summary *out)
{
	struct matcher_tfevents_summary es;
	if (matcher_tfevents_finish(p, &es) < 0)
		return -1;
	if (out) {
		memset(out, 0, sizeof *out);
		out->n_steps = es.n_steps;
		out->n_lines = (unsigned long)es.n_records;
		out->n_warnings = es.n_warnings;
		out->n_ranks = 1;
	}
	return 0;
}

/* Golden loss files: the one source with header meta so far. */
SOURCE_WRAP(lossfile)
SOURCE_META(lossfile)

/* DL Framework Inspect statistics logs (nvinspect.h): one record per
 * iteration, every series a metric. */
SOURCE_WRAP(nvinspect)
/* Megatron-LM golden values (megatron.h): buffered JSON, top-level
 * scalars as meta. */
SOURCE_WRAP(megatron)
SOURCE_META(megatron)

/* MLPerf MLLOG files: their submission and config keys are the meta. */
SOURCE_WRAP(mllog)
SOURCE_META(mllog)

/* Indexed by enum matcher_source.  Detection tries the rows in
 * DETECT_ORDER; stdout (which takes anything) last. */
static const struct source_ops SOURCES[] = {
        [MATCHER_SOURCE_STDOUT] = {"stdout", NULL, trainlog_create, trainlog_feed, trainlog_finish,
                                   trainlog_error, NULL, trainlog_destroy},
        [MATCHER_SOURCE_TFEVENTS] = {"tfevents", tfevents_detect, tfevents_create, tfevents_feed,
                                     tfevents_finish, tfevents_error, NULL, tfevents_destroy},
        [MATCHER_SOURCE_LOSSFILE] = {"lossfile", matcher_lossfile_detect, lossfile_create,
                                     lossfile_feed, lossfile_finish, lossfile_error, lossfile_meta,
                                     lossfile_destroy},
        [MATCHER_SOURCE_NVDLFW_INSPECT] = {"nvdlfw_inspect", matcher_nvinspect_detect,
                                           nvinspect_create, nvinspect_feed, nvinspect_finish,
                                           nvinspect_error, NULL, nvinspect_destroy},
        [MATCHER_SOURCE_MEGATRON] = {"megatron", matcher_megatron_detect, megatron_create,
                                     megatron_feed, megatron_finish, megatron_error, megatron_meta,
                                     megatron_destroy},
        [MATCHER_SOURCE_MLLOG] = {"mllog", matcher_mllog_detect, mllog_create, mllog_feed,
                                  mllog_finish, mllog_error, mllog_meta, mllog_destroy},
};
#define N_SOURCES (sizeof SOURCES / sizeof SOURCES[0])

static const enum matcher_source DETECT_ORDER[] = {
        MATCHER_SOURCE_TFEVENTS,       MATCHER_SOURCE_MEGATRON, MATCHER_SOURCE_LOSSFILE,
        MATCHER_SOURCE_NVDLFW_INSPECT, MATCHER_SOURCE_MLLOG,
};

struct matcher_trainsrc {
	enum matcher_source src;
	const struct source_ops *ops;
	void *p;
};

static const struct source_ops *ops_of(enum matcher_source s)
{
	return (unsigned)s < N_SOURCES && SOURCES[s].name ? &SOURCES[s] : NULL;
}

enum matcher_source matcher_detect_source(const char *data, size_t n)
{
	for (size_t i = 0; i < sizeof DETECT_ORDER / sizeof DETECT_ORDER[0]; i++) {
		const struct source_ops *o = ops_of(DETECT_ORDER[i]);
		if (o && o->detect && o->detect(data, n))
			return DETECT_ORDER[i];
	}
	return MATCHER_SOURCE_STDOUT;
}

/* The activation sources (logs.source of an activation log other than a
 * numerics tracer log): names only, no training parser. */
static const struct {
	enum matcher_source src;
	const char *name;
} ACT_SOURCES[] = {
        {MATCHER_SOURCE_MSPROBE, "msprobe"},
};
#define N_ACT_SOURCES (sizeof ACT_SOURCES / sizeof ACT_SOURCES[0])

const char *matcher_source_name(enum matcher_source s)
{
	const struct source_ops *o = ops_of(s);
	for (size_t i = 0; !o && i < N_ACT_SOURCES; i++)
		if (ACT_SOURCES[i].src == s)
			return ACT_SOURCES[i].name;
	return o ? o->name : SOURCES[MATCHER_SOURCE_STDOUT].name;
}

int matcher_source_from_name(const char *name, enum matcher_source *out)
{
	for (size_t i = 0; name && i < N_SOURCES; i++)
		if (SOURCES[i].name && !strcmp(name, SOURCES[i].name)) {
			*out = (enum matcher_source)i;
			return 0;
		}
	for (size_t i = 0; name && i < N_ACT_SOURCES; i++)
		if (!strcmp(name, ACT_SOURCES[i].name)) {
			*out = ACT_SOURCES[i].src;
			return 0;
		}
	return -1;
}

const char *matcher_precision_name(int prec)
{
	switch (prec) {
	case MATCHER_PREC_DECIMAL: return "decimal";
	case MATCHER_PREC_FLOAT32: return "float32";
	case MATCHER_PREC_FLOAT64: return "float64";
	default: return "printed";
	}
}

struct matcher_trainsrc *matcher_trainsrc_new(enum matcher_source src,
                                              const struct matcher_trainlog_callbacks *cb, int rank,
                                              size_t max_line)
{
	const struct source_ops *o = ops_of(src);
	struct matcher_trainsrc *s = o ? calloc(1, sizeof *s) : NULL;
	if (!s)
		return NULL;
	s->src = src;
	s->ops = o;
	if (!(s->p = o->create(cb, rank, max_line))) {
		free(s);
		return NULL;
	}
	return s;
}

int matcher_trainsrc_feed(struct matcher_trainsrc *s, const char *data, size_t n)
{
	return s->ops->feed(s->p, data, n);
}

int matcher_trainsrc_finish(struct matcher_trainsrc *s, struct matcher_trainlog_summary *out)
{
	return s->ops->finish(s->p, out);
}

const struct matcher_error *matcher_trainsrc_error(const struct matcher_trainsrc *s)
{
	return s->ops->error(s->p);
}

enum matcher_source matcher_trainsrc_source(const struct matcher_trainsrc *s)
{
	return s->src;
}

void matcher_trainsrc_free(struct matcher_trainsrc *s)
{
	if (!s)
		return;
	s->ops->destroy(s->p);
	free(s);
}

size_t matcher_trainsrc_meta(const struct matcher_trainsrc *s, size_t i, const char **key,
                             const char **value)
{
	return s && s->ops->meta ? s->ops->meta(s->p, i, key, value) : 0;
}
