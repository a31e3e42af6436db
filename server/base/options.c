/* options.c - the option engine (options.h): one table per command drives
 * defaults, environment, argv, validation, --help and the Markdown
 * reference.  Room: base (libc and matcher/buf.h only).
 *
 * Error texts share one shape, "parity CMD: --name: reason" (or
 * "parity CMD: PARITY_VAR: reason" for a bad environment value), so a
 * user learns one wording; a value marked SRV_OPT_SECRET is never echoed. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HELP_COL   26 /* help text column in --help */
#define HELP_WIDTH 79

/* ---- values ------------------------------------------------------------- */

int srv_options_parse_bytes(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-' || isspace((unsigned char)s[0]))
		return -1;
	unsigned shift = 0;
	switch (toupper((unsigned char)*end)) {
	case 0: break;
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: return -1;
	}
	if (shift) {
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end || (v && (1ULL << shift) > UINT64_MAX / v))
		return -1;
	*out = v << shift;
	return 0;
}

/* Plain decimal integer (optionally signed). */
static int parse_ll(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || isspace((unsigned char)s[0]))
		return -1;
	*out = v;
	return 0;
}

/* "90", "90s", "1500ms", "5m", "2h", "1d" in the field's unit (ms or s);
 * a value that is not a whole number of that unit is refused. */
static int parse_duration(const char *s, int in_ms, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || errno || v < 0 || isspace((unsigned char)s[0]))
		return -1;
	long long ms_per;
	if (!*end)
		ms_per = in_ms ? 1 : 1000;
	else if (!strcmp(end, "ms"))
		ms_per = 1;
	else if (!strcmp(end, "s"))
		ms_per = 1000;
	else if (!strcmp(end, "m"))
		ms_per = 60000;
	else if (!strcmp(end, "h"))
		ms_per = 3600000;
	else if (!strcmp(end, "d"))
		ms_per = 86400000;
	else
		return -1;
	if (v > INT64_MAX / ms_per)
		return -1;
	long long ms = v * ms_per;
	if (!in_ms && ms % 1000)
		return -1;
	*out = in_ms ? ms : ms / 1000;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		*out = 1;
	else if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* A size as the user would write it: 2147483648 -> "2G". */
static void fmt_size(unsigned long long v, char *out, size_t n)
{
	static const char units[] = "TGMK";
	for (int i = 0; i < 4; i++) {
		unsigned shift = 40 - 10 * (unsigned)i;
		if (v && v % (1ULL << shift) == 0) {
			snprintf(out, n, "%llu%c", v >> shift, units[i]);
			return;
		}
	}
	snprintf(out, n, "%llu", v);
}

static void fmt_bound(const struct srv_option *o, long long v, char *out, size_t n)
{
	if (o->type == SRV_OPT_SIZE)
		fmt_size((unsigned long long)v, out, n);
	else
		snprintf(out, n, "%lld", v);
}

/* Store v into the integer field of o (4 or 8 bytes, signed or not: the
 * value is within the bounds, so the low bytes are the value). */
static void store_int(void *dst, const struct srv_option *o, long long v)
{
	char *f = (char *)dst + o->offset;
	if (o->size == 8) {
		uint64_t u = (uint64_t)v;
		memcpy(f, &u, 8);
	} else {
		uint32_t u = (uint32_t)v;
		memcpy(f, &u, 4);
	}
}

static int list_push(struct srv_optlist *l, const char *v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		const char **nv = realloc(l->v, cap * sizeof *nv);
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
	return 0;
}

/* An ENUM value must be one of the choices.  0, or -1 with the reason. */
static int check_choice(const struct srv_option *o, const char *val, const char *shown, char *why,
                        size_t n)
{
	for (const char *const *c = o->choices; c && *c; c++)
		if (!strcmp(*c, val))
			return 0;
	size_t k = (size_t)snprintf(why, n, "must be one of");
	for (const char *const *c = o->choices; c && *c && k < n; c++)
		k += (size_t)snprintf(why + k, n - k, "%s %s", c == o->choices ? "" : ",", *c);
	if (k < n)
		snprintf(why + k, n - k, " (got '%s')", shown);
	return -1;
}

