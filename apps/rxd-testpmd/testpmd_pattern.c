/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data of a traffic message, so that the receiver can check it: a
 * 16-byte header (sequence number, then length and a magic number), then
 * 64-bit words that depend on the sequence number and their position.  A
 * message shorter than 16 bytes carries the start of the header.  Words
 * are little-endian on every host.
 */
#include <endian.h>
#include <string.h>

#include "testpmd.h"

#define MAGIC 0x72786474u            /* "rxdt" */

static uint64_t
word_at(uint64_t seq, uint32_t len, uint32_t j)
{
	uint64_t x;

	if (j == 0)
		return seq;
	if (j == 1)
		return len | (uint64_t)MAGIC << 32;
	x = seq * 0x9e3779b97f4a7c15ull ^ j * 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

void
tp_pattern_fill(uint8_t *buf, uint32_t len, uint64_t seq)
{
	uint32_t off, j;
	uint64_t w;

	for (off = 0, j = 0; off < len; off += 8, j++) {
		w = htole64(word_at(seq, len, j));
		memcpy(buf + off, &w, len - off < 8 ? len - off : 8);
	}
}

bool
tp_pattern_check(const uint8_t *buf, uint32_t len, uint64_t seq,
		 uint32_t *bad_at)
{
	uint32_t off, j, n, i;
	uint64_t w;

	for (off = 0, j = 0; off < len; off += 8, j++) {
		w = htole64(word_at(seq, len, j));
		n = len - off < 8 ? len - off : 8;
		if (memcmp(buf + off, &w, n) == 0)
			continue;
		for (i = 0; i < n && buf[off + i] == ((uint8_t *)&w)[i]; i++)
			;
		*bad_at = off + i;
		return false;
	}
	return true;
}

bool
tp_pattern_header(const uint8_t *buf, uint64_t *seq, uint32_t *len)
{
	uint64_t w0, w1;

	memcpy(&w0, buf, 8);
	memcpy(&w1, buf + 8, 8);
	w0 = le64toh(w0);
	w1 = le64toh(w1);
	if (w1 >> 32 != MAGIC || (uint32_t)w1 < TP_HEADER_LEN)
		return false;
	*seq = w0;
	*len = (uint32_t)w1;
	return true;
}
