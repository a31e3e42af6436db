/* mhd_lib.h - libmicrohttpd as server/ calls it, loaded at the first
 * call (store/dynlib.h): only `parity serve` loads it (and GnuTLS, which
 * it links); the CLI never does.  http.h includes it in place of
 * <microhttpd.h>; every call goes through the table and is checked
 * against libmicrohttpd's own prototype. */
#ifndef PARITY_SRV_MHD_LIB_H
#define PARITY_SRV_MHD_LIB_H

#include <microhttpd.h>

#include "dynlib.h"

#define SRV_MHD_FUNCS(X)                                                                           \
	X(MHD_add_response_header)                                                                 \
	X(MHD_create_post_processor)                                                               \
	X(MHD_create_response_from_buffer)                                                         \
	X(MHD_create_response_from_buffer_with_free_callback_cls)                                  \
	X(MHD_create_response_from_callback)                                                       \
	X(MHD_create_response_from_fd)                                                             \
	X(MHD_destroy_post_processor)                                                              \
	X(MHD_destroy_response)                                                                    \
	X(MHD_get_connection_info)                                                                 \
	X(MHD_get_daemon_info)                                                                     \
	X(MHD_get_reason_phrase_for)                                                               \
	X(MHD_get_response_header)                                                                 \
	X(MHD_lookup_connection_value)                                                             \
	X(MHD_post_process)                                                                        \
	X(MHD_queue_response)                                                                      \
	X(MHD_quiesce_daemon)                                                                      \
	X(MHD_resume_connection)                                                                   \
	X(MHD_start_daemon)                                                                        \
	X(MHD_stop_daemon)                                                                         \
	X(MHD_suspend_connection)

DYNLIB_DECLARE(srv_mhd, SRV_MHD_FUNCS)

#define MHD_add_response_header         DYNLIB_CALL(srv_mhd, MHD_add_response_header)
#define MHD_create_post_processor       DYNLIB_CALL(srv_mhd, MHD_create_post_processor)
#define MHD_create_response_from_buffer DYNLIB_CALL(srv_mhd, MHD_create_response_from_buffer)
#define MHD_create_response_from_buffer_with_free_callback_cls                                     \
	DYNLIB_CALL(srv_mhd, MHD_create_response_from_buffer_with_free_callback_cls)
#define MHD_create_response_from_callback DYNLIB_CALL(srv_mhd, MHD_create_response_from_callback)
#define MHD_create_response_from_fd       DYNLIB_CALL(srv_mhd, MHD_create_response_from_fd)
#define MHD_destroy_post_processor        DYNLIB_CALL(srv_mhd, MHD_destroy_post_processor)
#define MHD_destroy_response              DYNLIB_CALL(srv_mhd, MHD_destroy_response)
#define MHD_get_connection_info           DYNLIB_CALL(srv_mhd, MHD_get_connection_info)
#define MHD_get_daemon_info               DYNLIB_CALL(srv_mhd, MHD_get_daemon_info)
#define MHD_get_reason_phrase_for         DYNLIB_CALL(srv_mhd, MHD_get_reason_phrase_for)
#define MHD_get_response_header           DYNLIB_CALL(srv_mhd, MHD_get_response_header)
#define MHD_lookup_connection_value       DYNLIB_CALL(srv_mhd, MHD_lookup_connection_value)
#define MHD_post_process                  DYNLIB_CALL(srv_mhd, MHD_post_process)
#define MHD_queue_response                DYNLIB_CALL(srv_mhd, MHD_queue_response)
#define MHD_quiesce_daemon                DYNLIB_CALL(srv_mhd, MHD_quiesce_daemon)
#define MHD_resume_connection             DYNLIB_CALL(srv_mhd, MHD_resume_connection)
#define MHD_start_daemon                  DYNLIB_CALL(srv_mhd, MHD_start_daemon)
#define MHD_stop_daemon                   DYNLIB_CALL(srv_mhd, MHD_stop_daemon)
#define MHD_suspend_connection            DYNLIB_CALL(srv_mhd, MHD_suspend_connection)
#endif
