/* metrics.h - the daemon's own counters (lock-free atomics embedded in
 * struct srv) and the Prometheus text exposition of GET /metrics.
 * Database-derived numbers (comparisons by status and verdict, queue
 * depth, webhook deliveries, stored bytes) are read at scrape time. */
#ifndef PARITY_METRICS_H
#define PARITY_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#define SRV_METRICS_ROUTES   64 /* >= number of routes + 1 (unmatched) */
#define SRV_METRICS_STATUSES 24
#define SRV_METRICS_BUCKETS  12

struct srv_histogram {
	atomic_uint_fast64_t buckets[SRV_METRICS_BUCKETS]; /* cumulative at read time */
	atomic_uint_fast64_t count;
	atomic_uint_fast64_t sum_us;
};

struct srv_metrics {
	atomic_uint_fast64_t requests[SRV_METRICS_ROUTES][SRV_METRICS_STATUSES];
	struct srv_histogram request_seconds;
	struct srv_histogram job_seconds;
	atomic_uint_fast64_t bytes_in, bytes_out;
	atomic_uint_fast64_t ingested_bytes, ingested_entries, ingested_steps, ingested_runs;
	atomic_uint_fast64_t uploads_active;       /* gauge */
	atomic_uint_fast64_t uploads_refused_busy; /* 503s from the ingest cap */
	/* connections cut by the daemon (guard.c, http.c) */
	atomic_uint_fast64_t cut_header_timeout;  /* headers not complete in time */
	atomic_uint_fast64_t cut_too_slow;        /* body below the minimum rate */
	atomic_uint_fast64_t cut_request_timeout; /* body not complete in time */
	atomic_uint_fast64_t cut_answered_early;  /* error sent while the body arrived */
	atomic_uint_fast64_t jobs_done, jobs_failed;
	atomic_uint_fast64_t longpolls_waiting; /* gauge: suspended ?wait= requests */
};

struct srv;
struct srv_req;

/* Record a finished request (route index, status, duration). */
void srv_metrics_request(struct srv_metrics *m, int route_index, unsigned status,
                         int64_t duration_us, uint64_t bytes_in, uint64_t bytes_out);
void srv_metrics_observe(struct srv_histogram *h, int64_t duration_us);

/* GET /metrics */
int srv_h_metrics(struct srv_req *r);

#endif
