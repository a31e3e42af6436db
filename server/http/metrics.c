/* metrics.c - counters and GET /metrics in the Prometheus text format. */

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"
#include "http.h"

static const unsigned status_codes[SRV_METRICS_STATUSES - 1] = {
        200, 201, 202, 204, 206, 301, 302, 304, 400, 401, 403, 404,
        405, 409, 413, 415, 421, 429, 431, 500, 501, 503, 505, 507,
};

/* Upper bounds in microseconds; the last bucket is +Inf. */
static const int64_t bucket_us[SRV_METRICS_BUCKETS - 1] = {
        1000, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 10000000,
};

static int status_slot(unsigned status)
{
	for (int i = 0; i < SRV_METRICS_STATUSES - 1; i++)
		if (status_codes[i] == status)
			return i;
	return SRV_METRICS_STATUSES - 1; /* other */
}

void srv_metrics_observe(struct srv_histogram *h, int64_t us)
{
	int b = 0;
	while (b < SRV_METRICS_BUCKETS - 1 && us > bucket_us[b])
		b++;
	atomic_fetch_add(&h->buckets[b], 1);
	atomic_fetch_add(&h->count, 1);
	atomic_fetch_add(&h->sum_us, (uint_fast64_t)(us > 0 ? us : 0));
}

void srv_metrics_request(struct srv_metrics *m, int route_index, unsigned status,
                         int64_t duration_us, uint64_t bytes_in, uint64_t bytes_out)
{
	if (route_index < 0 || route_index >= SRV_METRICS_ROUTES)
		route_index = SRV_METRICS_ROUTES - 1;
	atomic_fetch_add(&m->requests[route_index][status_slot(status)], 1);
	srv_metrics_observe(&m->request_seconds, duration_us);
	atomic_fetch_add(&m->bytes_in, bytes_in);
	atomic_fetch_add(&m->bytes_out, bytes_out);
}

static void histogram(struct buf *b, const char *name, const char *help, struct srv_histogram *h)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	uint64_t cum = 0;
	for (int i = 0; i < SRV_METRICS_BUCKETS; i++) {
		cum += atomic_load(&h->buckets[i]);
		if (i < SRV_METRICS_BUCKETS - 1)
			buf_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name,
			           (double)bucket_us[i] / 1e6, (unsigned long long)cum);
		else
			buf_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name,
			           (unsigned long long)cum);
	}
	buf_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, (double)atomic_load(&h->sum_us) / 1e6,
	           name, (unsigned long long)atomic_load(&h->count));
}

static void counter(struct buf *b, const char *name, const char *type, const char *help, uint64_t v)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type, name,
	           (unsigned long long)v);
}

/* label value escaping per the exposition format: \ " and newline */
static void label(struct buf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			buf_putc(b, '\\');
		if (*v == '\n') {
			buf_puts(b, "\\n");
			continue;
		}
		buf_putc(b, *v);
	}
}

static void db_gauges(struct buf *b, const char *name, const char *help, const char *lbl,
                      const struct store_counts *c)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (size_t i = 0; i < c->n; i++) {
		buf_printf(b, "%s{%s=\"", name, lbl);
		label(b, c->v[i].label);
		buf_printf(b, "\"} %lld\n", (long long)c->v[i].n);
	}
}

/* The count of label in c (0 when absent). */
static int64_t count_of(const struct store_counts *c, const char *label)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].label, label))
			return c->v[i].n;
	return 0;
}

