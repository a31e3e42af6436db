/* keyfilter.c - the key filter (regex) of list requests: the q and case
 * parameters (case-insensitive unless case=sensitive or icase=0, so
 * `layers\.1\d` finds `Layers.12` as the offline report's JS does), the reader threads that run
 * regex-filtered requests off the libmicrohttpd workers, and the cancel callback that stops a read
 * whose client went away.
 *
 * The store bounds one read (PCRE2 limits per key, a time budget for the
 * read); this file keeps such reads from blocking the daemon.  A
 * libmicrohttpd worker that runs a slow handler stalls every connection it
 * has accepted (engineering notes section 1), so a request with q set is
 * handed to the offload pool's reader threads (offload.c, kind
 * SRV_OFFLOAD_READ: n = http_threads / 2, at least 1, since regex work is
 * CPU work and each reader holds a database connection).  Its queue is
 * bounded (64) and so is the wait in it (500 ms): a request refused or
 * taken out too late gets 503 busy (Retry-After 1), so a flood of costly
 * patterns delays nothing but regex reads, and each of those is answered
 * within about 500 ms + the read budget.
 * The later pages of a streamed body (rows.csv with q) are regex reads
 * too: the body reader suspends the connection and queues the page for a
 * reader in the same queue (srv_buf_stream_read_offloaded, through
 * srv_offload_page); a full queue ends the body with an error.
 * While a read runs, the store polls srv_client_gone about every 20 ms
 * (inside a long key too): a peer that closed its socket (curl killed,
 * tab closed) ends the read instead of leaving it to burn its budget. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "store.h"
#include "http.h"

void srv_key_filter_init(struct srv_req *r, struct store_key_filter *kf, const char *q, int icase)
{
	memset(kf, 0, sizeof *kf);
	kf->regex = q && *q ? q : NULL;
	kf->icase = icase;
	kf->budget_ms = 0; /* the store's default */
	kf->cancelled = srv_client_gone;
	kf->cancel_ctx = r;
}

int srv_key_icase(struct srv_req *r)
{
	const char *c = srv_query(r, "case"), *i = srv_query(r, "icase");
	int by_case = -1, by_icase = -1;
	if (c && *c) {
		if (!strcmp(c, "insensitive"))
			by_case = 1;
		else if (!strcmp(c, "sensitive"))
			by_case = 0;
		else
			return -1;
	}
	if (i && *i) {
		if (!strcmp(i, "1"))
			by_icase = 1;
		else if (!strcmp(i, "0"))
			by_icase = 0;
		else
			return -1;
	}
	if (by_case >= 0 && by_icase >= 0 && by_case != by_icase)
		return -1;
	return by_case >= 0 ? by_case : by_icase >= 0 ? by_icase : 1;
}

int srv_key_filter_or_reply(struct srv_req *r, struct store_key_filter *kf)
{
	int icase = srv_key_icase(r);
	if (icase < 0) {
		srv_reply_error(r, 400, "bad_parameter",
		                "case must be sensitive or insensitive (icase 0 or 1; the two "
		                "must agree); the default is insensitive");
		return -1;
	}
	srv_key_filter_init(r, kf, srv_query(r, "q"), icase);
	if (!kf->regex)
		return 0;
	int rc = srv_filter_offload(r);
	if (rc < 0) {
		r->retry_after_s = 1;
		srv_reply_error(r, 503, "busy",
		                "too many regex-filtered requests are running; retry shortly");
	}
	return rc == 0 ? 0 : -1;
}

int srv_client_gone(void *ctx)
{
	struct srv_req *r = ctx;
	if (!r->conn) /* driven without libmicrohttpd (srv_capture) */
		return 0;
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || ci->connect_fd < 0)
		return 0;
	struct pollfd p = {.fd = ci->connect_fd, .events = POLLIN | POLLRDHUP};
	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP))
		return 1;
	if (p.revents & POLLIN) {
		/* readable: EOF, or bytes of a pipelined request (left unread) */
		char c;
		ssize_t n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		return n == 0 ||
		       (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
	}
	return 0;
}

int srv_filter_offload(struct srv_req *r)
{
	return srv_offload(r, SRV_OFFLOAD_READ);
}

ssize_t srv_buf_stream_read_offloaded(struct buf *b, size_t *pos, const int *done,
                                      struct srv_page_read *pr, char *out, size_t max)
{
	if (pr->failed)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (*pos >= b->len && !*done) {
		/* the reader appends the next page to b: clear it first */
		buf_clear(b);
		*pos = 0;
		int rc = srv_offload_page(pr->r, pr);
		if (rc != 0)
			return rc > 0 ? 0 : MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return srv_buf_stream_read(b, pos, done, pr->fill, pr->ctx, out, max);
}