/* Apply one value to o.  0, or -1 with the reason in why (without the
 * option's name). */
static int apply(const struct srv_option *o, void *dst, const char *val, char *why, size_t n)
{
	char *field = (char *)dst + o->offset;
	long long v = 0;
	char lo[32], hi[32];
	const char *shown = o->flags & SRV_OPT_SECRET ? "" : val;
	why[0] = 0;
	if (o->type == SRV_OPT_ENUM && check_choice(o, val, shown, why, n) < 0)
		return -1;
	switch (o->type) {
	case SRV_OPT_BOOL: {
		int b;
		if (parse_bool(val, &b) < 0) {
			snprintf(why, n, "takes 1/0, true/false or yes/no (got '%s')", shown);
			return -1;
		}
		memcpy(field, &b, sizeof b);
		break;
	}
	case SRV_OPT_INT:
	case SRV_OPT_SIZE:
	case SRV_OPT_DURATION: {
		int rc;
		unsigned long long u;
		const char *what;
		if (o->type == SRV_OPT_INT) {
			rc = parse_ll(val, &v);
			what = "a whole number";
		} else if (o->type == SRV_OPT_SIZE) {
			rc = srv_options_parse_bytes(val, &u);
			v = (long long)u;
			if (rc == 0 && u > INT64_MAX)
				rc = -1;
			what = "a size (a number with an optional K, M, G or T suffix)";
		} else {
			rc = parse_duration(val, (o->flags & SRV_OPT_MS) != 0, &v);
			what = o->flags & SRV_OPT_MS ? "a duration in milliseconds (or ms/s/m/h/d)"
			                             : "a duration in seconds (or s/m/h/d)";
		}
		if (rc < 0) {
			snprintf(why, n, "takes %s (got '%s')", what, shown);
			return -1;
		}
		if (v < o->min || v > o->max) {
			fmt_bound(o, o->min, lo, sizeof lo);
			fmt_bound(o, o->max, hi, sizeof hi);
			snprintf(why, n, "must be between %s and %s (got %s)", lo, hi, shown);
			return -1;
		}
		store_int(dst, o, v);
		break;
	}
	case SRV_OPT_DOUBLE: {
		char *end;
		errno = 0;
		double d = strtod(val, &end);
		if (end == val || *end || errno || !isfinite(d) || d < (double)o->min ||
		    (o->max > o->min && d > (double)o->max)) {
			if (o->max > o->min)
				snprintf(why, n, "takes a number between %lld and %lld (got '%s')",
				         o->min, o->max, shown);
			else
				snprintf(why, n, "takes a finite number >= %lld (got '%s')", o->min,
				         shown);
			return -1;
		}
		memcpy(field, &d, sizeof d);
		break;
	}
	case SRV_OPT_ENUM:
	case SRV_OPT_STRING:
		if (o->size == 0) {
			memcpy(field, &val, sizeof val);
		} else {
			size_t len = strlen(val);
			if (len >= o->size) {
				snprintf(why, n, "too long (at most %zu bytes)", o->size - 1);
				return -1;
			}
			memcpy(field, val, len + 1);
		}
		break;
	case SRV_OPT_LIST:
		if (list_push((struct srv_optlist *)(void *)field, val) < 0) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		break;
	case SRV_OPT_CUSTOM: break;
	}
	if (o->check && o->check(dst, val, why, n) < 0) {
		if (!why[0])
			snprintf(why, n, "invalid value '%s'", shown);
		return -1;
	}
	return 0;
}

