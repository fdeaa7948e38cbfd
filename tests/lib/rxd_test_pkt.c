/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: realistic packets for every opcode and a table-driven
 * field comparison.  Which fields an opcode fills comes from
 * rxd_opcode_table (flags and extension header mask), never from a list of
 * opcodes here.
 */
#include <stddef.h>
#include <string.h>

#include "rxd_test_pkt.h"

static const uint8_t mac_a[RXD_ETH_ALEN] = { 2, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[RXD_ETH_ALEN] = { 2, 0, 0, 0, 0, 0x0b };
static const uint8_t ip4_a[4] = { 192, 0, 2, 1 };
static const uint8_t ip4_b[4] = { 192, 0, 2, 2 };
static const uint8_t ip6_a[RXD_GID_LEN] = {
	0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a
};
static const uint8_t ip6_b[RXD_GID_LEN] = {
	0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b
};

#define TOS_DATA 0x6a   /* DSCP 26, ECT(0) */
#define TOS_CNP 0xc2    /* DSCP 48, ECT(0) */
#define PSN_DATA 0x123456
#define QPN_DATA 0x000022
#define QPN_UC 0x000055
#define QPN_UD 0x000033
#define QPN_CNP 0x000011

static void
make_l2(struct rxd_pkt *pkt, uint8_t ip_ver, uint8_t vlans)
{
	memcpy(pkt->dmac, mac_b, RXD_ETH_ALEN);
	memcpy(pkt->smac, mac_a, RXD_ETH_ALEN);
	pkt->vlan_count = vlans;
	if (vlans == 1) {
		pkt->vlan_tpid[0] = RXD_ETHER_VLAN;
		pkt->vlan_tci[0] = 3 << 13 | 100;       /* PCP 3, VID 100 */
	} else if (vlans == 2) {
		pkt->vlan_tpid[0] = RXD_ETHER_QINQ;
		pkt->vlan_tci[0] = 10;                  /* S-tag VID 10 */
		pkt->vlan_tpid[1] = RXD_ETHER_VLAN;
		pkt->vlan_tci[1] = 5 << 13 | 20;        /* C-tag PCP 5 VID 20 */
	}
	pkt->ethertype = ip_ver == 4 ? RXD_ETHER_IPV4 : RXD_ETHER_IPV6;
}

static void
make_l3(struct rxd_pkt *pkt, uint8_t ip_ver)
{
	pkt->ip_ver = ip_ver;
	pkt->tos = TOS_DATA;
	pkt->ttl = 64;
	pkt->ip_proto = 17;
	if (ip_ver == 4) {
		pkt->ip_id = 0x1234;
		pkt->ip_df = true;
		rxd_gid_from_v4(pkt->sgid, ip4_a);
		rxd_gid_from_v4(pkt->dgid, ip4_b);
	} else {
		pkt->flow_label = 0x12345;
		memcpy(pkt->sgid, ip6_a, RXD_GID_LEN);
		memcpy(pkt->dgid, ip6_b, RXD_GID_LEN);
	}
	pkt->udp_sport = 49152;
	pkt->udp_dport = RXD_ROCE_UDP_PORT;
}

static void
make_bth(struct rxd_pkt *pkt, const struct rxd_opcode_info *op)
{
	uint16_t f = op->flags;

	pkt->pkey = RXD_DEFAULT_PKEY;
	pkt->dqpn = QPN_DATA;
	pkt->psn = PSN_DATA;
	pkt->se = (f & RXD_OPF_SEND) && (f & RXD_OPF_LAST);
	pkt->ackreq = (f & RXD_OPF_WANT_ACK) && (f & RXD_OPF_LAST);
	if (op->service == RXD_SVC_UC)
		pkt->dqpn = QPN_UC;
	if (op->service == RXD_SVC_UD)
		pkt->dqpn = QPN_UD;
	if (op->service == RXD_SVC_CNP) {
		pkt->dqpn = QPN_CNP;
		pkt->psn = 0;
		pkt->becn = true;
		pkt->tos = TOS_CNP;
	}
}

static uint32_t
reth_len_for(const struct rxd_opcode_info *op, uint32_t payload_len)
{
	if (op->flags & RXD_OPF_ATOMIC_WRITE)
		return RXD_ATOMIC_WRITE_LEN;
	if (!(op->flags & RXD_OPF_WRITE))
		return 65536;                   /* READ REQUEST, FLUSH */
	if (op->flags & RXD_OPF_LAST)
		return payload_len;             /* WRITE ONLY */
	return payload_len * 4;                 /* WRITE FIRST: 4 packets */
}

static void
make_exthdrs(struct rxd_pkt *pkt, const struct rxd_opcode_info *op)
{
	static const uint8_t imm[4] = { 0xde, 0xad, 0xbe, 0xef };
	uint16_t h = op->hdrs;

	if (h & RXD_HDR_FETH) {
		pkt->feth_sel = RXD_FLUSH_SEL_RANGE;
		pkt->feth_plt = RXD_FLUSH_PLT_GLOBAL;
	}
	if (h & RXD_HDR_RETH) {
		pkt->reth_va = 0x7f0000001000ull;
		pkt->reth_rkey = 0x1234;
		pkt->reth_len = reth_len_for(op, pkt->payload_len);
	}
	if (h & RXD_HDR_AETH) {
		pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_ACK,
						   RXD_AETH_CREDIT_INVALID);
		pkt->aeth_msn = 7;
	}
	if (h & RXD_HDR_ATMETH) {
		pkt->atm_va = 0x7f0000003000ull;
		pkt->atm_rkey = 0x4321;
		pkt->atm_swap_add = 0x1111111111111111ull;
		pkt->atm_cmp = 0x2222222222222222ull;
	}
	if (h & RXD_HDR_ATMACK)
		pkt->atm_orig = 0x2222222222222222ull;
	if (h & RXD_HDR_IMMDT)
		memcpy(&pkt->imm, imm, sizeof(imm));
	if (h & RXD_HDR_IETH)
		pkt->ieth_rkey = 0x5678;
	if (h & RXD_HDR_DETH) {
		pkt->deth_qkey = 0x11111111;
		pkt->deth_sqpn = 0x44;
	}
}

