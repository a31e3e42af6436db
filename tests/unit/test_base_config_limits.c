/* test_base_config_limits.c - the connection limits of `parity serve`: the
 * per-address limit's default follows the listen address (64 beyond
 * loopback, none on loopback) unless a flag or PARITY_MAX_PER_IP says
 * otherwise; the header deadline and the minimum upload rate with their
 * defaults, flags, environment variables and refusals; --db / PARITY_DB
 * take only a postgresql:// URL (the flag wins over the variable). */
#include <stdlib.h>

#include "check.h"
#include "base.h"

/* srv_config_load with argv = {"serve", args...} (NULL-terminated). */
static int load(struct srv_config *cfg, const char *const *args)
{
	char *argv[16] = {"serve"};
	int argc = 1;
	while (args && args[argc - 1] && argc < 15) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	return srv_config_load(cfg, argc, argv);
}

static void clear_env(void)
{
	static const char *const vars[] = {
	        "PARITY_LISTEN",
	        "PARITY_MAX_PER_IP",
	        "PARITY_HEADER_TIMEOUT",
	        "PARITY_MIN_UPLOAD_RATE",
	        "PARITY_MIN_UPLOAD_WINDOW",
	        "PARITY_REQUEST_TIMEOUT",
	        "PARITY_DB",
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
}

static void test_max_per_ip_default(void)
{
	struct srv_config cfg;
	clear_env();
	/* loopback (the default listen address): no limit */
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_INT(cfg.max_per_ip, 0);
	const char *const lo6[] = {"--listen", "[::1]:8080", NULL};
	CHECK_INT(load(&cfg, lo6), 0);
	CHECK_INT(cfg.max_per_ip, 0);
	const char *const lo_name[] = {"--listen", "localhost:0", NULL};
	CHECK_INT(load(&cfg, lo_name), 0);
	CHECK_INT(cfg.max_per_ip, 0);
	/* beyond loopback: the default limit */
	const char *const any[] = {"--listen", "0.0.0.0:8080", NULL};
	CHECK_INT(load(&cfg, any), 0);
	CHECK_INT(cfg.max_per_ip, SRV_DEFAULT_MAX_PER_IP);
	CHECK_INT(SRV_DEFAULT_MAX_PER_IP, 64);
	const char *const lan[] = {"--listen", "10.1.2.3:9000", NULL};
	CHECK_INT(load(&cfg, lan), 0);
	CHECK_INT(cfg.max_per_ip, 64);
	const char *const any6[] = {"--listen", "[::]:8080", NULL};
	CHECK_INT(load(&cfg, any6), 0);
	CHECK_INT(cfg.max_per_ip, 64);
	/* an explicit value wins either way, 0 included (behind a proxy) */
	const char *const any_off[] = {"--listen", "0.0.0.0:8080", "--max-per-ip", "0", NULL};
	CHECK_INT(load(&cfg, any_off), 0);
	CHECK_INT(cfg.max_per_ip, 0);
	const char *const lo_two[] = {"--max-per-ip", "2", NULL};
	CHECK_INT(load(&cfg, lo_two), 0);
	CHECK_INT(cfg.max_per_ip, 2);
	/* ... and so does the environment, with the address from it too */
	setenv("PARITY_LISTEN", "192.168.1.5:8080", 1);
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_INT(cfg.max_per_ip, 64);
	setenv("PARITY_MAX_PER_IP", "0", 1);
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_INT(cfg.max_per_ip, 0);
	setenv("PARITY_MAX_PER_IP", "7", 1);
	const char *const lo_again[] = {"--listen", "127.0.0.1:0", NULL};
	CHECK_INT(load(&cfg, lo_again), 0);
	CHECK_INT(cfg.max_per_ip, 7);
	const char *const flag_wins[] = {"--max-per-ip", "3", NULL};
	CHECK_INT(load(&cfg, flag_wins), 0);
	CHECK_INT(cfg.max_per_ip, 3);
	clear_env();
	const char *const bad[] = {"--max-per-ip", "-1", NULL};
	CHECK_INT(load(&cfg, bad), -1);
}

static void test_slow_client_limits(void)
{
	struct srv_config cfg;
	clear_env();
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_INT(cfg.header_timeout_s, 30);
	CHECK_INT(cfg.min_upload_rate, 16 * 1024);
	CHECK_INT(cfg.min_upload_window_s, 30);
	CHECK_INT(cfg.request_timeout_s, 3600);
	const char *const set[] = {"--header-timeout",
	                           "5",
	                           "--min-upload-rate",
	                           "1M",
	                           "--min-upload-window",
	                           "3",
	                           NULL};
	CHECK_INT(load(&cfg, set), 0);
	CHECK_INT(cfg.header_timeout_s, 5);
	CHECK_INT(cfg.min_upload_rate, 1 << 20);
	CHECK_INT(cfg.min_upload_window_s, 3);
	const char *const off[] = {"--min-upload-rate", "0", NULL};
	CHECK_INT(load(&cfg, off), 0);
	CHECK_INT(cfg.min_upload_rate, 0);
	setenv("PARITY_MIN_UPLOAD_RATE", "512", 1);
	setenv("PARITY_MIN_UPLOAD_WINDOW", "10", 1);
	setenv("PARITY_HEADER_TIMEOUT", "12", 1);
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_INT(cfg.min_upload_rate, 512);
	CHECK_INT(cfg.min_upload_window_s, 10);
	CHECK_INT(cfg.header_timeout_s, 12);
	clear_env();
	/* refusals: no zero deadline, no window beyond an hour, no rate
	 * beyond 1 GiB/s, no garbage */
	const char *const bad1[] = {"--header-timeout", "0", NULL};
	CHECK_INT(load(&cfg, bad1), -1);
	const char *const bad2[] = {"--min-upload-window", "0", NULL};
	CHECK_INT(load(&cfg, bad2), -1);
	const char *const bad3[] = {"--min-upload-window", "3601", NULL};
	CHECK_INT(load(&cfg, bad3), -1);
	const char *const bad4[] = {"--min-upload-rate", "2G", NULL};
	CHECK_INT(load(&cfg, bad4), -1);
	const char *const bad5[] = {"--min-upload-rate", "fast", NULL};
	CHECK_INT(load(&cfg, bad5), -1);
}

static void test_db_url(void)
{
	struct srv_config cfg;
	clear_env();
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_STR(cfg.db_url, ""); /* SQLite in --data by default */
	const char *const pg[] = {"--db", "postgresql://parity@db.internal/parity", NULL};
	CHECK_INT(load(&cfg, pg), 0);
	CHECK_STR(cfg.db_url, "postgresql://parity@db.internal/parity");
	const char *const short_scheme[] = {"--db", "postgres://h/d", NULL};
	CHECK_INT(load(&cfg, short_scheme), 0);
	CHECK_STR(cfg.db_url, "postgres://h/d");
	/* a path, a sqlite: URL, an empty value: refused */
	const char *const path[] = {"--db", "/var/lib/parity/parity.db", NULL};
	CHECK_INT(load(&cfg, path), -1);
	const char *const lite[] = {"--db", "sqlite:///x.db", NULL};
	CHECK_INT(load(&cfg, lite), -1);
	const char *const empty[] = {"--db", "", NULL};
	CHECK_INT(load(&cfg, empty), -1);
	/* environment, and the flag over it */
	setenv("PARITY_DB", "postgresql://env/one", 1);
	CHECK_INT(load(&cfg, NULL), 0);
	CHECK_STR(cfg.db_url, "postgresql://env/one");
	const char *const flag[] = {"--db", "postgresql://flag/two", NULL};
	CHECK_INT(load(&cfg, flag), 0);
	CHECK_STR(cfg.db_url, "postgresql://flag/two");
	setenv("PARITY_DB", "parity-data", 1);
	CHECK_INT(load(&cfg, NULL), -1);
	clear_env();
}

int main(void)
{
	test_max_per_ip_default();
	test_slow_client_limits();
	test_db_url();
	return check_report();
}