/* Reset o's field to its default (zero, then def when given). */
static int apply_default(const struct srv_option *o, void *dst, char *why, size_t n)
{
	char *field = (char *)dst + o->offset;
	size_t size = 0;
	switch (o->type) {
	case SRV_OPT_BOOL: size = sizeof(int); break;
	case SRV_OPT_INT:
	case SRV_OPT_SIZE:
	case SRV_OPT_DURATION: size = o->size == 8 ? 8 : 4; break;
	case SRV_OPT_DOUBLE: size = sizeof(double); break;
	case SRV_OPT_STRING:
	case SRV_OPT_ENUM: size = o->size ? o->size : sizeof(const char *); break;
	case SRV_OPT_LIST: size = sizeof(struct srv_optlist); break;
	case SRV_OPT_CUSTOM: break;
	}
	memset(field, 0, size); /* NULL for a const char * field too */
	return o->def ? apply(o, dst, o->def, why, n) : 0;
}

/* ---- parsing ------------------------------------------------------------ */

static const struct srv_option *find_long(const struct srv_option *t, const char *name, size_t len)
{
	for (; t && t->name; t++)
		if (!(t->flags & SRV_OPT_ENV_ONLY) && strlen(t->name) == len &&
		    !strncmp(t->name, name, len))
			return t;
	return NULL;
}

static const struct srv_option *find_short(const struct srv_option *t, char c)
{
	for (; t && t->name; t++)
		if (t->short_name && t->short_name == c)
			return t;
	return NULL;
}

static int takes_value(const struct srv_option *o)
{
	return o->type != SRV_OPT_BOOL;
}

static int is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--help-all");
}

int srv_options_parse(const struct srv_optcmd *cmd, void *dst, int argc, char **argv,
                      struct srv_optres *res)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : cmd->name;
	char why[400];
	size_t n_opts = 0;
	res->operands = NULL;
	res->n_operands = 0;
	res->err[0] = 0;
	memset(res->source, 0, sizeof res->source);
	for (const struct srv_option *o = cmd->opts; o && o->name; o++)
		n_opts++;
	if (n_opts > sizeof res->source) {
		snprintf(res->err, sizeof res->err, "parity %s: too many options", prog);
		return -1;
	}
	for (size_t i = 0; i < n_opts; i++)
		if (apply_default(&cmd->opts[i], dst, why, sizeof why) < 0) {
			snprintf(res->err, sizeof res->err, "parity %s: --%s: default: %s", prog,
			         cmd->opts[i].name, why);
			return -1;
		}
	res->operands = calloc((size_t)(argc > 0 ? argc : 1), sizeof *res->operands);
	if (!res->operands) {
		snprintf(res->err, sizeof res->err, "parity %s: out of memory", prog);
		return -1;
	}
	res->help_all = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (is_help(argv[i])) {
			res->help_all = !strcmp(argv[i], "--help-all");
			return SRV_OPTS_HELP;
		}
	for (size_t i = 0; i < n_opts; i++) {
		const struct srv_option *o = &cmd->opts[i];
		const char *v = o->env ? getenv(o->env) : NULL;
		if (!v || !*v || o->type == SRV_OPT_LIST || res->operands_only)
			continue;
		if (apply(o, dst, v, why, sizeof why) < 0) {
			snprintf(res->err, sizeof res->err, "parity %s: %s: %s", prog, o->env, why);
			return -1;
		}
		res->source[i] = SRV_OPT_FROM_ENV;
	}
	int only_operands = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq = NULL;
		const struct srv_option *o;
		char shown[64];
		if (only_operands || a[0] != '-' || !a[1]) {
			res->operands[res->n_operands++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_operands = 1;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			o = find_long(cmd->opts, a + 2, len);
			if (!o)
				o = find_long(res->skip, a + 2, len);
			if (eq)
				val = eq + 1;
			snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), a + 2);
		} else {
			o = find_short(cmd->opts, a[1]);
			if (!o)
				o = find_short(res->skip, a[1]);
			if (a[2])
				val = a + 2;
			snprintf(shown, sizeof shown, "-%c", a[1]);
		}
		if (!o && res->operands_only)
			continue;
		if (!o) {
			snprintf(res->err, sizeof res->err, "parity %s: unknown option '%s'", prog,
			         a);
			return -1;
		}
		int own = o >= cmd->opts && o < cmd->opts + n_opts && !res->operands_only;
		if (val && !takes_value(o) && a[1] != '-') {
			snprintf(res->err, sizeof res->err, "parity %s: unknown option '%s'", prog,
			         a);
			return -1;
		}
		if (!takes_value(o)) {
			if (!val)
				val = "1";
		} else if (!val && o->type == SRV_OPT_LIST && (o->flags & SRV_OPT_GREEDY)) {
			int before = i;
			while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
				i++;
				if (own && apply(o, dst, argv[i], why, sizeof why) < 0) {
					snprintf(res->err, sizeof res->err, "parity %s: %s: %s",
					         prog, shown, why);
					return -1;
				}
			}
			if (i == before) {
				snprintf(res->err, sizeof res->err,
				         "parity %s: %s needs at least one value", prog, shown);
				return -1;
			}
			if (own)
				res->source[o - cmd->opts] = SRV_OPT_FROM_FLAG;
			continue;
		} else if (!val) {
			if (i + 1 >= argc) {
				snprintf(res->err, sizeof res->err, "parity %s: %s needs a value",
				         prog, shown);
				return -1;
			}
			val = argv[++i];
		}
		if (!own)
			continue;
		if (apply(o, dst, val, why, sizeof why) < 0) {
			snprintf(res->err, sizeof res->err, "parity %s: %s: %s", prog, shown, why);
			return -1;
		}
		res->source[o - cmd->opts] = SRV_OPT_FROM_FLAG;
	}
	return 0;
}

