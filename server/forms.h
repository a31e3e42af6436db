/* forms.h - the browser's form posts (server/forms.c): how a write that
 * came from an HTML form is answered, the run / comparison list pages and
 * the delete confirmations.
 *
 * A POST whose query has html=1 (the forms' actions carry it) or whose
 * Accept header starts with text/html (a browser navigating) is a form
 * post.  Its success is a 303 See Other to the new resource's page (the
 * "ui" URL of a 201/202, the list page after a delete) and its error an
 * HTML page with the message and a link back, with the same status the
 * API gives.  The same-origin rules (csrf.h) apply as to every write. */
#ifndef PARITY_FORMS_H
#define PARITY_FORMS_H

#include <jansson.h>

#include "buf.h"

struct srv_req;

/* 1 when r is a form post (see above), else 0. */
int srv_form_wants_html(struct srv_req *r);
/* 303 See Other to location (an absolute URL or a path). */
int srv_form_see_other(struct srv_req *r, const char *location);
/* The error object err ({"error":{code,message}}, taken) as an HTML page
 * with status. */
int srv_form_error_page(struct srv_req *r, unsigned status, json_t *err);
/* A run's meta as the upload form writes it: text that does not start
 * with '{' is read as lines "key=value" (or "key: value"; blank lines
 * skipped, keys and values trimmed, a later key replaces an earlier one)
 * and meta is replaced by that JSON object's text.  JSON text is left as
 * it is.  0, or -1 with a sentence in msg (a line without '=' or ':', an
 * empty key, out of memory). */
int srv_meta_from_lines(struct buf *meta, char *msg, size_t cap);

/* Remove the members of a decoded form whose value is "" (a form sends
 * every field, the empty ones too: empty means absent). */
void srv_form_drop_empty(json_t *obj);

/* GET /ui/runs?q=&kind=&cursor=, GET /ui/comparisons?q=&kind=&verdict=&status=&cursor= */
int srv_ui_runs(struct srv_req *r);
int srv_ui_comparisons(struct srv_req *r);
/* GET /ui/runs/{id}/delete, /ui/comparisons/{id}/delete: the confirmation;
 * POST to the same path: the delete (DELETE /runs/{id} etc.), then 303 to
 * the list. */
int srv_ui_run_delete_page(struct srv_req *r);
int srv_ui_comparison_delete_page(struct srv_req *r);
int srv_ui_run_delete_post(struct srv_req *r);
int srv_ui_comparison_delete_post(struct srv_req *r);

#endif
