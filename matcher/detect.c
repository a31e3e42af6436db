/* detect.c - guess whether a log is an activation log or a training log
 * from its first bytes (matcher_detect_kind, declared in trainlog.h).
 *
 * Lines are examined in order; the first line that is evidence of either
 * kind decides.  A line is first cleaned: a UTF-8 BOM at the start of the
 * data, a trailing CR and ANSI escape sequences (real ESC or their visible
 * rendering U+241B) are removed.  Only the first DETECT_LINE_MAX bytes of
 * each line are looked at: both kinds announce themselves early on a line.
 *   training:   a `step:` token that is not `validate step:` and a `loss:`
 *               token (a token does not follow a letter, digit or '_').
 *   activation: `Total captured activations:` or `Excluded ops
 *               dispatched:` starting a line, or a line starting with `[`
 *               containing `/op_` whose next non-blank line is an indented
 *               stat or field line.
 * Activation also: an Ascend msprobe dump.json (matcher_msprobe_detect,
 * checked first: a JSON object is no line format).
 * Training also: a TensorBoard event file (its first TFRecord header,
 * tfevents.h; checked before anything else), Megatron-LM golden values
 * (megatron.h: a JSON object whose first metric opens with start_step,
 * end_step, step_interval or values; checked next) or a golden loss file (only
 * `STEP VALUE`, comment and blank lines; checked when nothing else
 * decided), and an MLPerf MLLOG event line (`:::MLLOG {...}` naming a
 * "key", maybe after a rank prefix: mllog.h).  Which training source it is: trainsrc.h.
 * Pure function: no allocation, no globals. */
#include "trainlog.h"

#include <string.h>

#include "lossfile.h"
#include "nvinspect.h"
#include "megatron.h"
#include "mllog.h"
#include "msprobe.h"
#include "tfevents.h"

#define DETECT_LINE_MAX 4096
#define DETECT_SCAN_MAX (4u << 20)

/* Copy line s[0..n) into out (cap DETECT_LINE_MAX) without ANSI escapes;
 * returns the cleaned length. */
static size_t clean_line(const char *s, size_t n, char *out)
{
	size_t o = 0, i = 0;
	if (n && s[n - 1] == '\r')
		n--;
	while (i < n && o < DETECT_LINE_MAX) {
		unsigned char c = (unsigned char)s[i];
		size_t intro = 0;
		if (c == 0x1B)
			intro = 1;
		else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x90 &&
		         (unsigned char)s[i + 2] == 0x9B)
			intro = 3;
		if (!intro) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		i += intro;
		if (i < n && s[i] == '[') {
			/* CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E */
			i++;
			while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3F)
				i++;
			if (i < n && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7E)
				i++;
		} else if (i < n && intro == 1) {
			i++; /* two-byte escape */
		}
	}
	return o;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Is there a `tok` (e.g. "step:") at a token start in s[0..n)?  With
 * skip_validate, an occurrence right after "validate " does not count. */
static int has_token(const char *s, size_t n, const char *tok, int skip_validate)
{
	size_t tl = strlen(tok);
	const char *p = s, *end = s + n;
	while ((p = memmem(p, (size_t)(end - p), tok, tl)) != NULL) {
		int ok = p == s || !is_word(p[-1]);
		if (ok && skip_validate) {
			const char *q = p;
			while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
				q--;
			if (q - s >= 8 && memcmp(q - 8, "validate", 8) == 0 &&
			    (q - 8 == s || !is_word(q[-9])))
				ok = 0;
		}
		if (ok)
			return 1;
		p++;
	}
	return 0;
}

static int starts_with(const char *s, size_t n, const char *pre)
{
	size_t l = strlen(pre);
	return n >= l && memcmp(s, pre, l) == 0;
}

/* An indented stat or field line of an activation block. */
static int is_field_line(const char *s, size_t n)
{
	static const char *const names[] = {
	        "Shape:",       "L1 norm:",      "L2 norm:",         "Min:",      "Max:",   "Mean:",
	        "Output hash:", "Input hashes:", "Input producers:", "Location:", "Phase:",
	};
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == 0)
		return 0;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (starts_with(s + i, n - i, names[k]))
			return 1;
	return 0;
}

static int is_blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

enum matcher_kind matcher_detect_kind(const char *data, size_t n)
{
	char line[DETECT_LINE_MAX];
	int pending_block = 0; /* previous non-blank line was a "[.../op_...]" line */
	if (!data)
		return MATCHER_KIND_UNKNOWN;
	if (matcher_msprobe_detect(data, n < DETECT_SCAN_MAX ? n : DETECT_SCAN_MAX))
		return MATCHER_KIND_ACTIVATION;
	if (matcher_tfevents_detect(data, n)) /* binary TFRecord framing */
		return MATCHER_KIND_TRAINING;
	if (matcher_megatron_detect(data, n)) /* Megatron-LM golden values JSON */
		return MATCHER_KIND_TRAINING;
	if (n > DETECT_SCAN_MAX)
		n = DETECT_SCAN_MAX;
	if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
		data += 3;
		n -= 3;
	}
	const char *cur = data, *end = data + n;
	while (cur < end) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		const char *le = nl ? nl : end;
		size_t len = clean_line(cur, (size_t)(le - cur), line);
		cur = nl ? nl + 1 : end;
		if (is_blank_line(line, len))
			continue;
		if (pending_block && is_field_line(line, len))
			return MATCHER_KIND_ACTIVATION;
		pending_block = 0;
		if (starts_with(line, len, "Total captured activations:") ||
		    starts_with(line, len, "Excluded ops dispatched:"))
			return MATCHER_KIND_ACTIVATION;
		if (has_token(line, len, "step:", 1) && has_token(line, len, "loss:", 0))
			return MATCHER_KIND_TRAINING;
		if (matcher_mllog_event_line(line, len)) /* MLPerf `:::MLLOG {json}` */
			return MATCHER_KIND_TRAINING;
		if (line[0] == '[' && memmem(line, len, "/op_", 4) && memchr(line, ']', len))
			pending_block = 1;
	}
	return matcher_lossfile_detect(data, n) || matcher_nvinspect_detect(data, n)
	               ? MATCHER_KIND_TRAINING
	               : MATCHER_KIND_UNKNOWN;
}

const char *matcher_kind_name(enum matcher_kind k)
{
	switch (k) {
	case MATCHER_KIND_ACTIVATION: return "activation";
	case MATCHER_KIND_TRAINING: return "training";
	default: return "unknown";
	}
}
