/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the CM MAD codec of lib/cm (built by run-fuzz.sh
 * with clang -fsanitize=fuzzer,address,undefined, outside the meson
 * build).  The input is a MAD as QP1 receives it, of any length.
 *
 * Checked on every input, beyond the sanitizers:
 *  - decoding is deterministic, and refuses exactly the inputs shorter
 *    than a MAD (-EINVAL) or not a CM MAD of a known attribute (-EPROTO);
 *  - a decoded message re-encodes to the input with the bits the codec
 *    does not carry (reserved ones) cleared, the MAD header included;
 *  - the encoding decodes to the same message, and encodes again to the
 *    same bytes;
 *  - the RDMA CM IP header in the private data of a REQ or SIDR_REQ, when
 *    it decodes, encodes and decodes again to the same header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_cm_mad.h"

#define N_ATTR_SLOTS 0x20       /* attribute IDs below this are looked at */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "fuzz_cm_mad: %s:%d: %s\n",      \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* Outcomes, printed at exit to show how deep the inputs went. */
static unsigned long too_short, not_cm, decoded[N_ATTR_SLOTS], ip_hdrs;

static void __attribute__((destructor))
print_outcomes(void)
{
	unsigned int a;

	fprintf(stderr, "fuzz_cm_mad: %10lu too short\n", too_short);
	fprintf(stderr, "fuzz_cm_mad: %10lu not a known CM MAD\n", not_cm);
	for (a = 0; a < N_ATTR_SLOTS; a++)
		if (decoded[a] != 0)
			fprintf(stderr, "fuzz_cm_mad: %10lu %s decoded\n",
				decoded[a], rxd_cm_attr_name((uint16_t)a));
	fprintf(stderr, "fuzz_cm_mad: %10lu RDMA CM IP headers decoded\n",
		ip_hdrs);
}

/*
 * The bits a message of attr_id carries.  The MAD header's are fixed: all
 * but the reserved bytes 18-19.  The CM data's are the codec's own word: a
 * MAD of all ones decoded and encoded again, the same for every input.
 */
static void
carried_bits(uint16_t attr_id, uint8_t mask[RXD_MAD_LEN])
{
	uint8_t ones[RXD_MAD_LEN];
	struct rxd_cm_msg m;

	memset(ones, 0xff, sizeof(ones));
	ones[0] = RXD_MAD_BASE_VERSION;
	ones[1] = RXD_MAD_CLASS_CM;
	ones[2] = RXD_MAD_CLASS_VERSION_CM;
	ones[16] = (uint8_t)(attr_id >> 8);
	ones[17] = (uint8_t)attr_id;
	CHECK(rxd_cm_mad_decode(ones, sizeof(ones), &m) == 0);
	CHECK(rxd_cm_mad_encode(&m, mask) == 0);
	memset(mask, 0xff, RXD_MAD_HDR_LEN);
	mask[18] = mask[19] = 0;
}

static void
check_ip_hdr(const struct rxd_cm_msg *m)
{
	struct rxd_cm_ip_hdr h, again;
	uint8_t buf[RXD_CM_IP_HDR_LEN];

	if (m->attr_id != RXD_CM_REQ && m->attr_id != RXD_CM_SIDR_REQ)
		return;
	CHECK(m->pdata_len >= RXD_CM_IP_HDR_LEN);
	if (rxd_cm_ip_hdr_decode(m->pdata, &h) != 0)
		return;
	CHECK(h.cma_version == 0);
	CHECK(h.ip_version == 4 || h.ip_version == 6);
	rxd_cm_ip_hdr_encode(&h, buf);
	CHECK(rxd_cm_ip_hdr_decode(buf, &again) == 0);
	CHECK(memcmp(&h, &again, sizeof(h)) == 0);
	ip_hdrs++;
}

static void
check_roundtrip(const uint8_t *mad, const struct rxd_cm_msg *m)
{
	uint8_t mask[RXD_MAD_LEN], out[RXD_MAD_LEN], out2[RXD_MAD_LEN];
	struct rxd_cm_msg again;
	unsigned int i;

	CHECK(strcmp(rxd_cm_attr_name(m->attr_id), "unknown") != 0);
	CHECK(m->pdata_len == rxd_cm_pdata_size(m->attr_id));
	CHECK(m->pdata_len > 0 && m->pdata_len <= RXD_CM_PDATA_MAX);
	carried_bits(m->attr_id, mask);
	CHECK(rxd_cm_mad_encode(m, out) == 0);
	for (i = 0; i < RXD_MAD_LEN; i++) {
		if (out[i] != (mad[i] & mask[i]))
			fprintf(stderr, "fuzz_cm_mad: %s byte %u: %02x, "
				"input %02x, carried bits %02x\n",
				rxd_cm_attr_name(m->attr_id), i, out[i],
				mad[i], mask[i]);
		CHECK(out[i] == (mad[i] & mask[i]));
	}
	CHECK(rxd_cm_mad_decode(out, sizeof(out), &again) == 0);
	CHECK(memcmp(m, &again, sizeof(again)) == 0);
	CHECK(rxd_cm_mad_encode(&again, out2) == 0);
	CHECK(memcmp(out, out2, sizeof(out)) == 0);
	check_ip_hdr(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rxd_cm_msg m, m2;
	uint32_t len;
	int rc;

	if (size > 4096)
		return 0;
	len = (uint32_t)size;
	/* Poisoned, so that a field decode forgets to set shows as a
	 * difference (or as ASan/UBSan noise) rather than passing. */
	memset(&m, 0xa5, sizeof(m));
	memset(&m2, 0x5a, sizeof(m2));
	rc = rxd_cm_mad_decode(data, len, &m);
	CHECK(rxd_cm_mad_decode(data, len, &m2) == rc);
	if (rc == -EINVAL) {
		CHECK(len < RXD_MAD_LEN);
		too_short++;
		return 0;
	}
	CHECK(len >= RXD_MAD_LEN);
	if (rc == -EPROTO) {
		CHECK(data[0] != RXD_MAD_BASE_VERSION ||
		      data[1] != RXD_MAD_CLASS_CM ||
		      data[2] != RXD_MAD_CLASS_VERSION_CM ||
		      rxd_cm_pdata_size((uint16_t)(data[16] << 8 | data[17])) ==
		      0);
		not_cm++;
		return 0;
	}
	CHECK(rc == 0);
	CHECK(memcmp(&m, &m2, sizeof(m)) == 0);
	CHECK(m.attr_id < N_ATTR_SLOTS);
	decoded[m.attr_id]++;
	check_roundtrip(data, &m);
	return 0;
}
