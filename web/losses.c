/* losses.c - the golden loss file writer (see web.h): the one place that
 * decides what an exported file looks like, for the CLI and the daemon. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tfevents.h" /* matcher_format_binary */
#include "web.h"

/* Comment text without line breaks (a run name could hold one). */
static int put_comment_text(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		if (buf_putc(out, *s == '\n' || *s == '\r' ? ' ' : *s) < 0)
			return -1;
	return 0;
}

int web_losses_header(struct buf *out, const char *origin, int rank, const char *source,
                      const char *metric)
{
	if (buf_puts(out, "# golden losses exported by parity from ") < 0 ||
	    put_comment_text(out, origin) < 0 ||
	    buf_printf(out, "\n# rank %d, source %s; one `step value` line per step\n", rank,
	               source ? source : "stdout") < 0)
		return -1;
	if (metric && strcmp(metric, "loss") != 0 &&
	    (buf_puts(out, "# metric: ") < 0 || put_comment_text(out, metric) < 0 ||
	     buf_putc(out, '\n') < 0))
		return -1;
	return 0;
}

int web_losses_columns(struct buf *out, const char *const *metrics, size_t n)
{
	int bad = buf_puts(out, "# step");
	for (size_t i = 0; i < n; i++)
		bad |= buf_putc(out, ' ') | put_comment_text(out, metrics[i]);
	return (bad | buf_putc(out, '\n')) ? -1 : 0;
}

int web_losses_row(struct buf *out, long step, const char *const *texts, size_t n)
{
	int bad = buf_printf(out, "%ld", step);
	for (size_t i = 0; i < n; i++)
		bad |= buf_printf(out, " %s", texts[i] && texts[i][0] ? texts[i] : "nan");
	return (bad | buf_putc(out, '\n')) ? -1 : 0;
}

int web_losses_line(struct buf *out, long step, const char *text)
{
	return buf_printf(out, "%ld %s\n", step, text && text[0] ? text : "nan");
}

void web_losses_value(double value, const char *text, int binary, char *out, size_t cap)
{
	if (binary && !isnan(value)) {
		matcher_format_binary(value, 0, out, cap);
		return;
	}
	if (text && text[0] && !strchr(text, ',')) /* "1,231": not a loss-file value */
		snprintf(out, cap, "%s", text);
	else
		matcher_format_binary(value, 0, out, cap);
}
