/* webhooks.c - delivery queueing, payloads and the sender threads (see
 * delivery.h for the contract and the retry policy).
 *
 * Each sender owns one libcurl easy handle for its whole life, so
 * keep-alive to a receiver is reused, and one SQLite connection per
 * iteration from the pool.  It claims a due delivery (lease = attempt
 * timeout + margin), POSTs it, and records the attempt and the next
 * state in one transaction.  When nothing is due it sleeps until the
 * earliest due time (at most IDLE_RECHECK_MS), or until a new delivery
 * is announced.  TLS verification stays on; redirects are not followed;
 * only http and https URLs are accepted.  Unless --webhook-allow-private,
 * every address libcurl is about to connect to goes through netguard
 * (CURLOPT_OPENSOCKETFUNCTION: the address actually used, after DNS, so
 * rebinding cannot slip an internal address in); a refused address makes
 * the delivery fail for good, and proxies from the environment are not
 * used (the guard must see the destination, not the proxy). */

#include <arpa/inet.h>
#include "curl_lib.h"
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "json_views.h"
#include "store.h"
#include "web.h"
#include "delivery.h"
#include "http.h"
#include "views.h"

#define IDLE_RECHECK_MS 5000
#define LEASE_MARGIN_MS SRV_WEBHOOK_LEASE_MARGIN_MS
#define BACKOFF_CAP_MS  (3600 * 1000LL)
#define RESPONSE_KEEP   200 /* bytes of a refused response kept in the error */
#define DESCRIPTION_MAX 140 /* GitHub's limit for a status description */

/* Wall clock in epoch milliseconds (scheduling survives restarts). */
static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t random_u32(void)
{
	uint32_t v = 0;
	if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
		v = (uint32_t)wall_ms() * 2654435761u; /* jitter only, not a secret */
	return v;
}

/* ---- policy helpers -------------------------------------------------------- */

int64_t srv_webhook_backoff_ms(unsigned base_ms, int attempts, uint32_t rnd)
{
	if (attempts < 1)
		attempts = 1;
	int64_t d = base_ms ? base_ms : 1;
	for (int i = 1; i < attempts && d < BACKOFF_CAP_MS; i++)
		d *= 2;
	if (d > BACKOFF_CAP_MS)
		d = BACKOFF_CAP_MS;
	/* +-25% jitter so receivers coming back up are not hit in lock-step */
	int64_t span = d / 2;
	int64_t out = d - d / 4 + (span ? (int64_t)(rnd % (uint64_t)(span + 1)) : 0);
	return out < 1 ? 1 : out;
}

int srv_webhook_retryable(long http_status)
{
	if (http_status <= 0)
		return 1; /* no response: connection refused, timeout, reset */
	return http_status == 429 || http_status >= 500;
}

