/*
 * term_escape (util.h): what a traced program's strings look like on a
 * terminal.  Controls (C0, DEL, C1), backslashes and every byte that is
 * not valid UTF-8 (RFC 3629: overlong forms, surrogates, past U+10FFFF,
 * cut-off sequences) are escaped; printable UTF-8 is kept.
 */
#include "config.h"

#include <stdlib.h>

#include "tap.h"
#include "util.h"

static const struct {
	const char *in, *want, *what;
} cases[] = {
	{ "", "", "the empty string" },
	{ "./prog --x=1 a b", "./prog --x=1 a b", "printable ASCII as is" },
	{ "\033[31mRED", "\\x1b[31mRED", "ESC" },
	{ "a\rb\nc\td\001", "a\\x0db\\x0ac\\x09d\\x01", "CR, LF, TAB and other C0 controls" },
	{ "x\177y", "x\\x7fy", "DEL" },
	{ "C:\\dir", "C:\\\\dir", "a backslash is doubled" },
	{ "\\x1b", "\\\\x1b", "so an escape's text cannot pass for one" },
	{ "caf\303\251 \342\202\254 \360\237\230\200", "caf\303\251 \342\202\254 \360\237\230\200",
	  "two-, three- and four-byte UTF-8 as is (U+00E9, U+20AC, U+1F600)" },
	{ "\302\240", "\302\240", "U+00A0, the first after the C1 controls, as is" },
	{ "\302\233" "31m", "\\xc2\\x9b31m", "C1 control U+009B (CSI) as its two bytes" },
	{ "\302\200\302\237", "\\xc2\\x80\\xc2\\x9f", "U+0080 and U+009F" },
	{ "\377ab", "\\xffab", "a byte that is never UTF-8" },
	{ "\200", "\\x80", "a lone continuation byte" },
	{ "\300\257", "\\xc0\\xaf", "an overlong '/'" },
	{ "\340\200\257", "\\xe0\\x80\\xaf", "an overlong three-byte form" },
	{ "\355\240\200", "\\xed\\xa0\\x80", "a surrogate (U+D800)" },
	{ "\364\220\200\200", "\\xf4\\x90\\x80\\x80", "past U+10FFFF" },
	{ "\364\217\277\277", "\364\217\277\277", "U+10FFFF itself as is" },
	{ "\342\202", "\\xe2\\x82", "a sequence cut off by the end" },
	{ "\342\202x", "\\xe2\\x82x", "a sequence cut off by ASCII" },
	{ "\303\033", "\\xc3\\x1b", "a lead byte before ESC: both escaped" },
};

int
main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = term_escape(cases[i].in);

		is_str(got, cases[i].want, "term_escape: %s", cases[i].what);
		free(got);
	}
	return done_testing();
}
