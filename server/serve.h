/* serve.h - the composition root of server/ (main.c, serve.c, routes.c):
 * the only files that know every room.  serve.c assembles struct srv
 * from the rooms' state and starts them in order; routes.c is the route
 * table, naming the handlers of api/ and ui/ and the body sink of ingest/;
 * main.c dispatches the subcommands (serve here, the rest in cli/). */
#ifndef PARITY_SRV_SERVE_H
#define PARITY_SRV_SERVE_H

struct srv_route;

/* parity serve: the HTTP daemon (serve.c).  The argv tail starting at
 * "serve"; returns the exit status (0 after SIGTERM/SIGINT, 2 on bad
 * flags, 1 when it cannot start). */
int srv_cli_serve(int argc, char **argv);

/* The route table (routes.c): NULL-method-terminated, static. */
const struct srv_route *srv_routes(void);

#endif