int srv_h_metrics(struct srv_req *r)
{
	struct srv *s = r->srv;
	struct srv_metrics *m = &s->metrics;
	struct buf b = BUF_INIT;

	buf_puts(&b, "# HELP parity_http_requests_total HTTP requests by route and status.\n"
	             "# TYPE parity_http_requests_total counter\n");
	for (int ri = 0; ri < SRV_METRICS_ROUTES; ri++) {
		const struct srv_route *rt = srv_route_at(r->srv, (size_t)ri);
		for (int si = 0; si < SRV_METRICS_STATUSES; si++) {
			uint64_t v = atomic_load(&m->requests[ri][si]);
			if (!v)
				continue;
			buf_printf(&b, "parity_http_requests_total{method=\"%s\",route=\"",
			           rt ? rt->method : "");
			label(&b, rt ? rt->pattern : "unmatched");
			if (si < SRV_METRICS_STATUSES - 1)
				buf_printf(&b, "\",status=\"%u\"} %llu\n", status_codes[si],
				           (unsigned long long)v);
			else
				buf_printf(&b, "\",status=\"other\"} %llu\n",
				           (unsigned long long)v);
		}
	}
	histogram(&b, "parity_http_request_duration_seconds",
	          "Time from the first byte of a request to its completion.", &m->request_seconds);
	counter(&b, "parity_http_received_bytes_total", "counter", "Request body bytes received.",
	        atomic_load(&m->bytes_in));
	counter(&b, "parity_http_sent_bytes_total", "counter",
	        "Response bytes sent (bodies of known size).", atomic_load(&m->bytes_out));
	counter(&b, "parity_ingested_runs_total", "counter", "Runs stored.",
	        atomic_load(&m->ingested_runs));
	counter(&b, "parity_ingested_bytes_total", "counter", "Raw log bytes stored.",
	        atomic_load(&m->ingested_bytes));
	counter(&b, "parity_ingested_entries_total", "counter", "Activation entries stored.",
	        atomic_load(&m->ingested_entries));
	counter(&b, "parity_ingested_steps_total", "counter", "Training steps stored.",
	        atomic_load(&m->ingested_steps));
	counter(&b, "parity_ingest_staged_total", "counter",
	        "Runs whose entries were inserted while their body streamed in.",
	        atomic_load(&m->ingest_staged));
	counter(&b, "parity_ingest_stage_fallbacks_total", "counter",
	        "Uploads whose insert stage gave way (another writer, a slow body): the commit "
	        "inserted their entries.",
	        atomic_load(&m->ingest_stage_fallbacks));
	counter(&b, "parity_ingest_stage_holding", "gauge",
	        "Uploads whose insert stage holds the database's write lock while the body "
	        "streams in.",
	        atomic_load(&m->ingest_stage_holding));
	counter(&b, "parity_uploads_in_progress", "gauge", "Uploads being received or stored.",
	        atomic_load(&m->uploads_active));
	counter(&b, "parity_uploads_refused_busy_total", "counter",
	        "Uploads refused with 503 because the ingest cap was reached.",
	        atomic_load(&m->uploads_refused_busy));
	buf_printf(&b,
	           "# HELP parity_connections_cut_total Connections the daemon closed before "
	           "the request was complete.\n"
	           "# TYPE parity_connections_cut_total counter\n"
	           "parity_connections_cut_total{reason=\"header_timeout\"} %llu\n"
	           "parity_connections_cut_total{reason=\"too_slow\"} %llu\n"
	           "parity_connections_cut_total{reason=\"request_timeout\"} %llu\n"
	           "parity_connections_cut_total{reason=\"answered_early\"} %llu\n",
	           (unsigned long long)atomic_load(&m->cut_header_timeout),
	           (unsigned long long)atomic_load(&m->cut_too_slow),
	           (unsigned long long)atomic_load(&m->cut_request_timeout),
	           (unsigned long long)atomic_load(&m->cut_answered_early));
	histogram(&b, "parity_job_duration_seconds", "Time to compute one comparison.",
	          &m->job_seconds);
	buf_printf(&b,
	           "# HELP parity_jobs_total Comparison jobs finished by this process.\n"
	           "# TYPE parity_jobs_total counter\n"
	           "parity_jobs_total{outcome=\"done\"} "
	           "%llu\nparity_jobs_total{outcome=\"failed\"} %llu\n",
	           (unsigned long long)atomic_load(&m->jobs_done),
	           (unsigned long long)atomic_load(&m->jobs_failed));

	counter(&b, "parity_long_polls_waiting", "gauge",
	        "GET /comparisons/{id}?wait= requests suspended until their comparison ends.",
	        atomic_load(&m->longpolls_waiting));
	size_t db_open = 0, db_idle = 0;
	uint64_t db_refused = 0;
	srv_db_pool_stats(&s->db, &db_open, &db_idle, &db_refused);
	counter(&b, "parity_db_connections_open", "gauge",
	        "Database connections open (in use + idle), at most --max-db-connections.",
	        (uint64_t)db_open);
	counter(&b, "parity_db_connections_idle", "gauge", "Database connections open and unused.",
	        (uint64_t)db_idle);
	counter(&b, "parity_db_pool_exhausted_total", "counter",
	        "Times every database connection was in use for longer than a caller would wait.",
	        db_refused);

	struct store *db = r->db ? r->db : (r->db = srv_db_acquire(s));
	struct store_metrics agg;
	if (db && store_metrics(db, &agg) == 0) {
		db_gauges(&b, "parity_comparisons", "Comparisons by status.", "status",
		          &agg.comparisons);
		db_gauges(&b, "parity_comparison_verdicts", "Finished comparisons by verdict.",
		          "verdict", &agg.verdicts);
		counter(&b, "parity_queue_depth", "gauge", "Comparisons waiting for a worker.",
		        (uint64_t)count_of(&agg.comparisons, "queued"));
		db_gauges(&b, "parity_webhook_deliveries", "Webhook deliveries by outcome.",
		          "status", &agg.deliveries);
		counter(&b, "parity_raw_bytes", "gauge",
		        "Bytes of raw uploads kept (each file once).", (uint64_t)agg.raw_bytes);
	}
	uint64_t db_bytes = 0;
	static const char *const suffixes[] = {"", "-wal", "-shm"};
	int have_size = db && agg.db_bytes >= 0;
	if (have_size)
		db_bytes = (uint64_t)agg.db_bytes; /* PostgreSQL: pg_database_size */
	int file = store_target_has(s->db.path, STORE_TRAIT_LOCAL_FILE);
	for (size_t i = 0; !have_size && file && i < 3; i++) {
		char p[4300];
		struct stat st;
		snprintf(p, sizeof p, "%s%s", s->db.path, suffixes[i]);
		if (stat(p, &st) == 0)
			db_bytes += (uint64_t)st.st_size;
	}
	counter(&b, "parity_db_size_bytes", "gauge",
	        "Database size: the SQLite file with its WAL, or pg_database_size on "
	        "PostgreSQL.",
	        db_bytes);
	return srv_reply_buf(r, 200, "text/plain; version=0.0.4; charset=utf-8", &b);
}
