/* cli_token.c - `parity token create|list|revoke`: manage API tokens in a
 * data directory's database directly (no daemon needed; a running daemon
 * sees the change on its next request, since every check reads SQLite).
 *
 * The token text is printed once, on stdout, by `create`; only its
 * SHA-256 is stored, so a lost token cannot be shown again: revoke it and
 * create another.  Exit status: 0 done, 1 refused (duplicate name, no such
 * token), 2 usage or database error. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto_lib.h"
#include "json_views.h"
#include "store.h"
#include "cli.h"

struct token_opts {
	const char *name, *data, *db;
	int json;
};

static const struct srv_option token_opts[] = {
        {.name = "name",
         .type = SRV_OPT_STRING,
         .offset = offsetof(struct token_opts, name),
         .metavar = "NAME",
         .help = "the token's name (create; revoke takes it as NAME)."},
        SRV_CLI_STORE_OPTIONS(struct token_opts),
        {.name = "json",
         .type = SRV_OPT_BOOL,
         .offset = offsetof(struct token_opts, json),
         .help = "list: print the tokens as JSON."},
        {.name = NULL},
};

const struct srv_optcmd srv_token_cmd = {
        .name = "token",
        .synopsis = "usage: parity token create --name NAME [--data DIR | --db URL]\n"
                    "       parity token list [--data DIR | --db URL] [--json]\n"
                    "       parity token revoke NAME [--data DIR | --db URL]\n",
        .about = "API tokens authorise writes (and reads with --private-reads) on a\n"
                 "daemon using the same data directory.  `create` prints the token once;\n"
                 "only its SHA-256 is kept.  Send it as \"Authorization: Bearer <token>\"\n"
                 "or give it to `parity submit --token` / PARITY_TOKEN.\n",
        .opts = token_opts,
};

static void usage(FILE *out)
{
	srv_options_usage(&srv_token_cmd, out);
}

/* Open DIR/parity.db, or the PostgreSQL database when dir is a
 * postgresql:// URL (--db, PARITY_DB; it must exist); create the
 * directory only when asked to. */