int srv_webhook_url_subst(const char *url, const char *sha, char *out, size_t cap)
{
	size_t o = 0, sl = strlen(sha);
	for (const char *p = url; *p;) {
		if (!strncmp(p, "{sha}", 5)) {
			if (o + sl >= cap)
				return -1;
			memcpy(out + o, sha, sl);
			o += sl;
			p += 5;
			continue;
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = *p++;
	}
	if (o >= cap)
		return -1;
	out[o] = 0;
	return 0;
}

/* The host of an absolute URL without IPv6 brackets or zone into out
 * ("{sha}" stands in for a commit).  0, or -1 when it does not parse. */
static int url_host(const char *url, char *out, size_t cap)
{
	char probe[4200];
	if (srv_webhook_url_subst(url, "0123456789abcdef", probe, sizeof probe) < 0)
		return -1;
	CURLU *h = curl_url();
	char *host = NULL;
	int rc = -1;
	if (h && curl_url_set(h, CURLUPART_URL, probe, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host) {
		const char *p = host;
		size_t n = strlen(p);
		if (p[0] == '[' && n >= 2 && p[n - 1] == ']') {
			p++;
			n -= 2;
		}
		const char *zone = memchr(p, '%', n);
		if (zone)
			n = (size_t)(zone - p);
		if (n > 0 && n < cap) {
			memcpy(out, p, n);
			out[n] = 0;
			rc = 0;
		}
	}
	curl_free(host);
	curl_url_cleanup(h);
	return rc;
}

int srv_webhook_url_allowed(const struct srv_config *cfg, const char *url, char *why,
                            size_t why_cap)
{
	char host[1024];
	if (cfg->webhook_allow_private)
		return 0;
	if (url_host(url, host, sizeof host) < 0) {
		snprintf(why, why_cap, "url has no usable host");
		return SRV_NETGUARD_UNRESOLVED;
	}
	return (int)srv_netguard_host(host, why, why_cap);
}

void srv_webhook_url_mask(const char *url, char *out, size_t cap)
{
	char probe[4200];
	CURLU *h = curl_url();
	char *scheme = NULL, *user = NULL, *pass = NULL, *host = NULL, *port = NULL;
	char *path = NULL, *query = NULL, *frag = NULL;
	snprintf(out, cap, "***");
	if (!h || srv_webhook_url_subst(url, "0", probe, sizeof probe) < 0 ||
	    curl_url_set(h, CURLUPART_URL, probe, 0) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto done;
	curl_url_get(h, CURLUPART_USER, &user, 0);
	curl_url_get(h, CURLUPART_PASSWORD, &pass, 0);
	curl_url_get(h, CURLUPART_PORT, &port, 0); /* only when given explicitly */
	curl_url_get(h, CURLUPART_PATH, &path, 0);
	curl_url_get(h, CURLUPART_QUERY, &query, 0);
	curl_url_get(h, CURLUPART_FRAGMENT, &frag, 0);
	int hide_path = (path && strcmp(path, "/") && *path) || query || frag;
	snprintf(out, cap, "%s://%s%s%s%s%s", scheme, user || pass ? "***@" : "", host,
	         port ? ":" : "", port ? port : "", hide_path ? "/***" : "/");
done:
	curl_free(scheme);
	curl_free(user);
	curl_free(pass);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(h);
}

void srv_webhook_error_public(const char *err, char *out, size_t cap)
{
	/* deliver() writes "HTTP <status>: <excerpt of the body>" */
	size_t n = strlen(err);
	if (!strncmp(err, "HTTP ", 5)) {
		size_t d = 5;
		while (err[d] >= '0' && err[d] <= '9')
			d++;
		if (d > 5 && err[d] == ':')
			n = d;
	}
	snprintf(out, cap, "%.*s", (int)n, err);
}

/* ---- payloads ----------------------------------------------------------------- */

/* <public_url>/<prefix>/<id><suffix>: "ui/comparisons", 7, "" */
static int enqueue_comparison(const struct srv_config *cfg, struct store *db,
                              int64_t comparison_id);

static json_t *url_json(const struct srv_config *cfg, const char *prefix, long long id,
                        const char *suffix)
{
	char u[1300];
	snprintf(u, sizeof u, "%s/%s/%lld%s", cfg->public_url, prefix, id, suffix);
	return json_string(u);
}

static json_t *run_json(json_t *run)
{
	json_t *o = json_object();
	json_object_set(o, "id", json_object_get(run, "id"));
	json_object_set(o, "name", json_object_get(run, "name"));
	json_object_set(o, "kind", json_object_get(run, "kind"));
	json_t *meta = json_object_get(run, "meta");
	json_object_set_new(o, "meta", json_is_object(meta) ? json_incref(meta) : json_object());
	return o;
}

static json_t *get_or_null(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return v ? json_incref(v) : json_null();
}

json_t *srv_webhook_generic_payload(const struct srv_config *cfg, json_t *c, const char *event,
                                    int64_t delivery_id)
{
	long long id = (long long)json_integer_value(json_object_get(c, "id"));
	json_t *result = json_object_get(c, "result");
	json_t *p = json_object();
	json_object_set_new(p, "event", json_string(event));
	json_object_set_new(p, "delivery_id", json_integer(delivery_id));
	json_object_set_new(p, "comparison_id", json_integer(id));
	json_object_set_new(p, "name", get_or_null(c, "name"));
	json_object_set_new(p, "kind", get_or_null(c, "kind"));
	json_object_set_new(p, "status", get_or_null(c, "status"));
	json_object_set_new(p, "verdict", get_or_null(c, "verdict"));
	if (json_is_string(json_object_get(c, "lane"))) /* issue 26: noise comparisons */
		json_object_set_new(p, "lane", get_or_null(c, "lane"));
	json_object_set_new(p, "policy", get_or_null(c, "policy"));
	json_t *reasons = json_object_get(result, "reasons");
	json_object_set_new(p, "reasons",
	                    json_is_array(reasons) ? json_incref(reasons) : json_array());
	/* activation results carry a summary; training ones: steps + metrics */
	json_t *summary = json_object_get(result, "summary");
	if (summary) {
		json_object_set(p, "summary", summary);
	} else if (json_object_get(result, "steps") || json_object_get(result, "metrics")) {
		json_t *s = json_object();
		json_object_set_new(s, "steps", get_or_null(result, "steps"));
		json_object_set_new(s, "metrics", get_or_null(result, "metrics"));
		json_object_set_new(p, "summary", s);
	} else {
		json_object_set_new(p, "summary", json_null());
	}
	json_object_set_new(p, "error", get_or_null(c, "error"));
	json_t *urls = json_object();
	json_object_set_new(urls, "page", url_json(cfg, "ui/comparisons", id, ""));
	json_object_set_new(urls, "report", url_json(cfg, "comparisons", id, "/report.html"));
	json_object_set_new(urls, "api", url_json(cfg, "comparisons", id, ""));
	json_object_set_new(p, "urls", urls);
	json_t *runs = json_object_get(c, "runs"), *r = json_object();
	json_object_set_new(r, "baseline", run_json(json_object_get(runs, "baseline")));
	json_object_set_new(r, "candidate", run_json(json_object_get(runs, "candidate")));
	json_object_set_new(p, "runs", r);
	json_object_set_new(p, "created_at", get_or_null(c, "created_at"));
	json_object_set_new(p, "finished_at", get_or_null(c, "finished_at"));
	return p;
}

/* Cut s to at most max bytes on a UTF-8 boundary, with "..." when cut. */
static void clip_utf8(char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return;
	size_t cut = max - 3;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(s + cut, "...", 4);
}

json_t *srv_webhook_github_payload(const struct srv_config *cfg, json_t *c)
{
	const char *status = json_string_value(json_object_get(c, "status"));
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	const char *state = "error";
	char desc[512];
	if (status && !strcmp(status, "done") && verdict) {
		if (!strcmp(verdict, "pass"))
			state = "success";
		else if (!strcmp(verdict, "fail"))
			state = "failure";
		json_t *r0 =
		        json_array_get(json_object_get(json_object_get(c, "result"), "reasons"), 0);
		const char *msg = json_string_value(json_object_get(r0, "message"));
		/* issue 26: "pass (within noise)", "fail (regression): ..." */
		const char *lane = json_string_value(json_object_get(c, "lane"));
		char vl[64];
		web_verdict_lane(verdict, lane, vl, sizeof vl);
		if (msg)
			snprintf(desc, sizeof desc, "%s: %s", vl, msg);
		else if (web_lane_text(lane))
			snprintf(desc, sizeof desc, "%s", vl);
		else
			snprintf(desc, sizeof desc, "%s",
			         !strcmp(verdict, "pass") ? "pass: the runs agree under the policy"
			                                  : verdict);
	} else if (status && (!strcmp(status, "queued") || !strcmp(status, "running"))) {
		state = "pending";
		snprintf(desc, sizeof desc, "comparison %s", status);
	} else {
		const char *e = json_string_value(json_object_get(c, "error"));
		snprintf(desc, sizeof desc, "error: %s", e ? e : "the comparison failed");
	}
	clip_utf8(desc, DESCRIPTION_MAX);
	json_t *p = json_object();
	json_object_set_new(p, "state", json_string(state));
	json_t *d = json_string(desc);
	json_object_set_new(p, "description", d ? d : json_string("(description not UTF-8)"));
	if (cfg->public_url[0]) /* GitHub wants an absolute target_url */
		json_object_set_new(
		        p, "target_url",
		        url_json(cfg, "ui/comparisons",
		                 (long long)json_integer_value(json_object_get(c, "id")), ""));
	const char *pol = json_string_value(json_object_get(json_object_get(c, "policy"), "name"));
	char ctx[200];
	snprintf(ctx, sizeof ctx, "parity/%s", pol && *pol ? pol : "default");
	json_object_set_new(p, "context", json_string(ctx));
	return p;
}

/* A commit id safe to put in a URL path: 4-64 of [0-9A-Za-z]. */
static int valid_sha(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 4 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
		      (ch >= 'A' && ch <= 'Z')))
			return 0;
	}
	return 1;
}

