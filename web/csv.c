/* csv.c - the one CSV cell writer (see web.h): RFC 4180 quoting and
 * spreadsheet formula neutralisation.
 *
 * Why numbers pass untouched: a cell such as "-0.5" or "1e-05" is data a
 * spreadsheet must read as a number, and a plain number is never run as a
 * formula.  Everything else that starts with a formula character (metric
 * names come from logs and from comparison requests) is prefixed with a
 * single quote, which spreadsheets show as text and do not evaluate. */
#include <string.h>
#include <strings.h>

#include "web.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int web_csv_is_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	static const char *const words[] = {"inf", "infinity", "nan"};
	for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
		if (n - i == strlen(words[w]) && !strncasecmp(s + i, words[w], n - i))
			return 1;
	while (i < n && is_digit(s[i]))
		i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && is_digit(s[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	return i == n;
}

int web_csv_cell(struct buf *out, const char *s, size_t n)
{
	if (!n)
		return 0;
	if (web_csv_is_number(s, n))
		return buf_append(out, s, n);
	int formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
	int quote = 0;
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (quote && buf_putc(out, '"') < 0)
		return -1;
	if (formula && buf_putc(out, '\'') < 0)
		return -1;
	size_t from = 0;
	for (size_t i = 0; quote && i < n; i++) {
		if (s[i] != '"')
			continue;
		/* the quote itself, then one more */
		if (buf_append(out, s + from, i + 1 - from) < 0 || buf_putc(out, '"') < 0)
			return -1;
		from = i + 1;
	}
	if (buf_append(out, s + from, n - from) < 0)
		return -1;
	return quote ? buf_putc(out, '"') : 0;
}
