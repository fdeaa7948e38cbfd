/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extension headers after the BTH, one table row each, in the order the
 * IBTA places them: DETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 * IETH, then the CNP's reserved bytes.
 */
#include "rxd_bytes.h"
#include "rxd_exthdr.h"

static void
deth_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->deth_qkey = rxd_get32(p);
	k->deth_sqpn = rxd_get24(p + 5);
}

static void
deth_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put32(p, k->deth_qkey);
	p[4] = 0;
	rxd_put24(p + 5, k->deth_sqpn);
}

/* FETH: 26 reserved bits, selectivity level (5..4), placement type (3..0). */
static void
feth_get(struct rxd_pkt *k, const uint8_t *p)
{
	uint32_t v = rxd_get32(p);

	k->feth_sel = (uint8_t)((v >> 4) & 3);
	k->feth_plt = (uint8_t)(v & 0xf);
}

static void
feth_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put32(p, (uint32_t)(k->feth_sel & 3) << 4 | (k->feth_plt & 0xf));
}

static void
reth_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->reth_va = rxd_get64(p);
	k->reth_rkey = rxd_get32(p + 8);
	k->reth_len = rxd_get32(p + 12);
}

static void
reth_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put64(p, k->reth_va);
	rxd_put32(p + 8, k->reth_rkey);
	rxd_put32(p + 12, k->reth_len);
}

static void
atmeth_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->atm_va = rxd_get64(p);
	k->atm_rkey = rxd_get32(p + 8);
	k->atm_swap_add = rxd_get64(p + 12);
	k->atm_cmp = rxd_get64(p + 20);
}

static void
atmeth_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put64(p, k->atm_va);
	rxd_put32(p + 8, k->atm_rkey);
	rxd_put64(p + 12, k->atm_swap_add);
	rxd_put64(p + 20, k->atm_cmp);
}

static void
aeth_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->aeth_syndrome = p[0];
	k->aeth_msn = rxd_get24(p + 1);
}

static void
aeth_put(const struct rxd_pkt *k, uint8_t *p)
{
	p[0] = k->aeth_syndrome;
	rxd_put24(p + 1, k->aeth_msn);
}

static void
atmack_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->atm_orig = rxd_get64(p);
}

static void
atmack_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put64(p, k->atm_orig);
}

static void
immdt_get(struct rxd_pkt *k, const uint8_t *p)
{
	memcpy(&k->imm, p, sizeof(k->imm));
}

static void
immdt_put(const struct rxd_pkt *k, uint8_t *p)
{
	memcpy(p, &k->imm, sizeof(k->imm));
}

static void
ieth_get(struct rxd_pkt *k, const uint8_t *p)
{
	k->ieth_rkey = rxd_get32(p);
}

static void
ieth_put(const struct rxd_pkt *k, uint8_t *p)
{
	rxd_put32(p, k->ieth_rkey);
}

static void
cnp_get(struct rxd_pkt *k, const uint8_t *p)
{
	(void)k;
	(void)p;
}

static void
cnp_put(const struct rxd_pkt *k, uint8_t *p)
{
	(void)k;
	memset(p, 0, RXD_CNP_PAD_LEN);
}

static const struct {
	uint16_t hdr;
	uint8_t len;
	void (*get)(struct rxd_pkt *k, const uint8_t *p);
	void (*put)(const struct rxd_pkt *k, uint8_t *p);
} exthdr_table[] = {
	{ RXD_HDR_DETH, RXD_DETH_LEN, deth_get, deth_put },
	{ RXD_HDR_FETH, RXD_FETH_LEN, feth_get, feth_put },
	{ RXD_HDR_RETH, RXD_RETH_LEN, reth_get, reth_put },
	{ RXD_HDR_ATMETH, RXD_ATMETH_LEN, atmeth_get, atmeth_put },
	{ RXD_HDR_AETH, RXD_AETH_LEN, aeth_get, aeth_put },
	{ RXD_HDR_ATMACK, RXD_ATMACK_LEN, atmack_get, atmack_put },
	{ RXD_HDR_IMMDT, RXD_IMMDT_LEN, immdt_get, immdt_put },
	{ RXD_HDR_IETH, RXD_IETH_LEN, ieth_get, ieth_put },
	{ RXD_HDR_CNP, RXD_CNP_PAD_LEN, cnp_get, cnp_put },
};

#define EXTHDR_COUNT (sizeof(exthdr_table) / sizeof(exthdr_table[0]))

void
rxd_exthdr_get(struct rxd_pkt *pkt, const uint8_t *p)
{
	unsigned int i, left = pkt->op->hdrs;

	for (i = 0; left != 0 && i < EXTHDR_COUNT; i++) {
		if (!(left & exthdr_table[i].hdr))
			continue;
		left &= ~exthdr_table[i].hdr;
		exthdr_table[i].get(pkt, p);
		p += exthdr_table[i].len;
	}
}

void
rxd_exthdr_put(const struct rxd_pkt *pkt, uint8_t *p)
{
	unsigned int i, left = pkt->op->hdrs;

	for (i = 0; left != 0 && i < EXTHDR_COUNT; i++) {
		if (!(left & exthdr_table[i].hdr))
			continue;
		left &= ~exthdr_table[i].hdr;
		exthdr_table[i].put(pkt, p);
		p += exthdr_table[i].len;
	}
}