/* Body and target of one delivery.  0, 1 when it cannot be addressed
 * (why set), negative store error. */
static int build_one(const struct srv_config *cfg, const struct store_webhook *h, json_t *c,
                     int64_t delivery_id, char **body, char *url, size_t url_cap, char *why,
                     size_t why_cap)
{
	json_t *p = NULL;
	*body = NULL;
	if (!strcmp(h->format, "github-status")) {
		json_t *meta = json_object_get(
		        json_object_get(json_object_get(c, "runs"), "candidate"), "meta");
		const char *sha = json_string_value(json_object_get(meta, "commit"));
		if (strstr(h->url, "{sha}") && !valid_sha(sha)) {
			snprintf(why, why_cap,
			         "the candidate run has no usable meta.commit for {sha}");
			return 1;
		}
		if (srv_webhook_url_subst(h->url, sha ? sha : "", url, url_cap) < 0) {
			snprintf(why, why_cap, "the webhook URL is too long");
			return 1;
		}
		p = srv_webhook_github_payload(cfg, c);
	} else if (!strcmp(h->format, "email")) {
		snprintf(url, url_cap, "%s", h->url);
		*body = srv_mail_payload(cfg, SRV_EVENT_COMPLETED, delivery_id,
		                         (int64_t)json_integer_value(json_object_get(c, "id")),
		                         NULL, h->recipients, wall_ms());
		return *body ? 0 : STORE_ERROR;
	} else {
		snprintf(url, url_cap, "%s", h->url);
		p = srv_webhook_generic_payload(cfg, c, SRV_EVENT_COMPLETED, delivery_id);
	}
	*body = p ? json_dumps(p, JSON_COMPACT) : NULL;
	json_decref(p);
	return *body ? 0 : STORE_ERROR;
}