void
rxd_test_pkt_make(struct rxd_pkt *pkt, uint8_t opcode, uint8_t ip_ver,
		  uint8_t vlans, uint32_t payload_len)
{
	const struct rxd_opcode_info *op = &rxd_opcode_table[opcode];

	memset(pkt, 0, sizeof(*pkt));
	pkt->kind = RXD_FRAME_ROCE;
	pkt->opcode = opcode;
	pkt->payload_len = payload_len;
	make_l2(pkt, ip_ver, vlans);
	make_l3(pkt, ip_ver);
	make_bth(pkt, op);
	make_exthdrs(pkt, op);
}

unsigned int
rxd_test_payload_sizes(uint8_t opcode, uint32_t *sizes)
{
	static const uint32_t pmtu[] = { 256, 1024, 4096 };
	static const uint32_t last[] = { 0, 1, 3, 4, 255, 256, 1024, 4096 };
	uint32_t f = rxd_opcode_table[opcode].flags;
	const uint32_t *src = last;
	unsigned int n = 8;

	if (!(f & RXD_OPF_PAYLOAD)) {
		sizes[0] = 0;
		return 1;
	}
	if (f & RXD_OPF_ATOMIC_WRITE) {
		sizes[0] = RXD_ATOMIC_WRITE_LEN;
		return 1;
	}
	if (!(f & RXD_OPF_LAST)) {
		src = pmtu;
		n = 3;
	}
	memcpy(sizes, src, n * sizeof(*src));
	return n;
}

uint32_t
rxd_test_payload_typical(uint8_t opcode)
{
	uint32_t f = rxd_opcode_table[opcode].flags;

	if (!(f & RXD_OPF_PAYLOAD))
		return 0;
	if (f & RXD_OPF_ATOMIC_WRITE)
		return RXD_ATOMIC_WRITE_LEN;
	if (!(f & RXD_OPF_LAST))
		return 1024;
	return (f & RXD_OPF_FIRST) ? 61 : 333;
}

void
rxd_test_payload_fill(uint8_t *buf, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 131u + seed) ^ (i >> 8));
}

/* Comparison table. */

enum {
	GRP_ALWAYS = 0,
	GRP_L2 = RXD_TEST_CMP_L2,
	GRP_UDP_CSUM = RXD_TEST_CMP_UDP_CSUM,
	GRP_ICRC = RXD_TEST_CMP_ICRC,
};

struct pkt_field {
	const char *name;
	size_t off;
	size_t size;
	unsigned int group;  /* enum rxd_test_cmp bit, 0 = always */
	uint16_t hdr;        /* extension header that carries it, or 0 */
	uint8_t ip_ver;      /* 4 or 6 if only there, 0 = both */
};

#define FIELD(f, grp, hdr, ver) \
	{ #f, offsetof(struct rxd_pkt, f), \
	  sizeof(((struct rxd_pkt *)0)->f), grp, hdr, ver }

