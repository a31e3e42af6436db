/* store.h - the one public header of the store: every database access of
 * parity goes through these domain verbs (runs, logs, parsed entries and
 * steps, warnings, comparisons as jobs and their result rows, baselines,
 * tokens, webhooks, raw logs).  It is an umbrella: the verbs live in one
 * header per resource (included at the end), each function documented
 * where it is declared; this file holds what they share.
 *
 * One struct store is one connection, to a SQLite file (WAL,
 * synchronous=FULL, foreign_keys=ON, busy_timeout 5000 ms) or to a
 * PostgreSQL database (store/BACKENDS.md), used by ONE thread at a time;
 * each thread opens its own.  The schema comes from migrations/sqlite/ or
 * migrations/postgresql/ NNN_*.sql, embedded in the binary and applied at
 * open.  Statements are prepared lazily once per connection and reset
 * after each use.  No engine type or call crosses this header: the
 * engine's own calls are private to store/ (store/pg/pg.h).
 *
 * Conventions: functions return 0 (STORE_OK) or a negative STORE_* code and
 * fill out-params; store_errmsg() then holds a human sentence.  Reads
 * return plain structs, never JSON: a single item as a *_view and a list
 * as a *_page, each owning an arena that holds every string and array of
 * it (NUL-terminated text as stored; serializers repair invalid UTF-8)
 * until its *_free; out-structs are zeroed first and must be freed
 * whatever the result (a zeroed one frees as a no-op).  The API documents
 * of these structs are written by web/json_views.h, web/json_act.h and
 * web/json_train.h; every page, report, mail body and CSV renders the
 * structs themselves (the typed rule: store_views.h, at the end).
 * Free-form JSON stays stored text: run meta, an activation comparison's
 * policy (results are typed: migrations 007, 009; a training policy is
 * matcher/trainpolicy.h's stored form).  The one read
 * that still builds JSON is store_ops_list (a new jansson reference).
 * Lists page by cursor: cursors are opaque strings valid for the list
 * type that produced them ("" or null = last page); limit <= 0 means 50,
 * values above 1000 are clamped to 1000.  A page also ends early once its
 * items would pass STORE_PAGE_BYTES (each list documents its size
 * estimate; a page always holds at least one item, however large);
 * next_cursor then continues after the last item given, so following
 * cursors still reaches every item.  No SQLite type or SQL text crosses
 * these headers: each backend implements the same verbs.
 * Nothing here aborts on bad input or database failures. */
#ifndef PARITY_STORE_H
#define PARITY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "actcheck.h"
#include "actlog.h"
#include "buf.h"
#include "match.h"
#include "noisecheck.h"
#include "traincheck.h"
#include "trainlog.h"

struct store;

/* Byte budget of one list page: the estimated size of its items. */
#define STORE_PAGE_BYTES (1024 * 1024)

/* Error codes (suggested HTTP mapping in brackets). */
enum {
	STORE_OK = 0,
	STORE_ERROR = -1,       /* SQLite / OOM / internal [500] */
	STORE_NOT_FOUND = -2,   /* no such run / log / comparison [404] */
	STORE_DUPLICATE = -3,   /* UNIQUE violated, e.g. two logs for one rank [409] */
	STORE_BAD_CURSOR = -4,  /* cursor text not produced by this list [400] */
	STORE_BAD_REGEX = -5,   /* key regex does not compile; errmsg says why [400] */
	STORE_INVALID = -6,     /* bad argument: unknown kind/phase/status [400] */
	STORE_IN_USE = -7,      /* run referenced by a comparison [409] */
	STORE_TOO_NEW = -8,     /* database schema newer than this binary [start-up] */
	STORE_BUSY = -9,        /* locked longer than the busy timeout [503] */
	STORE_FULL = -10,       /* the disk is full (SQLITE_FULL) [507] */
	STORE_TOO_COSTLY = -11, /* key regex over a limit (length, size, steps,
	                         * time budget); errmsg says which [400] */
	STORE_CANCELLED = -12,  /* the key filter's cancel callback said stop
	                         * (the client left) [no reply] */
	STORE_IO = -13,         /* a file of the raw-log store could not be read,
	                         * written or moved (logged) [507] */
};

/* The verbs, one header per resource, each function documented where it
 * is declared. */
#include "store_filter.h"
#include "store_db.h"
#include "store_runs.h"
#include "store_retention.h"
#include "store_metrics.h"
#include "store_results.h"
#include "store_comparisons.h"
#include "store_baselines.h"
#include "store_auth.h"
#include "store_webhooks.h"
#include "store_rawlog.h"
#include "store_engine.h"

/* ---- typed views (store/store_views.h, store/views.c; issue 24) -------- */
#include "store_views.h"

#endif