/* suite.completed: when the comparison is filed in a suite, none of that
 * suite's comparisons is queued or running any more and it has as many
 * configs as the largest suite_size given (checked inside
 * the finishing transaction, which holds the write lock, so of two jobs
 * finishing together only the second sees the suite complete), one
 * generic delivery per subscribed hook.  A github-status hook has no
 * commit to address for a suite: its delivery is marked failed. */
static int enqueue_suite(const struct srv_config *cfg, struct store *db, int64_t comparison_id)
{
	char suite[STORE_LABEL_MAX + 1];
	struct store_suite_view sv;
	struct store_webhook *hooks = NULL;
	size_t n = 0;
	int64_t pending = 0;
	json_t *doc = NULL;
	memset(&sv, 0, sizeof sv);
	int rc = store_comparison_suite(db, comparison_id, suite, sizeof suite);
	if (rc < 0 || !suite[0])
		goto done;
	if ((rc = store_suite_pending(db, suite, &pending)) < 0 || pending > 0)
		goto done;
	if ((rc = store_webhooks_for_event(db, SRV_EVENT_SUITE_COMPLETED, &hooks, &n)) < 0 ||
	    n == 0)
		goto done;
	if ((rc = store_suite_get(db, suite, &sv)) < 0)
		goto done;
	if (!strcmp(web_suite_verdict(&sv), "pending"))
		goto done; /* fewer configs than its suite_size so far */
	if (!(doc = web_suite_json(suite, &sv))) {
		rc = STORE_ERROR;
		goto done;
	}
	char ui[1300];
	snprintf(ui, sizeof ui, "%s/ui/suites/%s", cfg->public_url, suite);
	json_object_set_new(doc, "url", json_string(ui));
	int64_t now = wall_ms();
	for (size_t i = 0; i < n; i++) {
		int64_t did;
		if ((rc = store_delivery_create(db, hooks[i].id, comparison_id,
		                                SRV_EVENT_SUITE_COMPLETED, now, &did)) < 0)
			goto done;
		if (!strcmp(hooks[i].format, "email")) {
			char *body =
			        srv_mail_payload(cfg, SRV_EVENT_SUITE_COMPLETED, did, comparison_id,
			                         suite, hooks[i].recipients, now);
			rc = body ? store_delivery_set_body(db, did, hooks[i].url, body)
			          : STORE_ERROR;
			free(body);
		} else if (strcmp(hooks[i].format, "generic")) {
			rc = store_delivery_give_up(
			        db, did,
			        "suite.completed is sent in the generic and email formats only");
		} else {
			json_t *p = json_pack("{s:s, s:I}", "event", SRV_EVENT_SUITE_COMPLETED,
			                      "delivery_id", (json_int_t)did);
			char *body = NULL;
			if (p && !json_object_update(p, doc))
				body = json_dumps(p, JSON_COMPACT);
			json_decref(p);
			rc = body ? store_delivery_set_body(db, did, hooks[i].url, body)
			          : STORE_ERROR;
			free(body);
		}
		if (rc < 0)
			goto done;
	}
	rc = 0;
done:
	json_decref(doc);
	store_suite_view_free(&sv);
	store_webhooks_free(hooks, n);
	return rc;
}

int srv_webhooks_enqueue_completed(const struct srv_config *cfg, struct store *db,
                                   int64_t comparison_id)
{
	int rc = enqueue_suite(cfg, db, comparison_id);
	if (rc < 0)
		return rc;
	return enqueue_comparison(cfg, db, comparison_id);
}

