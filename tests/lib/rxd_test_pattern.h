/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The byte patterns the two-process test programs write and check: each
 * seed gives a different sequence, so a misplaced or stale block shows.
 */
#ifndef RXD_TEST_PATTERN_H
#define RXD_TEST_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

/** Fill len bytes at b with the pattern of seed. */
void rxd_test_fill(uint8_t *b, uint32_t len, uint32_t seed);

/** Fill len bytes at b with bytes start.. of the pattern of seed (one
 *  piece of a gather list). */
void rxd_test_fill_at(uint8_t *b, uint32_t start, uint32_t len,
		      uint32_t seed);

/** True if the len bytes at b are the pattern of seed. */
bool rxd_test_holds(const uint8_t *b, uint32_t len, uint32_t seed);

#endif /* RXD_TEST_PATTERN_H */
