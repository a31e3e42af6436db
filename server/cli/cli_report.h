/* cli_report.h - the offline self-contained HTML reports of `parity
 * compare ... -o diff.html` (server/cli/cli_report.c): rendered by web/ from
 * the matcher's results and written to a FILE as rows are iterated.  No
 * store, no libmicrohttpd: the CLI links only this, web/ and matcher/.
 *
 * Each rank's part holds every row (web/report.c embeds them as data that
 * the report's script renders virtually).  Inputs are only read.  Functions return 0, or -1 on OOM
 * or a write error (errno from stdio). */
#ifndef PARITY_CLI_REPORT_H
#define PARITY_CLI_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "json_act.h"
#include "buf.h"

struct matcher_train_result;
struct matcher_trainrun;

/* One activation match (two log files): the whole report. */
int srv_report_act_file(FILE *f, const struct store_act_input *d);

/* Several ranks (two rank directories), a section per rank, written in
 * three steps so only one rank's logs need to be in memory at a time:
 *   srv_report_act_all_begin  the head (verdict, counts of every rank,
 *                             filter bar); top is the typed multi-rank
 *                             result (store_act_build_rank per rank);
 *   srv_report_act_rank       rank's section: its note, counts, first
 *                             divergence, profile and rows (res);
 *   srv_report_act_all_end    the page's end.
 * b is the caller's scratch buffer (BUF_INIT before begin, buf_reset after
 * end); top is borrowed. */
int srv_report_act_all_begin(FILE *f, struct buf *b, const struct store_act_result *top);
int srv_report_act_rank(FILE *f, struct buf *b, const struct store_act_result *top, int rank,
                        const struct matcher_match_result *res);
int srv_report_act_all_end(FILE *f, struct buf *b);

/* A training check: every common step. */
int srv_report_train_file(FILE *f, const struct matcher_train_result *r,
                          const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                          const char *name_a, const char *name_b);

/* The PDF reports (server/cli/cli_pdf.c), the documents of web/pdf.h the
 * daemon serves as report.pdf.  Training: every common step in the
 * charts, the first WEB_PDF_STEP_ROWS in the table. */
int srv_report_train_pdf(FILE *f, const struct matcher_train_result *r,
                         const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                         const char *name_a, const char *name_b);
/* Activation: top the typed result of every rank, prof[n_prof] their
 * profiles (NULL: none); rank_rows(ctx, i, ...) writes rank i's
 * non-matching rows (srv_pdf_act_rows on that rank's loaded result). */
struct web_pdf;
struct web_profile;
struct web_profile_acc;
int srv_report_act_pdf(FILE *f, const struct store_act_result *top, const struct web_profile *prof,
                       size_t n_prof, const char *name_a, const char *name_b,
                       int (*rank_rows)(void *ctx, size_t i, struct web_pdf *p, int64_t *listed,
                                        int64_t *more),
                       void *ctx);
/* A rank's profile from its match result into acc (web_profile_acc_init
 * done here; free with web_profile_acc_free).  0 or -1. */
int srv_pdf_act_profile(const struct matcher_match_result *res, struct web_profile_acc *acc);
/* Rank's non-matching rows, in row order, into the open rows table while
 * *listed < WEB_PDF_ACT_ROWS; the rest counted in *more. */
int srv_pdf_act_rows(struct web_pdf *p, int rank, const struct matcher_match_result *res,
                     int64_t *listed, int64_t *more);
/* 1 when path ends in .pdf (any case): -o writes the PDF report. */
int srv_report_is_pdf_path(const char *path);

/* 1 when path ends in .html or .htm (any case): -o picks the report. */
int srv_report_is_html_path(const char *path);

#endif
