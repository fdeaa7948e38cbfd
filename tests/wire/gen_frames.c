/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen-frames: write one frame per valid row of rxd_opcode_table (RC, UC,
 * UD, CNP) over IPv4 and IPv6, built by lib/wire with realistic fields,
 * plus a VLAN/UDP-checksum pass and one ACKNOWLEDGE per AETH syndrome
 * kind, to a pcap file (Ethernet).  roce_check.sh hands the file to the
 * independent checker.  Prints the number of frames written on stdout.
 *
 * usage: gen-frames OUT.pcap
 */
#include <stdio.h>
#include <stdlib.h>

#include "rxd_test_pcap.h"
#include "rxd_test_pkt.h"
#include "rxd_wire.h"

/* FIRST and MIDDLE packets carry this much (rxd_test_payload_typical). */
#define GEN_PMTU 1024

/* The shapes every opcode is written in. */
static const struct shape {
	uint8_t ip_ver;
	uint8_t vlans;
	bool udp_csum;
} shapes[] = {
	{ 4, 0, false },
	{ 6, 0, false },
	{ 4, 1, true },
	{ 6, 2, true },
};

/* ACKNOWLEDGE syndromes: ACK with credits, RNR NAK, each NAK code. */
static const struct {
	enum rxd_aeth_type type;
	uint8_t code;
} ack_syndromes[] = {
	{ RXD_AETH_ACK, 0 },
	{ RXD_AETH_ACK, 13 },
	{ RXD_AETH_RNR_NAK, 14 },
	{ RXD_AETH_NAK, RXD_NAK_PSN_SEQ },
	{ RXD_AETH_NAK, RXD_NAK_INVALID_REQ },
	{ RXD_AETH_NAK, RXD_NAK_REMOTE_ACCESS },
	{ RXD_AETH_NAK, RXD_NAK_REMOTE_OP },
};

/* PSNs count up per stream, as roce-check follows them. */
#define MAX_STREAMS 16

struct stream {
	uint8_t ip_ver;
	uint32_t dqpn;
	bool resp;
	uint32_t psn;
};

struct gen {
	struct rxd_test_pcap_out *out;
	uint8_t payload[RXD_MAX_PMTU];
	uint8_t frame[RXD_TEST_FRAME_MAX];
	struct stream streams[MAX_STREAMS];
	unsigned int n_streams;
	unsigned int count;
};

static uint32_t *
stream_psn(struct gen *g, const struct rxd_pkt *pkt)
{
	bool resp = rxd_opcode_table[pkt->opcode].flags & RXD_OPF_RESP;
	struct stream *st;
	unsigned int i;

	for (i = 0; i < g->n_streams; i++) {
		st = &g->streams[i];
		if (st->ip_ver == pkt->ip_ver && st->dqpn == pkt->dqpn &&
		    st->resp == resp)
			return &st->psn;
	}
	if (g->n_streams == MAX_STREAMS)
		abort();
	st = &g->streams[g->n_streams++];
	*st = (struct stream){ pkt->ip_ver, pkt->dqpn, resp, 1000 };
	return &st->psn;
}

static int
emit(struct gen *g, struct rxd_pkt *pkt)
{
	uint32_t *psn = stream_psn(g, pkt);
	uint32_t len;

	pkt->psn = (*psn)++ & RXD_PSN_MASK;
	if (pkt->opcode == RXD_OP_RC_READ_REQ) /* one PSN per response */
		*psn += (pkt->reth_len + GEN_PMTU - 1) / GEN_PMTU - 1;
	if (pkt->opcode == RXD_OP_CNP)
		pkt->psn = 0;
	len = rxd_wire_build(pkt, g->payload, g->frame, sizeof(g->frame));
	if (len == 0) {
		fprintf(stderr, "gen-frames: cannot build opcode 0x%02x\n",
			pkt->opcode);
		return -1;
	}
	rxd_test_pcap_write(g->out, g->frame, len);
	g->count++;
	return 0;
}

static int
emit_opcode(struct gen *g, uint8_t op, const struct shape *s)
{
	struct rxd_pkt pkt;

	rxd_test_pkt_make(&pkt, op, s->ip_ver, s->vlans,
			  rxd_test_payload_typical(op));
	pkt.udp_csum = s->udp_csum;
	return emit(g, &pkt);
}

static int
emit_acks(struct gen *g, uint8_t ip_ver)
{
	struct rxd_pkt pkt;
	unsigned int i;

	for (i = 0; i < sizeof(ack_syndromes) / sizeof(ack_syndromes[0]);
	     i++) {
		rxd_test_pkt_make(&pkt, RXD_OP_RC_ACK, ip_ver, 0, 0);
		pkt.aeth_syndrome = rxd_aeth_make(ack_syndromes[i].type,
						  ack_syndromes[i].code);
		if (emit(g, &pkt) != 0)
			return -1;
	}
	return 0;
}

/* The CNP rxd's transport sends (rxd_wire_make_cnp() over a connection's
 * template), and data frames with each ECN codepoint. */
static int
emit_congestion(struct gen *g, uint8_t ip_ver)
{
	static const uint8_t ecn[] = { RXD_ECN_NOT_ECT, RXD_ECN_ECT1,
		RXD_ECN_ECT0, RXD_ECN_CE };
	struct rxd_pkt pkt;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		rxd_test_pkt_make(&pkt, RXD_OP_RC_ACK, ip_ver, 0, 0);
		rxd_wire_make_cnp(&pkt, 48, i == 1);
		if (emit(g, &pkt) != 0)
			return -1;
	}
	for (i = 0; i < sizeof(ecn); i++) {
		rxd_test_pkt_make(&pkt, RXD_OP_RC_WRITE_ONLY, ip_ver, 0,
				  rxd_test_payload_typical(RXD_OP_RC_WRITE_ONLY));
		pkt.tos = rxd_tos_with_ecn(pkt.tos, ecn[i]);
		if (emit(g, &pkt) != 0)
			return -1;
	}
	return 0;
}

static int
generate(struct gen *g)
{
	unsigned int s, op;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (op = 0; op < 256; op++)
			if (rxd_opcode_table[op].name != NULL &&
			    emit_opcode(g, (uint8_t)op, &shapes[s]) != 0)
				return -1;
	if (emit_acks(g, 4) != 0 || emit_acks(g, 6) != 0)
		return -1;
	if (emit_congestion(g, 4) != 0 || emit_congestion(g, 6) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct gen g;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(g.payload); i++)
		g.payload[i] = (uint8_t)(i * 7 + 1);
	g.out = rxd_test_pcap_create(argv[1], RXD_TEST_DLT_EN10MB);
	if (g.out == NULL)
		return 1;
	if (generate(&g) != 0) {
		rxd_test_pcap_close(g.out);
		return 1;
	}
	if (rxd_test_pcap_close(g.out) != 0)
		return 1;
	printf("%u\n", g.count);
	return 0;
}