void srv_options_free(const struct srv_optcmd *cmd, void *dst, struct srv_optres *res)
{
	for (const struct srv_option *o = cmd && dst ? cmd->opts : NULL; o && o->name; o++)
		if (o->type == SRV_OPT_LIST) {
			struct srv_optlist *l =
			        (struct srv_optlist *)(void *)((char *)dst + o->offset);
			free(l->v);
			memset(l, 0, sizeof *l);
		}
	if (res) {
		free(res->operands);
		res->operands = NULL;
		res->n_operands = 0;
	}
}

enum srv_opt_source srv_options_source(const struct srv_optcmd *cmd, const struct srv_optres *res,
                                       const char *name)
{
	size_t i = 0;
	for (const struct srv_option *o = cmd->opts; o && o->name && i < sizeof res->source;
	     o++, i++)
		if (!strcmp(o->name, name))
			return (enum srv_opt_source)res->source[i];
	return SRV_OPT_FROM_DEFAULT;
}

/* ---- help and reference ------------------------------------------------- */

/* The default as shown: the text of def, "" when none worth showing. */
static const char *shown_default(const struct srv_option *o)
{
	if (!o->def || o->type == SRV_OPT_BOOL || o->type == SRV_OPT_LIST ||
	    (o->flags & SRV_OPT_SECRET))
		return "";
	return o->def;
}

/* "--name METAVAR" or "-o, --name METAVAR" or the variable of an
 * environment-only option. */
static int put_flag(struct buf *out, const struct srv_option *o)
{
	if (o->flags & SRV_OPT_ENV_ONLY)
		return buf_puts(out, o->env);
	int rc = 0;
	if (o->short_name)
		rc |= buf_printf(out, "-%c, ", o->short_name);
	rc |= buf_printf(out, "--%s", o->name);
	if (takes_value(o))
		rc |= buf_printf(out, " %s", o->metavar ? o->metavar : "VALUE");
	if (o->type == SRV_OPT_LIST)
		rc |= buf_puts(out, (o->flags & SRV_OPT_GREEDY) ? " ..." : " (repeatable)");
	return rc;
}

