/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_sport_connected() and rxd_sport_datagram() against Soft-RoCE's own
 * frames (tests/vectors/rxe): every RoCE frame of every capture left from
 * the UDP source port the functions give its sender's QP.  A datagram
 * frame names its sender (DETH); a connected frame's sender is one of
 * the QPNs frames in the other direction go to, and its flow label the
 * one of its connection's CM REQ (rdma_cm captures), or none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "rxd_test_pcap.h"
#include "rxd_wire.h"

#define MAX_FRAMES 8192
#define MAX_REQS 16
#define CM_REQ_ATTR 0x0010
#define MAD_ATTR_OFF 16           /* attribute ID in the MAD header */
#define REQ_FLOW_LABEL_OFF 112    /* primary path flow label (top 20 bits) */
#define REQ_LOCAL_QPN_OFF 56      /* local QPN (top 24 bits) */

static const char *const captures[] = {
	"rc_send_pingpong.pcap", "rc_send_only_small.pcap",
	"rc_write_only_small.pcap", "rc_write_64k.pcap", "rc_read_small.pcap",
	"rc_read_64k.pcap", "rc_atomic_fetch_add.pcap",
	"rc_atomic_cmp_swap.pcap", "ud_send_pingpong.pcap", "cm_rping.pcap",
	"cm_perftest_send_rdmacm.pcap",
};

/* What the check needs of one RoCE frame. */
struct frame {
	uint8_t sip[16], dip[16];
	uint16_t sport;
	uint32_t dqpn;
	bool datagram;
	uint32_t sqpn;     /* DETH's, datagram frames */
};

struct walk {
	struct frame f[MAX_FRAMES];
	unsigned int n;
	uint32_t req_qpn[MAX_REQS], req_fl[MAX_REQS];
	unsigned int n_req;
};

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/* A CM REQ to QP1: note its local QPN and flow label. */
static void
note_req(struct walk *w, const uint8_t *mad, uint32_t len)
{
	if (len < REQ_FLOW_LABEL_OFF + 4 ||
	    (mad[MAD_ATTR_OFF] << 8 | mad[MAD_ATTR_OFF + 1]) != CM_REQ_ATTR ||
	    w->n_req == MAX_REQS)
		return;
	w->req_qpn[w->n_req] = get_be32(mad + REQ_LOCAL_QPN_OFF) >> 8;
	w->req_fl[w->n_req] = get_be32(mad + REQ_FLOW_LABEL_OFF) >> 12;
	w->n_req++;
}

static int
on_frame(const struct rxd_test_frame *tf, void *arg)
{
	struct walk *w = arg;
	const uint8_t *base = tf->data;
	uint32_t len = tf->caplen;
	struct rxd_pkt pkt;
	struct frame *f;
	enum rxd_wire_err err;

	if (tf->linktype == RXD_TEST_DLT_LINUX_SLL) {
		base += RXD_TEST_SLL_HLEN;
		len -= RXD_TEST_SLL_HLEN;
		err = rxd_wire_parse_ip(base, len, &pkt, RXD_PARSE_NO_ICRC);
	} else {
		err = rxd_wire_parse(base, len, &pkt, RXD_PARSE_NO_ICRC);
	}
	if (err != RXD_WIRE_OK || pkt.kind != RXD_FRAME_ROCE ||
	    w->n == MAX_FRAMES)
		return 0;
	f = &w->f[w->n++];
	memcpy(f->sip, pkt.sgid, 16);
	memcpy(f->dip, pkt.dgid, 16);
	f->sport = pkt.udp_sport;
	f->dqpn = pkt.dqpn;
	f->datagram = pkt.op->hdrs & RXD_HDR_DETH;
	f->sqpn = pkt.deth_sqpn;
	if (f->datagram && pkt.dqpn == 1)
		note_req(w, base + pkt.payload_off, pkt.payload_len);
	return 0;
}

/* The flow label of the connection between QPNs a and b (0: none). */
static uint32_t
flow_label(const struct walk *w, uint32_t a, uint32_t b)
{
	unsigned int i;

	for (i = 0; i < w->n_req; i++)
		if (w->req_qpn[i] == a || w->req_qpn[i] == b)
			return w->req_fl[i];
	return 0;
}

/* Some QPN frames from f's destination to its source go to (not QP1)
 * is a sender whose port is f's. */
static bool
connected_ok(const struct walk *w, const struct frame *f)
{
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		const struct frame *b = &w->f[i];

		if (b->datagram || memcmp(b->sip, f->dip, 16) ||
		    memcmp(b->dip, f->sip, 16))
			continue;
		if (rxd_sport_connected(flow_label(w, b->dqpn, f->dqpn),
					b->dqpn, f->dqpn) == f->sport)
			return true;
	}
	return false;
}

static void
check_capture(const char *name, unsigned int *checked)
{
	static struct walk w;
	char path[512];
	unsigned int i, bad = 0;
	const char *dir = getenv("RXD_TEST_VECTORS");

	memset(&w, 0, sizeof(w));
	snprintf(path, sizeof(path), "%s/rxe/%s",
		 dir != NULL && *dir ? dir : RXD_TEST_VECTORS_DIR, name);
	cr_assert_geq(rxd_test_pcap_foreach(path, on_frame, &w), 0,
		      "cannot read %s", path);
	cr_assert_gt(w.n, 0, "%s: no RoCE frame", name);
	for (i = 0; i < w.n; i++) {
		const struct frame *f = &w.f[i];
		bool ok = f->datagram ?
			rxd_sport_datagram(f->sqpn) == f->sport :
			connected_ok(&w, f);

		if (!ok && bad++ < 3)
			cr_log_error("%s: frame to QPN 0x%x from port 0x%x: "
				     "not the sender's", name, f->dqpn,
				     f->sport);
	}
	cr_expect_eq(bad, 0, "%s: %u of %u frames from another port", name,
		     bad, w.n);
	*checked += w.n;
	cr_log_info("%s: %u frames, %u REQs", name, w.n, w.n_req);
}

Test(sport, soft_roce_captures)
{
	unsigned int i, checked = 0;

	for (i = 0; i < sizeof(captures) / sizeof(captures[0]); i++)
		check_capture(captures[i], &checked);
	cr_log_info("sport: %u RoCE frames of %zu captures from the port "
		    "rxd predicts", checked,
		    sizeof(captures) / sizeof(captures[0]));
}

/* Both ends of a connection without a flow label send from one port. */
Test(sport, connected_is_symmetric)
{
	uint32_t a, b;

	for (a = 1; a < 0x1000000; a = a * 7 + 3)
		for (b = 2; b < 0x1000000; b = b * 5 + 1)
			cr_assert_eq(rxd_sport_connected(0, a, b),
				     rxd_sport_connected(0, b, a));
}

/* Every port is in RoCEv2's entropy range, 0xC000..0xFFFF. */
Test(sport, in_entropy_range)
{
	uint32_t q;

	for (q = 0; q < 0x1000000; q += 4099) {
		cr_assert_geq(rxd_sport_datagram(q), 0xc000);
		cr_assert_geq(rxd_sport_connected(q & 0xfffff, q, q + 1), 0xc000);
		cr_assert_geq(rxd_sport_connected(0, q, q + 1), 0xc000);
	}
}