static int enqueue_comparison(const struct srv_config *cfg, struct store *db, int64_t comparison_id)
{
	struct store_webhook *hooks = NULL;
	size_t n = 0;
	json_t *c = NULL;
	int rc = store_webhooks_for_event(db, SRV_EVENT_COMPLETED, &hooks, &n);
	if (rc < 0 || n == 0)
		return rc;
	c = srv_comparison_doc(db, comparison_id, NULL);
	if (!c) {
		rc = STORE_NOT_FOUND;
		goto done;
	}
	int64_t now = wall_ms();
	int queued = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t did;
		char url[4096], why[256];
		char *body = NULL;
		if ((rc = store_delivery_create(db, hooks[i].id, comparison_id, SRV_EVENT_COMPLETED,
		                                now, &did)) < 0)
			goto done;
		int b = build_one(cfg, &hooks[i], c, did, &body, url, sizeof url, why, sizeof why);
		if (b < 0) {
			rc = b;
			goto done;
		}
		if (b == 1) {
			srv_log("webhook %lld: delivery %lld not sent: %s", (long long)hooks[i].id,
			        (long long)did, why);
			rc = store_delivery_give_up(db, did, why);
		} else {
			rc = store_delivery_set_body(db, did, url, body);
			queued++;
		}
		free(body);
		if (rc < 0)
			goto done;
	}
	rc = queued;
done:
	json_decref(c);
	store_webhooks_free(hooks, n);
	return rc;
}

/* ---- sending ---------------------------------------------------------------------- */

struct sender {
	struct srv *s;
	CURL *curl;
	CURL *smtp;                   /* email deliveries: made on first use (new_smtp_handle) */
	char kept[RESPONSE_KEEP + 1]; /* start of the response body */
	size_t n_kept;
	int refused; /* the guard refused an address of this attempt */
	char refused_why[160];
};

/* libcurl asks for every socket it connects: refuse internal addresses
 * (the resolved one, whatever the URL said) unless allowed. */
static curl_socket_t on_open_socket(void *cls, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct sender *t = cls;
	if (purpose != CURLSOCKTYPE_IPCXN)
		return CURL_SOCKET_BAD;
	if (!t->s->cfg.webhook_allow_private) {
		struct sockaddr_storage ss;
		size_t len = a->addrlen < sizeof ss ? a->addrlen : sizeof ss;
		memset(&ss, 0, sizeof ss);
		memcpy(&ss, &a->addr, len);
		enum srv_addr_class c = srv_addr_classify((struct sockaddr *)&ss, len);
		if (c != SRV_ADDR_PUBLIC) {
			char ip[INET6_ADDRSTRLEN] = "?";
			if (ss.ss_family == AF_INET)
				inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip,
				          sizeof ip);
			else if (ss.ss_family == AF_INET6)
				inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip,
				          sizeof ip);
			t->refused = 1;
			snprintf(t->refused_why, sizeof t->refused_why,
			         "destination refused: %s is a %s address "
			         "(--webhook-allow-private allows it)",
			         ip, srv_addr_class_name(c));
			return CURL_SOCKET_BAD;
		}
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *cls)
{
	struct sender *t = cls;
	size_t n = size * nmemb;
	size_t room = RESPONSE_KEEP - t->n_kept;
	size_t take = n < room ? n : room;
	memcpy(t->kept + t->n_kept, data, take);
	t->n_kept += take;
	t->kept[t->n_kept] = 0;
	return n; /* read and drop the rest so the connection stays reusable */
}

static int stopping(struct srv *s)
{
	pthread_mutex_lock(&s->hooks->mu);
	int v = s->hooks->stopping;
	pthread_mutex_unlock(&s->hooks->mu);
	return v;
}

/* Abort a transfer when the daemon stops (checked about once a second
 * and on every progress event). */
static int on_progress(void *cls, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct sender *t = cls;
	(void)a, (void)b, (void)c, (void)d;
	return stopping(t->s) ? 1 : 0;
}

