/*
 * XED iclass names from Zydis mnemonics.
 *
 * For most instructions the XED iclass is the Zydis mnemonic in upper
 * case.  The exceptions that matter to MICA's spec files are near/far
 * transfers (CALL_NEAR, RET_NEAR, JMP_FAR, ...), REP-prefixed string
 * instructions (REP_MOVSB, REPE_CMPSB, REPNE_SCASB, ...) and the SSE forms
 * that share a mnemonic with a string instruction (MOVSD_XMM, CMPSD_XMM).
 */
#include "config.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include <Zydis/Zydis.h>

#include "iclass.h"

#define N_MNEMONICS (ZYDIS_MNEMONIC_MAX_VALUE + 1)

/* XED-only iclasses, numbered after the Zydis mnemonics. */
enum {
	X_CALL_NEAR = N_MNEMONICS, X_CALL_FAR, X_RET_NEAR, X_RET_FAR, X_JMP_FAR,
	X_MOVSD_XMM, X_CMPSD_XMM,
	X_LOCK_BASE,		/* then one per lockable mnemonic */
	X_STRING_BASE = X_LOCK_BASE + 18		/* then 4 prefixes x string mnemonics */
};

static const uint16_t string_mnemonics[] = {
	ZYDIS_MNEMONIC_MOVSB, ZYDIS_MNEMONIC_MOVSW, ZYDIS_MNEMONIC_MOVSD, ZYDIS_MNEMONIC_MOVSQ,
	ZYDIS_MNEMONIC_STOSB, ZYDIS_MNEMONIC_STOSW, ZYDIS_MNEMONIC_STOSD, ZYDIS_MNEMONIC_STOSQ,
	ZYDIS_MNEMONIC_LODSB, ZYDIS_MNEMONIC_LODSW, ZYDIS_MNEMONIC_LODSD, ZYDIS_MNEMONIC_LODSQ,
	ZYDIS_MNEMONIC_CMPSB, ZYDIS_MNEMONIC_CMPSW, ZYDIS_MNEMONIC_CMPSD, ZYDIS_MNEMONIC_CMPSQ,
	ZYDIS_MNEMONIC_SCASB, ZYDIS_MNEMONIC_SCASW, ZYDIS_MNEMONIC_SCASD, ZYDIS_MNEMONIC_SCASQ,
	ZYDIS_MNEMONIC_INSB, ZYDIS_MNEMONIC_INSW, ZYDIS_MNEMONIC_INSD,
	ZYDIS_MNEMONIC_OUTSB, ZYDIS_MNEMONIC_OUTSW, ZYDIS_MNEMONIC_OUTSD,
};
/* XED's *_LOCK iclasses (LOCK prefix on a memory destination). */
static const uint16_t lock_mnemonics[] = {
	ZYDIS_MNEMONIC_ADC, ZYDIS_MNEMONIC_ADD, ZYDIS_MNEMONIC_AND, ZYDIS_MNEMONIC_BTC,
	ZYDIS_MNEMONIC_BTR, ZYDIS_MNEMONIC_BTS, ZYDIS_MNEMONIC_CMPXCHG,
	ZYDIS_MNEMONIC_CMPXCHG16B, ZYDIS_MNEMONIC_CMPXCHG8B, ZYDIS_MNEMONIC_DEC,
	ZYDIS_MNEMONIC_INC, ZYDIS_MNEMONIC_NEG, ZYDIS_MNEMONIC_NOT, ZYDIS_MNEMONIC_OR,
	ZYDIS_MNEMONIC_SBB, ZYDIS_MNEMONIC_SUB, ZYDIS_MNEMONIC_XADD, ZYDIS_MNEMONIC_XOR,
};
#define N_LOCK (sizeof(lock_mnemonics) / sizeof(lock_mnemonics[0]))
_Static_assert(N_LOCK == 18, "X_STRING_BASE reserves 18 _LOCK iclasses");
#define N_STRING (sizeof(string_mnemonics) / sizeof(string_mnemonics[0]))
#define N_ICLASS (X_STRING_BASE + 4 * N_STRING)

static const char *const rep_prefix_names[4] = { "", "REP_", "REPE_", "REPNE_" };

