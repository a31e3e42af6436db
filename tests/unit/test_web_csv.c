/* test_web_csv.c - the one CSV cell writer (web/csv.c): numbers pass as
 * they are, RFC 4180 quoting (, " CR LF; quotes doubled), and cells a
 * spreadsheet would run as a formula (= + - @ TAB CR first) get a leading
 * quote, inside the RFC quotes when both apply. */
#include <string.h>

#include "check.h"
#include "web.h"

static const char *cell(struct buf *b, const char *s)
{
	buf_clear(b);
	CHECK_INT(web_csv_cell(b, s, strlen(s)), 0);
	return b->data ? b->data : "";
}

int main(void)
{
	struct buf b = BUF_INIT;
	/* numbers, as the program and the logs print them */
	static const char *const numbers[] = {"0",    "-0.5", "+1",   "1e-05",  "-1.5E+10", ".5",
	                                      "5.",   "-inf", "nan",  "NaN",    "Infinity", "33",
	                                      "-0.0", "1e5",  "+.25", "-12.000"};
	for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
		CHECK(web_csv_is_number(numbers[i], strlen(numbers[i])));
		CHECK_STR(cell(&b, numbers[i]), numbers[i]);
	}
	static const char *const not_numbers[] = {"-",    "+",    ".",    "e5",  "1e",  "1e+",
	                                          "--1",  "1-",   "",     "-A1", "- 1", "1,5",
	                                          "0x10", "-1+2", "infx", "=1"};
	for (size_t i = 0; i < sizeof not_numbers / sizeof not_numbers[0]; i++)
		CHECK(!web_csv_is_number(not_numbers[i], strlen(not_numbers[i])));

	/* plain text stays as it is */
	CHECK_STR(cell(&b, "loss_baseline"), "loss_baseline");
	CHECK_STR(cell(&b, "validation/loss_abs"), "validation/loss_abs");
	CHECK_STR(cell(&b, ""), "");
	/* formula starters are neutralised */
	CHECK_STR(cell(&b, "=1+2"), "'=1+2");
	CHECK_STR(cell(&b, "-A1_baseline"), "'-A1_baseline");
	CHECK_STR(cell(&b, "+cmd"), "'+cmd");
	CHECK_STR(cell(&b, "@SUM(A1)"), "'@SUM(A1)");
	CHECK_STR(cell(&b, "\tx"), "'\tx");
	CHECK_STR(cell(&b, "-1+2"), "'-1+2");
	/* RFC 4180 quoting */
	CHECK_STR(cell(&b, "a,b"), "\"a,b\"");
	CHECK_STR(cell(&b, "say \"hi\""), "\"say \"\"hi\"\"\"");
	CHECK_STR(cell(&b, "two\nlines"), "\"two\nlines\"");
	CHECK_STR(cell(&b, "\r"), "\"'\r\"");
	CHECK_STR(cell(&b, "\""), "\"\"\"\"");
	/* both: the quote mark goes inside the RFC quotes */
	CHECK_STR(cell(&b, "=HYPERLINK(\"http://x/\",\"a,b\")"),
	          "\"'=HYPERLINK(\"\"http://x/\"\",\"\"a,b\"\")\"");
	/* length-bounded: bytes past n are not read, NUL inside is kept */
	buf_clear(&b);
	CHECK_INT(web_csv_cell(&b, "a,bXYZ", 3), 0);
	CHECK_STR(b.data, "\"a,b\"");
	buf_clear(&b);
	CHECK_INT(web_csv_cell(&b, "a\0b", 3), 0);
	CHECK_INT(b.len, 3);
	buf_clear(&b);
	CHECK_INT(web_csv_cell(&b, "\0=", 2), 0);
	CHECK_INT(b.len, 2);
	buf_reset(&b);
	return check_report();
}
