/* pq_lib.h - libpq as store/pg/ calls it, loaded at the first call
 * (store/dynlib.h): a daemon on SQLite and the offline CLI never load it
 * (nor what it links: OpenSSL's libssl, Kerberos, LDAP).  pg_int.h
 * includes it in place of libpq-fe.h; every call below goes through the
 * table and is checked against libpq's own prototype. */
#ifndef PARITY_STORE_PG_PQ_LIB_H
#define PARITY_STORE_PG_PQ_LIB_H

#include <libpq-fe.h>

#include "dynlib.h"

#define STORE_PQ_FUNCS(X)                                                                          \
	X(PQcancel)                                                                                \
	X(PQclear)                                                                                 \
	X(PQcmdStatus)                                                                             \
	X(PQcmdTuples)                                                                             \
	X(PQconnectdbParams)                                                                       \
	X(PQconsumeInput)                                                                          \
	X(PQerrorMessage)                                                                          \
	X(PQexec)                                                                                  \
	X(PQexecParams)                                                                            \
	X(PQexecPrepared)                                                                          \
	X(PQfinish)                                                                                \
	X(PQfreeCancel)                                                                            \
	X(PQfreemem)                                                                               \
	X(PQftype)                                                                                 \
	X(PQgetCancel)                                                                             \
	X(PQgetResult)                                                                             \
	X(PQgetisnull)                                                                             \
	X(PQgetlength)                                                                             \
	X(PQgetvalue)                                                                              \
	X(PQnfields)                                                                               \
	X(PQnotifies)                                                                              \
	X(PQntuples)                                                                               \
	X(PQprepare)                                                                               \
	X(PQputCopyData)                                                                           \
	X(PQputCopyEnd)                                                                            \
	X(PQresultErrorField)                                                                      \
	X(PQresultErrorMessage)                                                                    \
	X(PQresultStatus)                                                                          \
	X(PQsendQueryPrepared)                                                                     \
	X(PQsetNoticeProcessor)                                                                    \
	X(PQsetSingleRowMode)                                                                      \
	X(PQsocket)                                                                                \
	X(PQstatus)                                                                                \
	X(PQtransactionStatus)                                                                     \
	X(PQunescapeBytea)

DYNLIB_DECLARE(store_pq, STORE_PQ_FUNCS)

#define PQcancel             DYNLIB_CALL(store_pq, PQcancel)
#define PQclear              DYNLIB_CALL(store_pq, PQclear)
#define PQcmdStatus          DYNLIB_CALL(store_pq, PQcmdStatus)
#define PQcmdTuples          DYNLIB_CALL(store_pq, PQcmdTuples)
#define PQconnectdbParams    DYNLIB_CALL(store_pq, PQconnectdbParams)
#define PQconsumeInput       DYNLIB_CALL(store_pq, PQconsumeInput)
#define PQerrorMessage       DYNLIB_CALL(store_pq, PQerrorMessage)
#define PQexec               DYNLIB_CALL(store_pq, PQexec)
#define PQexecParams         DYNLIB_CALL(store_pq, PQexecParams)
#define PQexecPrepared       DYNLIB_CALL(store_pq, PQexecPrepared)
#define PQfinish             DYNLIB_CALL(store_pq, PQfinish)
#define PQfreeCancel         DYNLIB_CALL(store_pq, PQfreeCancel)
#define PQfreemem            DYNLIB_CALL(store_pq, PQfreemem)
#define PQftype              DYNLIB_CALL(store_pq, PQftype)
#define PQgetCancel          DYNLIB_CALL(store_pq, PQgetCancel)
#define PQgetResult          DYNLIB_CALL(store_pq, PQgetResult)
#define PQgetisnull          DYNLIB_CALL(store_pq, PQgetisnull)
#define PQgetlength          DYNLIB_CALL(store_pq, PQgetlength)
#define PQgetvalue           DYNLIB_CALL(store_pq, PQgetvalue)
#define PQnfields            DYNLIB_CALL(store_pq, PQnfields)
#define PQnotifies           DYNLIB_CALL(store_pq, PQnotifies)
#define PQntuples            DYNLIB_CALL(store_pq, PQntuples)
#define PQprepare            DYNLIB_CALL(store_pq, PQprepare)
#define PQputCopyData        DYNLIB_CALL(store_pq, PQputCopyData)
#define PQputCopyEnd         DYNLIB_CALL(store_pq, PQputCopyEnd)
#define PQresultErrorField   DYNLIB_CALL(store_pq, PQresultErrorField)
#define PQresultErrorMessage DYNLIB_CALL(store_pq, PQresultErrorMessage)
#define PQresultStatus       DYNLIB_CALL(store_pq, PQresultStatus)
#define PQsendQueryPrepared  DYNLIB_CALL(store_pq, PQsendQueryPrepared)
#define PQsetNoticeProcessor DYNLIB_CALL(store_pq, PQsetNoticeProcessor)
#define PQsetSingleRowMode   DYNLIB_CALL(store_pq, PQsetSingleRowMode)
#define PQsocket             DYNLIB_CALL(store_pq, PQsocket)
#define PQstatus             DYNLIB_CALL(store_pq, PQstatus)
#define PQtransactionStatus  DYNLIB_CALL(store_pq, PQtransactionStatus)
#define PQunescapeBytea      DYNLIB_CALL(store_pq, PQunescapeBytea)
#endif
