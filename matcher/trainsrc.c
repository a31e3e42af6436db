/* trainsrc.c - one push parser over the three training sources (see
 * trainsrc.h): a tagged union that forwards every call. */
#include "trainsrc.h"

#include <stdlib.h>
#include <string.h>

#include "lossfile.h"
#include "tfevents.h"

struct matcher_trainsrc {
	enum matcher_source src;
	struct matcher_trainlog_parser *log;
	struct matcher_tfevents_parser *ev;
	struct matcher_lossfile_parser *loss;
};

enum matcher_source matcher_detect_source(const char *data, size_t n)
{
	if (matcher_tfevents_detect(data, n))
		return MATCHER_SOURCE_TFEVENTS;
	if (matcher_lossfile_detect(data, n))
		return MATCHER_SOURCE_LOSSFILE;
	return MATCHER_SOURCE_STDOUT;
}

static const char *const SOURCE_NAMES[] = {"stdout", "tfevents", "lossfile"};

const char *matcher_source_name(enum matcher_source s)
{
	return (unsigned)s < 3 ? SOURCE_NAMES[s] : "stdout";
}

int matcher_source_from_name(const char *name, enum matcher_source *out)
{
	for (int i = 0; i < 3; i++)
		if (name && !strcmp(name, SOURCE_NAMES[i])) {
			*out = (enum matcher_source)i;
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
	struct matcher_trainsrc *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->src = src;
	if (src == MATCHER_SOURCE_TFEVENTS)
		s->ev = matcher_tfevents_parser_new(cb, rank, 0);
	else if (src == MATCHER_SOURCE_LOSSFILE)
		s->loss = matcher_lossfile_parser_new(cb, rank, max_line);
	else
		s->log = matcher_trainlog_parser_new(cb, max_line);
	if (!s->ev && !s->loss && !s->log) {
		free(s);
		return NULL;
	}
	return s;
}

int matcher_trainsrc_feed(struct matcher_trainsrc *s, const char *data, size_t n)
{
	if (s->ev)
		return matcher_tfevents_feed(s->ev, data, n);
	if (s->loss)
		return matcher_lossfile_feed(s->loss, data, n);
	return matcher_trainlog_feed(s->log, data, n);
}

int matcher_trainsrc_finish(struct matcher_trainsrc *s, struct matcher_trainlog_summary *out)
{
	if (s->ev) {
		struct matcher_tfevents_summary es;
		if (matcher_tfevents_finish(s->ev, &es) < 0)
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
	if (s->loss)
		return matcher_lossfile_finish(s->loss, out);
	return matcher_trainlog_finish(s->log, out);
}

const struct matcher_error *matcher_trainsrc_error(const struct matcher_trainsrc *s)
{
	if (s->ev)
		return matcher_tfevents_error(s->ev);
	if (s->loss)
		return matcher_lossfile_error(s->loss);
	return matcher_trainlog_error(s->log);
}

enum matcher_source matcher_trainsrc_source(const struct matcher_trainsrc *s)
{
	return s->src;
}

void matcher_trainsrc_free(struct matcher_trainsrc *s)
{
	if (!s)
		return;
	matcher_tfevents_parser_free(s->ev);
	matcher_lossfile_parser_free(s->loss);
	matcher_trainlog_parser_free(s->log);
	free(s);
}

size_t matcher_trainsrc_meta(const struct matcher_trainsrc *s, size_t i, const char **key,
                             const char **value)
{
	return s && s->loss ? matcher_lossfile_meta(s->loss, i, key, value) : 0;
}