/* Printable one-line excerpt of a response body. */
static void excerpt(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	for (const char *p = in; *p && o + 1 < cap; p++)
		out[o++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? ' ' : *p;
	out[o] = 0;
}

/* Record an attempt: delivered when ok, else retried after the backoff
 * (a longer retry_after_s wins) while retry and attempts remain, else
 * failed.  status: the HTTP status (0 = none); err: what went wrong. */
static void record(struct sender *t, struct store *db, const struct store_delivery *d, int ok,
                   int retry, long status, const char *err, int64_t took, int64_t retry_after)
{
	const struct srv_config *cfg = &t->s->cfg;
	int attempts = d->attempts + 1;
	const char *outcome = "delivered";
	int64_t next = 0;
	if (!ok) {
		if (retry && attempts < (int)cfg->webhook_max_attempts) {
			int64_t delay = srv_webhook_backoff_ms(cfg->webhook_retry_base_ms, attempts,
			                                       random_u32());
			if (retry_after > 0 && retry_after * 1000 > delay)
				delay = retry_after * 1000 < BACKOFF_CAP_MS ? retry_after * 1000
				                                            : BACKOFF_CAP_MS;
			outcome = "pending";
			next = wall_ms() + delay;
		} else {
			outcome = "failed";
		}
	}
	int rc = store_delivery_record(db, d->id, (int)status, err[0] ? err : NULL, took, outcome,
	                               next);
	if (rc < 0 && rc != STORE_NOT_FOUND)
		srv_log("webhook delivery %lld: cannot record the attempt: %s", (long long)d->id,
		        store_errmsg(db));
	/* an email's url holds its recipients: the log names the delivery only */
	if (strcmp(outcome, "delivered"))
		srv_log("webhook delivery %lld attempt %d%s%s: %s (%s)", (long long)d->id, attempts,
		        strcmp(d->format, "email") ? " to " : "",
		        strcmp(d->format, "email") ? d->url : "", err, outcome);
}

/* The message handed to libcurl's SMTP upload. */
struct mail_reader {
	const struct buf *b;
	size_t pos;
};

static size_t on_mail_read(char *out, size_t size, size_t nmemb, void *cls)
{
	struct mail_reader *bs = cls;
	size_t n = size * nmemb, left = bs->b->len - bs->pos;
	if (n > left)
		n = left;
	memcpy(out, bs->b->data + bs->pos, n);
	bs->pos += n;
	return n;
}

static CURL *new_smtp_handle(struct sender *t);

/* Build and send one email delivery through --smtp-url and record the
 * outcome.  SMTP 5xx replies and messages that can never be built are
 * final; connection errors, timeouts and 4xx are retried. */
static void deliver_mail(struct sender *t, struct store *db, struct store_delivery *d)
{
	const struct srv_config *cfg = &t->s->cfg;
	struct buf msg = BUF_INIT;
	char **rcpt = NULL, err[CURL_ERROR_SIZE + 300] = "", curl_err[CURL_ERROR_SIZE] = "";
	size_t n_rcpt = 0;
	struct curl_slist *to = NULL;
	int64_t t0 = srv_now_ms();
	if (!cfg->smtp_url[0]) {
		record(t, db, d, 0, 0, 0, "the daemon runs without --smtp-url: email is off", 0, 0);
		return;
	}
	int b = srv_mail_build(t->s, db, d, &msg, &rcpt, &n_rcpt, err, sizeof err);
	if (b != 0) {
		record(t, db, d, 0, b < 0, 0, err, srv_now_ms() - t0, 0);
		buf_reset(&msg);
		return;
	}
	if (!t->smtp)
		t->smtp = new_smtp_handle(t);
	CURL *c = t->smtp;
	char from[400];
	snprintf(from, sizeof from, "<%s>", cfg->mail_from);
	int oom = 0;
	for (size_t i = 0; i < n_rcpt && !oom; i++) {
		char one[300];
		snprintf(one, sizeof one, "<%s>", rcpt[i]);
		struct curl_slist *more = curl_slist_append(to, one);
		oom = !more;
		to = more ? more : to;
	}
	struct mail_reader bs = {&msg, 0};
	CURLcode cr = CURLE_OUT_OF_MEMORY;
	if (c && to && !oom) {
		unsigned connect_ms =
		        cfg->webhook_timeout_ms < 5000 ? cfg->webhook_timeout_ms : 5000;
		curl_easy_setopt(c, CURLOPT_URL, cfg->smtp_url);
		curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
		curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_mail_read);
		curl_easy_setopt(c, CURLOPT_READDATA, &bs);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)msg.len);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)cfg->webhook_timeout_ms);
		cr = curl_easy_perform(c);
		curl_easy_setopt(c, CURLOPT_MAIL_RCPT, NULL);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	}
	int64_t took = srv_now_ms() - t0;
	curl_slist_free_all(to);
	srv_mail_rcpt_free(rcpt, n_rcpt);
	buf_reset(&msg);
	if (cr == CURLE_ABORTED_BY_CALLBACK) {
		store_delivery_release(db, d->id); /* stopping: not an attempt */
		return;
	}
	long code = 0;
	if (c)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (cr != CURLE_OK)
		snprintf(err, sizeof err, "SMTP%s%.0ld: %s", code ? " " : "", code,
		         curl_err[0] ? curl_err : curl_easy_strerror(cr));
	int retry = !(code >= 500 && code < 600) && cr != CURLE_UNSUPPORTED_PROTOCOL &&
	            cr != CURLE_URL_MALFORMAT;
	record(t, db, d, cr == CURLE_OK, retry, 0, err, took, 0);
}

