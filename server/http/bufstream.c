/* bufstream.c - the body reader of every streamed response (reports,
 * steps.csv, losses.txt): hand out a buffer that a fill function refills
 * page by page, so the whole document never sits in memory. */
#include <stdio.h>
#include <string.h>
#include "http.h"

ssize_t srv_buf_stream_read(struct buf *b, size_t *pos, const int *done, int (*fill)(void *ctx),
                            void *ctx, char *out, size_t max)
{
	while (*pos >= b->len) {
		if (*done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		buf_clear(b);
		*pos = 0;
		if (fill(ctx) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	size_t n = b->len - *pos;
	if (n > max)
		n = max;
	memcpy(out, b->data + *pos, n);
	*pos += n;
	return (ssize_t)n;
}

int srv_reply_csv_stream(struct srv_req *r, MHD_ContentReaderCallback read, void *cls,
                         MHD_ContentReaderFreeCallback free_cls, const char *what)
{
	char cd[128];
	snprintf(cd, sizeof cd, "attachment; filename=\"comparison_%lld_%s.csv\"", (long long)r->id,
	         what);
	const char *const hdrs[] = {"Content-Disposition", cd, NULL};
	return srv_reply_stream(r, 200, MHD_SIZE_UNKNOWN, read, cls, free_cls,
	                        "text/csv; charset=utf-8", hdrs);
}
