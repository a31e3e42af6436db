/* keyfilter.c - the key filter (regex) of list requests: the q and icase
 * parameters, a cap on concurrent regex reads, and the cancel callback
 * that stops a read whose client went away.
 *
 * The store bounds one read (PCRE2 limits per key, a time budget for the
 * read); this file bounds the daemon: a filtered read runs on a
 * libmicrohttpd worker thread and blocks it, so at most http_threads - 1
 * run at once and one worker always stays free for everything else.
 * While a read runs, the store polls srv_client_gone about every 20 ms: a
 * peer that closed its socket (curl killed, browser tab closed) ends the
 * read instead of leaving it to burn its budget. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "srv.h"
#include "store.h"

void srv_key_filter_init(struct srv_req *r, struct store_key_filter *kf, const char *q, int icase)
{
	memset(kf, 0, sizeof *kf);
	kf->regex = q && *q ? q : NULL;
	kf->icase = icase;
	kf->budget_ms = 0; /* the store's default */
	kf->cancelled = srv_client_gone;
	kf->cancel_ctx = r;
}

int srv_filter_slot_take(struct srv_req *r)
{
	struct srv *s = r->srv;
	unsigned cap = s->cfg.http_threads > 1 ? s->cfg.http_threads - 1 : 1;
	if (r->filter_slot)
		return 0;
	if (atomic_fetch_add(&s->filter_reads, 1) >= cap) {
		atomic_fetch_sub(&s->filter_reads, 1);
		return -1;
	}
	r->filter_slot = 1;
	return 0;
}

int srv_key_filter_or_reply(struct srv_req *r, struct store_key_filter *kf)
{
	long long icase;
	if (srv_query_int_or_reply(r, "icase", 0, 1, 0, &icase) < 0)
		return -1;
	srv_key_filter_init(r, kf, srv_query(r, "q"), (int)icase);
	if (kf->regex && srv_filter_slot_take(r) < 0) {
		r->retry_after_s = 1;
		srv_reply_error(r, 503, "busy",
		                "too many regex-filtered requests are running; retry shortly");
		return -1;
	}
	return 0;
}

int srv_client_gone(void *ctx)
{
	struct srv_req *r = ctx;
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