/* POST one claimed delivery and record the outcome. */
static void deliver(struct sender *t, struct store *db, struct store_delivery *d)
{
	const struct srv_config *cfg = &t->s->cfg;
	struct curl_slist *hdrs = NULL;
	char line[1200], sig[65], err[CURL_ERROR_SIZE + RESPONSE_KEEP + 64] = "";
	char curl_err[CURL_ERROR_SIZE] = "";
	CURL *c = t->curl;
	long status = 0;
	t->n_kept = 0;
	t->kept[0] = 0;
	t->refused = 0;
	t->refused_why[0] = 0;

	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	hdrs = curl_slist_append(hdrs, "User-Agent: parity-webhook/1");
	hdrs = curl_slist_append(hdrs, "Expect:");
	snprintf(line, sizeof line, "X-Parity-Event: %s", d->event);
	hdrs = curl_slist_append(hdrs, line);
	snprintf(line, sizeof line, "X-Parity-Delivery: %lld", (long long)d->id);
	hdrs = curl_slist_append(hdrs, line);
	if (d->secret[0] && srv_hmac_sha256_hex(d->secret, strlen(d->secret), d->payload,
	                                        strlen(d->payload), sig) == 0) {
		snprintf(line, sizeof line, "X-Parity-Signature-256: sha256=%s", sig);
		hdrs = curl_slist_append(hdrs, line);
	}
	if (!strcmp(d->format, "github-status")) {
		hdrs = curl_slist_append(hdrs, "Accept: application/vnd.github+json");
		if (d->token && strlen(d->token) < sizeof line - 32 && !strpbrk(d->token, "\r\n")) {
			snprintf(line, sizeof line, "Authorization: Bearer %s", d->token);
			hdrs = curl_slist_append(hdrs, line);
		}
	}
	unsigned connect_ms = cfg->webhook_timeout_ms < 5000 ? cfg->webhook_timeout_ms : 5000;
	curl_easy_setopt(c, CURLOPT_URL, d->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, d->payload);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(d->payload));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)cfg->webhook_timeout_ms);

	int64_t t0 = srv_now_ms();
	CURLcode cr = curl_easy_perform(c);
	int64_t took = srv_now_ms() - t0;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	curl_slist_free_all(hdrs);
	memset(line, 0, sizeof line); /* held the bearer token */

	if (cr == CURLE_ABORTED_BY_CALLBACK) {
		/* stopping: not an attempt; the next start sends it */
		store_delivery_release(db, d->id);
		return;
	}
	curl_off_t retry_after = 0;
	if (cr == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry_after);
	} else if (t->refused) {
		snprintf(err, sizeof err, "%s", t->refused_why);
	} else {
		snprintf(err, sizeof err, "%s", curl_err[0] ? curl_err : curl_easy_strerror(cr));
	}
	int retry = cr == CURLE_OK ? srv_webhook_retryable(status)
	                           : !(cr == CURLE_UNSUPPORTED_PROTOCOL ||
	                               cr == CURLE_URL_MALFORMAT || t->refused);
	if (cr == CURLE_OK && !(status >= 200 && status < 300)) {
		char ex[RESPONSE_KEEP + 1];
		excerpt(t->kept, ex, sizeof ex);
		snprintf(err, sizeof err, "HTTP %ld%s%s", status, ex[0] ? ": " : "", ex);
	}
	record(t, db, d, cr == CURLE_OK && status >= 200 && status < 300, retry, status, err, took,
	       retry_after);
}