static struct store *open_db(const char *dir, int create)
{
	char path[4200], err[512];
	if (store_is_url(dir)) {
		struct store *db = NULL;
		if (store_open_existing(dir, &db, err, sizeof err) < 0) {
			fprintf(stderr, "parity token: %s\n", err);
			return NULL;
		}
		return db;
	}
	if (create && mkdir(dir, 0750) < 0 && errno != EEXIST) {
		fprintf(stderr, "parity token: cannot create %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	snprintf(path, sizeof path, "%s/parity.db", dir);
	if (!create && access(path, F_OK) < 0) {
		fprintf(stderr, "parity token: no database at %s (wrong --data?)\n", path);
		return NULL;
	}
	struct store *db = NULL;
	if (store_open(path, &db, err, sizeof err) < 0) {
		fprintf(stderr, "parity token: %s\n", err);
		return NULL;
	}
	return db;
}

static int cmd_create(const char *dir, const char *name)
{
	char token[SRV_TOKEN_LEN + 1], hex[65];
	int status = 2;
	struct store *db = NULL;
	if (!name || !*name) {
		fprintf(stderr, "parity token create: --name is required\n");
		return 2;
	}
	if (srv_token_generate(token, sizeof token) < 0 ||
	    srv_sha256_hex(token, strlen(token), hex) < 0) {
		fprintf(stderr, "parity token create: cannot generate a random token\n");
		goto done;
	}
	if (!(db = open_db(dir, 1)))
		goto done;
	int rc = store_token_create(db, name, hex, NULL);
	if (rc < 0) {
		fprintf(stderr, "parity token create: %s\n", store_errmsg(db));
		status = rc == STORE_DUPLICATE || rc == STORE_INVALID ? 1 : 2;
		goto done;
	}
	printf("%s\n", token);
	fflush(stdout);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "token '%s' created: store it now, it is not shown again\n", name);
	status = 0;
done:
	OPENSSL_cleanse(token, sizeof token);
	store_close(db);
	return status;
}

static int cmd_list(const char *dir, int as_json)
{
	struct store *db = open_db(dir, 0);
	struct store_token_list list;
	int status = 2;
	if (!db)
		return 2;
	if (store_tokens_list(db, &list) < 0) {
		fprintf(stderr, "parity token list: %s\n", store_errmsg(db));
		goto done;
	}
	if (as_json) {
		json_t *out = web_tokens_json(&list);
		char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
		json_decref(out);
		if (!text) {
			fprintf(stderr, "parity token list: out of memory\n");
			goto done;
		}
		printf("%s\n", text);
		free(text);
	} else {
		printf("%-24s %-22s %s\n", "NAME", "CREATED", "REVOKED");
		for (size_t i = 0; i < list.n_tokens; i++) {
			const struct store_token_info *t = &list.tokens[i];
			printf("%-24s %-22s %s\n", t->name, t->created_at,
			       t->revoked_at ? t->revoked_at : "-");
		}
	}
	status = 0;
done:
	store_token_list_free(&list);
	store_close(db);
	return status;
}

static int cmd_revoke(const char *dir, const char *name)
{
	struct store *db = open_db(dir, 0);
	if (!db)
		return 2;
	int rc = store_token_revoke(db, name);
	int status = 0;
	if (rc < 0) {
		fprintf(stderr, "parity token revoke: %s\n", store_errmsg(db));
		status = rc == STORE_NOT_FOUND ? 1 : 2;
	} else {
		printf("token '%s' revoked\n", name);
	}
	store_close(db);
	return status;
}

/* The store of --db, else --data, else PARITY_DB, else PARITY_DATA (a flag
 * wins over the environment, as everywhere). */
static const char *pick_store(const struct token_opts *o, const struct srv_optres *res)
{
	if (srv_options_source(&srv_token_cmd, res, "db") == SRV_OPT_FROM_FLAG)
		return o->db;
	if (srv_options_source(&srv_token_cmd, res, "data") == SRV_OPT_FROM_FLAG)
		return o->data;
	return o->db ? o->db : o->data;
}

/* parity token SUB ...: argv[0] = "token". */
static int token_run(const struct token_opts *o, const char *dir, const char *const *operands,
                     size_t n)
{
	if (n == 0) {
		usage(stderr);
		return 2;
	}
	const char *sub = operands[0];
	if (!strcmp(sub, "create") || !strcmp(sub, "list")) {
		if (n > 1) {
			fprintf(stderr, "parity token %s: unexpected argument '%s'\n", sub,
			        operands[1]);
			return 2;
		}
		return !strcmp(sub, "create") ? cmd_create(dir, o->name) : cmd_list(dir, o->json);
	}
	if (!strcmp(sub, "revoke")) {
		const char *target = n > 1 ? operands[1] : o->name;
		if (!target || n > 2) {
			fprintf(stderr, "parity token revoke: give exactly one token NAME\n");
			return 2;
		}
		return cmd_revoke(dir, target);
	}
	fprintf(stderr, "parity token: unknown sub-command '%s'\n", sub);
	usage(stderr);
	return 2;
}

int srv_cli_token(int argc, char **argv)
{
	struct token_opts o;
	struct srv_optres res = {0};
	int rc = srv_options_parse(&srv_token_cmd, &o, argc, argv, &res);
	if (rc == SRV_OPTS_HELP) {
		usage(stdout);
		rc = 0;
	} else if (rc < 0) {
		fprintf(stderr, "%s\n", res.err);
		usage(stderr);
		rc = 2;
	} else if (srv_options_source(&srv_token_cmd, &res, "db") == SRV_OPT_FROM_FLAG &&
	           !store_is_url(o.db)) {
		fprintf(stderr, "parity token: --db takes a postgresql:// URL\n");
		rc = 2;
	} else {
		rc = token_run(&o, pick_store(&o, &res), res.operands, res.n_operands);
	}
	srv_options_free(&srv_token_cmd, &o, &res);
	return rc;
}
