/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the lib/wire parser (built by run-fuzz.sh with
 * clang -fsanitize=fuzzer,address,undefined, outside the meson build).
 *
 * Input: one mode byte, then the frame.  Mode bit 2 selects
 * rxd_wire_parse_ip (frame starts at the IP header) over rxd_wire_parse;
 * bits 0-1 are the parse flags (RXD_PARSE_NO_ICRC, RXD_PARSE_NO_CSUM).
 *
 * Checked on every input, beyond the sanitizers:
 *  - parsing is deterministic;
 *  - skipping checks never turns an accepted frame into a refused one;
 *  - an accepted RoCEv2 frame has a layout inside the input and consistent
 *    with the opcode table;
 *  - rebuilt from its fields, it parses again with every check on, to the
 *    same fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_test_pkt.h"
#include "rxd_wire.h"

#define MODE_IP_ONLY 0x4u
#define MODE_FLAGS (RXD_PARSE_NO_ICRC | RXD_PARSE_NO_CSUM)
#define REBUILD_CAP 70000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "fuzz_parse: %s:%d: %s\n",       \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* Outcomes, printed at exit to show how deep the inputs went. */
static unsigned long outcome[RXD_WIRE_ERR_MAX];
static unsigned long rebuilt;

static void __attribute__((destructor))
print_outcomes(void)
{
	unsigned int i;

	fprintf(stderr, "fuzz_parse: %lu RoCEv2 frames accepted and rebuilt\n",
		rebuilt);
	for (i = 0; i < RXD_WIRE_ERR_MAX; i++)
		if (outcome[i] != 0)
			fprintf(stderr, "fuzz_parse: %10lu %s\n", outcome[i],
				rxd_wire_strerror((enum rxd_wire_err)i));
}

static enum rxd_wire_err
parse(const uint8_t *p, uint32_t len, bool ip_only, struct rxd_pkt *pkt,
      unsigned int flags)
{
	return ip_only ? rxd_wire_parse_ip(p, len, pkt, flags) :
		rxd_wire_parse(p, len, pkt, flags);
}

/* The layout of an accepted RoCEv2 frame stays inside the input. */
static void
check_layout(const struct rxd_pkt *pkt, uint32_t len)
{
	const struct rxd_opcode_info *op = &rxd_opcode_table[pkt->opcode];

	CHECK(pkt->op == op && op->name != NULL);
	CHECK(pkt->l3_off < pkt->l4_off && pkt->l4_off < pkt->bth_off);
	CHECK(pkt->bth_off + RXD_BTH_LEN + op->hdr_len == pkt->payload_off);
	CHECK((uint32_t)pkt->payload_off + pkt->payload_len + pkt->padcnt +
	      RXD_ICRC_LEN == pkt->frame_len);
	CHECK(pkt->frame_len <= len);
	CHECK(pkt->payload_len <= RXD_MAX_PMTU);
	CHECK(pkt->tver == 0);
	if (!(op->flags & RXD_OPF_PAYLOAD))
		CHECK(pkt->payload_len == 0 && pkt->padcnt == 0);
}

/*
 * A deferred ICRC check (RXD_PARSE_DEFER_ICRC) agrees with the parser's
 * own, made alone or while placing the payload; other checks are as
 * without deferral.
 */
static void
check_deferred(const uint8_t *data, uint32_t len, bool ip_only,
	       unsigned int flags)
{
	static uint8_t placed[RXD_MAX_PMTU];
	struct rxd_pkt full, late;
	enum rxd_wire_err err_full, err_late;

	flags &= ~(unsigned int)RXD_PARSE_NO_ICRC;
	err_full = parse(data, len, ip_only, &full, flags);
	err_late = parse(data, len, ip_only, &late,
			 flags | RXD_PARSE_DEFER_ICRC);
	if (!late.icrc_deferred) {
		CHECK(err_late == err_full);
		return;
	}
	CHECK(err_late == RXD_WIRE_OK);
	CHECK(err_full == RXD_WIRE_OK || err_full == RXD_WIRE_ICRC);
	CHECK(rxd_wire_icrc_ok(data, &late) == (err_full == RXD_WIRE_OK));
	CHECK(rxd_wire_place(data, &late, placed) ==
	      (err_full == RXD_WIRE_OK));
}

/* Build the frame again from its fields; it must parse, fully checked. */
static void
check_rebuild(const struct rxd_pkt *pkt, const uint8_t *base, bool ip_only)
{
	static uint8_t buf[REBUILD_CAP];
	struct rxd_pkt copy = *pkt, again;
	unsigned int what = ip_only ? 0 : RXD_TEST_CMP_L2;
	enum rxd_wire_err err;
	uint32_t n;
	const char *diff;

	n = rxd_wire_build(&copy, base + pkt->payload_off, buf, sizeof(buf));
	CHECK(n != 0);
	CHECK(n - copy.l3_off == pkt->frame_len - pkt->l3_off);
	err = rxd_wire_parse(buf, n, &again, 0);
	if (err != RXD_WIRE_OK)
		fprintf(stderr, "rebuilt frame refused: %s\n",
			rxd_wire_strerror(err));
	CHECK(err == RXD_WIRE_OK && again.kind == RXD_FRAME_ROCE);
	diff = rxd_test_pkt_diff(&copy, &again, what | RXD_TEST_CMP_UDP_CSUM |
				 RXD_TEST_CMP_ICRC);
	if (diff != NULL)
		fprintf(stderr, "rebuilt frame: field %s differs\n", diff);
	CHECK(diff == NULL);
	/* What the builder was given is what was parsed, but the checksums. */
	diff = rxd_test_pkt_diff(pkt, &again, what);
	if (diff != NULL)
		fprintf(stderr, "parsed vs rebuilt: field %s differs\n", diff);
	CHECK(diff == NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rxd_pkt pkt, pkt2, loose;
	enum rxd_wire_err err, err2;
	unsigned int flags;
	bool ip_only;
	uint32_t len;

	if (size < 1 || size > 65536)
		return 0;
	ip_only = data[0] & MODE_IP_ONLY;
	flags = data[0] & MODE_FLAGS;
	data++;
	len = (uint32_t)(size - 1);

	err = parse(data, len, ip_only, &pkt, flags);
	err2 = parse(data, len, ip_only, &pkt2, flags);
	CHECK(err == err2);
	CHECK(memcmp(&pkt, &pkt2, sizeof(pkt)) == 0);
	CHECK((unsigned int)err < RXD_WIRE_ERR_MAX);
	outcome[err]++;
	if (err != RXD_WIRE_OK)
		return 0;
	CHECK(parse(data, len, ip_only, &loose, MODE_FLAGS) == RXD_WIRE_OK);
	CHECK(loose.kind == pkt.kind);
	if (pkt.kind != RXD_FRAME_ROCE)
		return 0;
	CHECK(rxd_test_pkt_diff(&pkt, &loose, RXD_TEST_CMP_ALL) == NULL);
	check_layout(&pkt, len);
	check_deferred(data, len, ip_only, flags);
	check_rebuild(&pkt, data, ip_only);
	rebuilt++;
	return 0;
}