/* Append text word-wrapped from column col (the cursor is at *at). */
static int put_wrapped(struct buf *out, const char *text, size_t col, size_t *at)
{
	int rc = 0;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (*p == '\n') {
			p++;
			continue;
		}
		size_t w = strcspn(p, " \n");
		if (!w)
			break;
		if (*at > col && *at + 1 + w > HELP_WIDTH) {
			rc |= buf_putc(out, '\n');
			for (*at = 0; *at < col; (*at)++)
				rc |= buf_putc(out, ' ');
		} else if (*at > col) {
			rc |= buf_putc(out, ' ');
			(*at)++;
		}
		rc |= buf_add(out, p, w);
		*at += w;
		p += w;
	}
	return rc;
}

int srv_options_wrap(struct buf *out, const char *text, size_t col)
{
	size_t at = col;
	return put_wrapped(out, text, col, &at) ? -1 : 0;
}

/* Does o open a new group (the first option, or another group name)?
 * Updates *group, the current heading (NULL: none yet), and *any. */
static int opens_group(const struct srv_option *o, const char **group, int *any)
{
	if (*any && (!o->group || (*group && !strcmp(o->group, *group))))
		return 0;
	*group = o->group ? o->group : *group;
	*any = 1;
	return 1;
}

int srv_options_help(const struct srv_optcmd *cmd, int all, struct buf *out)
{
	int rc = buf_puts(out, cmd->synopsis);
	if (cmd->about)
		rc |= buf_printf(out, "\n%s", cmd->about);
	size_t n_common = 0, n_opts = 0;
	for (const struct srv_option *o = cmd->opts; o && o->name; o++, n_opts++)
		n_common += (o->flags & SRV_OPT_COMMON) != 0;
	int short_form = !all && n_common > 0;
	if (short_form)
		rc |= buf_puts(out, "\ncommon options:\n");
	const char *group = NULL;
	int any = 0;
	for (const struct srv_option *o = cmd->opts; o && o->name; o++) {
		if (short_form && !(o->flags & SRV_OPT_COMMON))
			continue;
		if (!short_form && opens_group(o, &group, &any))
			rc |= buf_printf(out, "\n%s:\n", group ? group : "options");
		size_t start = out->len;
		rc |= buf_puts(out, "  ");
		rc |= put_flag(out, o);
		size_t at = out->len - start;
		if (at + 1 >= HELP_COL) {
			rc |= buf_putc(out, '\n');
			at = 0;
		}
		for (; at < HELP_COL; at++)
			rc |= buf_putc(out, ' ');
		char extra[256] = "";
		const char *def = shown_default(o);
		size_t k = 0;
		if (*def)
			k += (size_t)snprintf(extra + k, sizeof extra - k, "Default %s.", def);
		if (o->flags & SRV_OPT_ENV_ONLY)
			snprintf(extra + k, sizeof extra - k, " (environment only)");
		else if (o->env)
			snprintf(extra + k, sizeof extra - k, " [%s%s]", o->env,
			         o->type == SRV_OPT_BOOL ? "=1" : "");
		rc |= put_wrapped(out, o->help ? o->help : "", HELP_COL, &at);
		rc |= put_wrapped(out, extra, HELP_COL, &at);
		rc |= buf_putc(out, '\n');
	}
	if (short_form)
		rc |= buf_printf(out,
		                 "\n%zu more options: `parity %s --help-all` shows every flag\n"
		                 "(server/OPTIONS.md too).\n",
		                 n_opts - n_common, cmd->name);
	if (cmd->epilog)
		rc |= buf_printf(out, "\n%s", cmd->epilog);
	return rc ? -1 : 0;
}

void srv_options_usage_res(const struct srv_optcmd *cmd, const struct srv_optres *res, FILE *f)
{
	struct buf b = BUF_INIT;
	if (srv_options_help(cmd, res && res->help_all, &b) == 0)
		fputs(b.data, f);
	buf_reset(&b);
}