static void *sender_main(void *arg)
{
	struct sender *t = arg;
	struct srv *s = t->s;
	const struct srv_config *cfg = &s->cfg;
	int64_t lease = (int64_t)cfg->webhook_timeout_ms + LEASE_MARGIN_MS;
	for (;;) {
		pthread_mutex_lock(&s->hooks->mu);
		uint64_t seen = s->hooks->generation;
		int stop = s->hooks->stopping;
		pthread_mutex_unlock(&s->hooks->mu);
		if (stop)
			break;
		int64_t wait = IDLE_RECHECK_MS;
		struct store *db = srv_db_acquire(s);
		if (db) {
			struct store_delivery d;
			int rc = store_delivery_claim(db, wall_ms(), lease, &d);
			if (rc == 0) {
				if (!strcmp(d.format, "email"))
					deliver_mail(t, db, &d);
				else
					deliver(t, db, &d);
				store_delivery_free(&d);
				srv_db_release(s, db);
				continue;
			}
			if (rc != STORE_NOT_FOUND)
				srv_log("webhooks: cannot claim a delivery: %s", store_errmsg(db));
			int64_t due;
			if (store_delivery_next_due(db, &due) == 0) {
				wait = due - wall_ms();
				if (wait < 1)
					wait = 1;
				if (wait > IDLE_RECHECK_MS)
					wait = IDLE_RECHECK_MS;
			}
			srv_db_release(s, db);
		}
		pthread_mutex_lock(&s->hooks->mu);
		if (!s->hooks->stopping && s->hooks->generation == seen) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += wait / 1000;
			ts.tv_nsec += (wait % 1000) * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&s->hooks->cv, &s->hooks->mu, &ts);
		}
		pthread_mutex_unlock(&s->hooks->mu);
	}
	curl_easy_cleanup(t->curl);
	if (t->smtp)
		curl_easy_cleanup(t->smtp);
	free(t);
	return NULL;
}

static CURL *new_handle(struct sender *t)
{
	CURL *c = curl_easy_init();
	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, t);
	if (!t->s->cfg.webhook_allow_private)
		curl_easy_setopt(c, CURLOPT_PROXY, ""); /* connect directly: see the top */
	return c;
}

/* The SMTP handle: the operator's server (--smtp-url), so no netguard;
 * STARTTLS is required when credentials are set on smtp:// (they must not
 * cross the network in clear), tried otherwise; certificates verified. */
static CURL *new_smtp_handle(struct sender *t)
{
	const struct srv_config *cfg = &t->s->cfg;
	CURL *c = curl_easy_init();
	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_USE_SSL,
	                 cfg->smtp_user[0] ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_TRY);
	if (cfg->smtp_user[0]) {
		curl_easy_setopt(c, CURLOPT_USERNAME, cfg->smtp_user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, cfg->smtp_password);
	}
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
	return c;
}

int srv_webhooks_start(struct srv *s)
{
	pthread_condattr_t ca;
	pthread_mutex_init(&s->hooks->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->hooks->cv, &ca);
	pthread_condattr_destroy(&ca);
	s->hooks->stopping = 0;

	struct store *db = srv_db_acquire(s);
	if (!db)
		return -1;
	int n = 0;
	if (store_deliveries_release_all(db, &n) < 0)
		srv_log("webhooks: cannot clear stale leases: %s", store_errmsg(db));
	else if (n > 0)
		srv_log("webhooks: %d delivery(ies) interrupted by a restart will be retried", n);
	srv_db_release(s, db);

	unsigned want = s->cfg.webhook_workers ? s->cfg.webhook_workers : 1;
	s->hooks->threads = calloc(want, sizeof *s->hooks->threads);
	if (!s->hooks->threads)
		return -1;
	for (unsigned i = 0; i < want; i++) {
		struct sender *t = calloc(1, sizeof *t);
		if (!t)
			break;
		t->s = s;
		if (!(t->curl = new_handle(t))) {
			free(t);
			break;
		}
		if (pthread_create(&s->hooks->threads[s->hooks->n_threads], NULL, sender_main, t) !=
		    0) {
			curl_easy_cleanup(t->curl);
			free(t);
			break;
		}
		s->hooks->n_threads++;
	}
	return s->hooks->n_threads ? 0 : -1;
}

void srv_webhooks_stop(struct srv *s)
{
	if (!s->hooks->threads)
		return;
	pthread_mutex_lock(&s->hooks->mu);
	s->hooks->stopping = 1;
	pthread_cond_broadcast(&s->hooks->cv);
	pthread_mutex_unlock(&s->hooks->mu);
	for (size_t i = 0; i < s->hooks->n_threads; i++)
		pthread_join(s->hooks->threads[i], NULL);
	free(s->hooks->threads);
	s->hooks->threads = NULL;
	s->hooks->n_threads = 0;
	pthread_cond_destroy(&s->hooks->cv);
	pthread_mutex_destroy(&s->hooks->mu);
}

void srv_webhooks_notify(struct srv *s)
{
	if (!s->hooks->threads)
		return;
	pthread_mutex_lock(&s->hooks->mu);
	s->hooks->generation++;
	pthread_cond_broadcast(&s->hooks->cv);
	pthread_mutex_unlock(&s->hooks->mu);
}