static char names[N_ICLASS][32];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void
upcase(char *dst, size_t size, const char *prefix, const char *src)
{
	size_t n = 0;

	for (; *prefix && n + 1 < size; prefix++)
		dst[n++] = *prefix;
	for (; *src && n + 1 < size; src++)
		dst[n++] = (char)toupper((unsigned char)*src);
	dst[n] = '\0';
}

static void
build_names(void)
{
	for (unsigned m = 0; m < N_MNEMONICS; m++) {
		const char *s = ZydisMnemonicGetString((ZydisMnemonic)m);

		upcase(names[m], sizeof(names[m]), "", s ? s : "INVALID");
	}
	strcpy(names[X_CALL_NEAR], "CALL_NEAR");
	strcpy(names[X_CALL_FAR], "CALL_FAR");
	strcpy(names[X_RET_NEAR], "RET_NEAR");
	strcpy(names[X_RET_FAR], "RET_FAR");
	strcpy(names[X_JMP_FAR], "JMP_FAR");
	strcpy(names[X_MOVSD_XMM], "MOVSD_XMM");
	strcpy(names[X_CMPSD_XMM], "CMPSD_XMM");
	for (unsigned i = 0; i < N_LOCK; i++) {
		upcase(names[X_LOCK_BASE + i], sizeof(names[0]), "",
		       ZydisMnemonicGetString((ZydisMnemonic)lock_mnemonics[i]));
		strcat(names[X_LOCK_BASE + i], "_LOCK");
	}
	for (unsigned p = 0; p < 4; p++)
		for (unsigned i = 0; i < N_STRING; i++)
			upcase(names[X_STRING_BASE + p * N_STRING + i], sizeof(names[0]),
			       rep_prefix_names[p],
			       ZydisMnemonicGetString((ZydisMnemonic)string_mnemonics[i]));
}

static int
string_index(uint16_t mnemonic)
{
	for (unsigned i = 0; i < N_STRING; i++)
		if (string_mnemonics[i] == mnemonic)
			return (int)i;
	return -1;
}

uint16_t
iclass_of(uint16_t mnemonic, enum iclass_prefix rep, bool far, bool sse_form)
{
	int si;

	switch (mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		return far ? X_CALL_FAR : X_CALL_NEAR;
	case ZYDIS_MNEMONIC_RET:
		return far ? X_RET_FAR : X_RET_NEAR;
	case ZYDIS_MNEMONIC_JMP:
		return far ? X_JMP_FAR : mnemonic;
	case ZYDIS_MNEMONIC_MOVSD:
		if (sse_form)
			return X_MOVSD_XMM;
		break;
	case ZYDIS_MNEMONIC_CMPSD:
		if (sse_form)
			return X_CMPSD_XMM;
		break;
	default:
		break;
	}
	si = string_index(mnemonic);
	if (si >= 0)
		return (uint16_t)(X_STRING_BASE + rep * N_STRING + (unsigned)si);
	return mnemonic;
}

uint16_t
iclass_locked(uint16_t iclass)
{
	for (unsigned i = 0; i < N_LOCK; i++)
		if (lock_mnemonics[i] == iclass)
			return (uint16_t)(X_LOCK_BASE + i);
	return iclass;
}

const char *
iclass_name(uint16_t iclass)
{
	pthread_once(&names_once, build_names);
	if (iclass >= N_ICLASS)
		return "INVALID";
	return names[iclass];
}

bool
iclass_lookup(const char *name, uint16_t *iclass)
{
	pthread_once(&names_once, build_names);
	for (unsigned i = 1; i < N_ICLASS; i++) {
		if (strcasecmp(names[i], name) == 0) {
			/* A bare Zydis mnemonic means its plain XED form:
			 * "ret" is RET_NEAR, "movsb" the unprefixed MOVSB. */
			*iclass = i < N_MNEMONICS
				? iclass_of((uint16_t)i, ICLASS_NO_REP, false, false)
				: (uint16_t)i;
			return true;
		}
	}
	return false;
}

bool
iclass_known(const char *name)
{
	pthread_once(&names_once, build_names);
	for (unsigned i = 0; i < N_ICLASS; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}