void srv_options_usage(const struct srv_optcmd *cmd, FILE *f)
{
	srv_options_usage_res(cmd, NULL, f);
}

static const char *type_doc(const struct srv_option *o, char *tmp, size_t n)
{
	char lo[32], hi[32];
	switch (o->type) {
	case SRV_OPT_BOOL: return "flag";
	case SRV_OPT_INT:
	case SRV_OPT_SIZE:
		fmt_bound(o, o->min, lo, sizeof lo);
		fmt_bound(o, o->max, hi, sizeof hi);
		snprintf(tmp, n, "%s %s..%s", o->type == SRV_OPT_INT ? "integer" : "bytes", lo, hi);
		return tmp;
	case SRV_OPT_DURATION:
		snprintf(tmp, n, "%s %lld..%lld", o->flags & SRV_OPT_MS ? "ms" : "seconds", o->min,
		         o->max);
		return tmp;
	case SRV_OPT_DOUBLE:
		if (o->max > o->min)
			snprintf(tmp, n, "number %lld..%lld", o->min, o->max);
		else
			snprintf(tmp, n, "number >= %lld", o->min);
		return tmp;
	case SRV_OPT_ENUM: {
		size_t k = 0;
		for (const char *const *c = o->choices; c && *c && k < n; c++)
			k += (size_t)snprintf(tmp + k, n - k, "%s%s", c == o->choices ? "" : " | ",
			                      *c);
		return tmp;
	}
	case SRV_OPT_LIST: return "repeatable";
	case SRV_OPT_STRING:
	case SRV_OPT_CUSTOM: break;
	}
	return "text";
}

/* Markdown table cell: "|" escaped, newlines as spaces. */
static int put_cell(struct buf *out, const char *s)
{
	int rc = 0;
	for (; s && *s; s++)
		rc |= *s == '|' ? buf_puts(out, "\\|") : buf_putc(out, *s == '\n' ? ' ' : *s);
	return rc;
}

int srv_options_markdown(const struct srv_optcmd *cmd, struct buf *out)
{
	char tmp[256];
	int rc = buf_printf(out, "## parity %s\n\n```\n%s```\n\n", cmd->name, cmd->synopsis);
	if (cmd->about)
		rc |= buf_printf(out, "%s\n", cmd->about);
	const char *group = NULL;
	int any = 0;
	for (const struct srv_option *o = cmd->opts; o && o->name; o++) {
		if (opens_group(o, &group, &any)) {
			if (group)
				rc |= buf_printf(out, "### %s\n\n", group);
			rc |= buf_puts(out,
			               "| option | environment | type | default | description |\n"
			               "|---|---|---|---|---|\n");
		}
		rc |= buf_puts(out, "| `");
		struct buf flag = BUF_INIT;
		rc |= put_flag(&flag, o);
		rc |= put_cell(out, flag.data);
		buf_reset(&flag);
		rc |= buf_puts(out, "` | ");
		if (o->env)
			rc |= buf_printf(out, "`%s`", o->env);
		rc |= buf_puts(out, " | ");
		rc |= put_cell(out, type_doc(o, tmp, sizeof tmp));
		rc |= buf_puts(out, " | ");
		const char *def = shown_default(o);
		if (*def)
			rc |= buf_printf(out, "`%s`", def);
		rc |= buf_puts(out, " | ");
		rc |= put_cell(out, o->help);
		rc |= buf_puts(out, " |\n");
		const struct srv_option *next = o + 1;
		if (next->name && next->group && group && strcmp(next->group, group))
			rc |= buf_putc(out, '\n');
	}
	if (any)
		rc |= buf_putc(out, '\n');
	if (cmd->epilog)
		rc |= buf_printf(out, "%s\n", cmd->epilog);
	return rc ? -1 : 0;
}