static const struct pkt_field pkt_fields[] = {
	FIELD(dmac, GRP_L2, 0, 0),
	FIELD(smac, GRP_L2, 0, 0),
	FIELD(vlan_count, GRP_L2, 0, 0),
	FIELD(vlan_tpid, GRP_L2, 0, 0),
	FIELD(vlan_tci, GRP_L2, 0, 0),
	FIELD(ethertype, GRP_L2, 0, 0),
	FIELD(kind, GRP_ALWAYS, 0, 0),
	FIELD(ip_ver, GRP_ALWAYS, 0, 0),
	FIELD(tos, GRP_ALWAYS, 0, 0),
	FIELD(ttl, GRP_ALWAYS, 0, 0),
	FIELD(ip_proto, GRP_ALWAYS, 0, 0),
	FIELD(ip_id, GRP_ALWAYS, 0, 4),
	FIELD(ip_df, GRP_ALWAYS, 0, 4),
	FIELD(flow_label, GRP_ALWAYS, 0, 6),
	FIELD(sgid, GRP_ALWAYS, 0, 0),
	FIELD(dgid, GRP_ALWAYS, 0, 0),
	FIELD(udp_sport, GRP_ALWAYS, 0, 0),
	FIELD(udp_dport, GRP_ALWAYS, 0, 0),
	FIELD(udp_csum, GRP_UDP_CSUM, 0, 0),
	FIELD(opcode, GRP_ALWAYS, 0, 0),
	FIELD(se, GRP_ALWAYS, 0, 0),
	FIELD(mig, GRP_ALWAYS, 0, 0),
	FIELD(fecn, GRP_ALWAYS, 0, 0),
	FIELD(becn, GRP_ALWAYS, 0, 0),
	FIELD(ackreq, GRP_ALWAYS, 0, 0),
	FIELD(padcnt, GRP_ALWAYS, 0, 0),
	FIELD(tver, GRP_ALWAYS, 0, 0),
	FIELD(pkey, GRP_ALWAYS, 0, 0),
	FIELD(dqpn, GRP_ALWAYS, 0, 0),
	FIELD(psn, GRP_ALWAYS, 0, 0),
	FIELD(reth_va, GRP_ALWAYS, RXD_HDR_RETH, 0),
	FIELD(reth_rkey, GRP_ALWAYS, RXD_HDR_RETH, 0),
	FIELD(reth_len, GRP_ALWAYS, RXD_HDR_RETH, 0),
	FIELD(aeth_syndrome, GRP_ALWAYS, RXD_HDR_AETH, 0),
	FIELD(aeth_msn, GRP_ALWAYS, RXD_HDR_AETH, 0),
	FIELD(atm_va, GRP_ALWAYS, RXD_HDR_ATMETH, 0),
	FIELD(atm_rkey, GRP_ALWAYS, RXD_HDR_ATMETH, 0),
	FIELD(atm_swap_add, GRP_ALWAYS, RXD_HDR_ATMETH, 0),
	FIELD(atm_cmp, GRP_ALWAYS, RXD_HDR_ATMETH, 0),
	FIELD(atm_orig, GRP_ALWAYS, RXD_HDR_ATMACK, 0),
	FIELD(imm, GRP_ALWAYS, RXD_HDR_IMMDT, 0),
	FIELD(ieth_rkey, GRP_ALWAYS, RXD_HDR_IETH, 0),
	FIELD(deth_qkey, GRP_ALWAYS, RXD_HDR_DETH, 0),
	FIELD(deth_sqpn, GRP_ALWAYS, RXD_HDR_DETH, 0),
	FIELD(feth_sel, GRP_ALWAYS, RXD_HDR_FETH, 0),
	FIELD(feth_plt, GRP_ALWAYS, RXD_HDR_FETH, 0),
	FIELD(op, GRP_ALWAYS, 0, 0),
	FIELD(payload_len, GRP_ALWAYS, 0, 0),
	FIELD(icrc, GRP_ICRC, 0, 0),
};

#define N_FIELDS (sizeof(pkt_fields) / sizeof(pkt_fields[0]))

static bool
field_applies(const struct pkt_field *f, const struct rxd_pkt *a,
	      unsigned int what)
{
	if (f->group != GRP_ALWAYS && !(f->group & what))
		return false;
	if (f->ip_ver != 0 && f->ip_ver != a->ip_ver)
		return false;
	if (f->hdr == 0)
		return true;
	return a->op != NULL && (a->op->hdrs & f->hdr);
}

/* Offsets relative to the IP header, so L2-less parses compare too. */
static const char *
layout_diff(const struct rxd_pkt *a, const struct rxd_pkt *b)
{
	if (a->l4_off - a->l3_off != b->l4_off - b->l3_off)
		return "l4_off";
	if (a->bth_off - a->l3_off != b->bth_off - b->l3_off)
		return "bth_off";
	if (a->payload_off - a->l3_off != b->payload_off - b->l3_off)
		return "payload_off";
	if (a->frame_len - a->l3_off != b->frame_len - b->l3_off)
		return "frame_len";
	return NULL;
}

const char *
rxd_test_pkt_diff(const struct rxd_pkt *a, const struct rxd_pkt *b,
		  unsigned int what)
{
	const uint8_t *pa = (const uint8_t *)a;
	const uint8_t *pb = (const uint8_t *)b;
	size_t i;

	for (i = 0; i < N_FIELDS; i++) {
		const struct pkt_field *f = &pkt_fields[i];

		if (!field_applies(f, a, what))
			continue;
		if (memcmp(pa + f->off, pb + f->off, f->size) != 0)
			return f->name;
	}
	if (what & RXD_TEST_CMP_L2 && a->l3_off != b->l3_off)
		return "l3_off";
	return layout_diff(a, b);
}
