/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_port_size() against the limits PMDs report in rte_eth_dev_info:
 * mbufs big enough for net_virtio's own header at any MTU it takes (the
 * "RxQ mbuf pool object size is too small" of MTUs above 2018), the PMD's
 * minimum buffer, descriptor counts inside rx_desc_lim/tx_desc_lim, and a
 * pool that covers every ring and cache.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <rte_mbuf.h>

#include "rxd_port_size.h"

static struct rte_eth_dev_info info;
static struct rxd_port_want want;
static struct rxd_port_size size;
static char err[128];

/* A PMD that reports nothing special; rxd's defaults asked of it. */
static void
plain(void)
{
	memset(&info, 0, sizeof(info));
	info.max_rx_pktlen = 1518;
	info.max_mtu = UINT16_MAX;
	info.rx_desc_lim.nb_max = UINT16_MAX;
	info.tx_desc_lim.nb_max = UINT16_MAX;
	want = (struct rxd_port_want){ .mtu = 1500, .rx_desc = 1024,
		.tx_desc = 1024, .nb_rxq = 1, .nb_txq = 1, .mbufs = 16383,
		.cache = 256, .lcores = 2 };
	err[0] = '\0';
}

/* net_virtio (DPDK 22.11): VIRTIO_MAX_RX_PKTLEN 9728 and a max_mtu 30
 * bytes below (Ethernet header, one VLAN tag, 12-byte virtio-net header). */
static void
virtio(void)
{
	info.max_rx_pktlen = 9728;
	info.max_mtu = 9728 - 14 - 4 - 12;
	info.min_rx_bufsize = 64;
	info.rx_desc_lim = (struct rte_eth_desc_lim){ .nb_max = 256,
		.nb_min = 1, .nb_align = 1 };
	info.tx_desc_lim = info.rx_desc_lim;
}

TestSuite(port_size, .init = plain);

Test(port_size, virtio_gets_room_for_its_header)
{
	static const uint32_t mtus[] = { 1500, 2018, 2019, 4200, 9000 };
	size_t i;

	virtio();
	for (i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++) {
		want.mtu = mtus[i];
		cr_assert_eq(rxd_port_size(&info, &want, &size, err,
					   sizeof(err)), 0, "%s", err);
		/* virtio's rx queue setup wants the MTU plus 30 bytes */
		cr_assert_geq(size.frame_room, mtus[i] + 30, "MTU %u",
			      mtus[i]);
		cr_assert_eq(size.data_room,
			     size.frame_room + RTE_PKTMBUF_HEADROOM);
	}
	want.mtu = 2019;                  /* the first MTU that failed */
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.frame_room, 2049);
}

Test(port_size, rxd_overhead_when_the_pmd_needs_less)
{
	/* net_e1000_em: 22 bytes above max_mtu, fewer than rxd's 26 (two
	 * VLAN tags) */
	info.max_rx_pktlen = 16128;
	info.max_mtu = 16128 - 22;
	want.mtu = 9000;
	cr_assert_eq(rxd_port_size(&info, &want, &size, err, sizeof(err)), 0);
	cr_assert_eq(size.frame_room, 9000 + RXD_PORT_FRAME_OVERHEAD);
}

Test(port_size, unrelated_limits_are_no_overhead)
{
	/* net_vmxnet3 (DPDK 22.11): max_rx_pktlen 16384, max_mtu 9000.
	 * Taken as a 7384-byte overhead, MTU 9000 made 16384-byte buffers,
	 * which its 14-bit descriptor length field cannot describe: the
	 * port received nothing (found by interop-nic). */
	info.max_rx_pktlen = 16384;
	info.max_mtu = 9000;
	info.min_rx_bufsize = 1518 + RTE_PKTMBUF_HEADROOM;
	want.mtu = 9000;
	cr_assert_eq(rxd_port_size(&info, &want, &size, err, sizeof(err)), 0);
	cr_assert_eq(size.frame_room, 9000 + RXD_PORT_FRAME_OVERHEAD);
	cr_assert_lt(size.frame_room, 16384);
}

Test(port_size, at_least_the_default_and_the_pmd_minimum)
{
	cr_assert_eq(rxd_port_size(&info, &want, &size, err, sizeof(err)), 0);
	cr_assert_eq(size.frame_room, RTE_MBUF_DEFAULT_DATAROOM);
	info.min_rx_bufsize = 3072;
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.frame_room, 3072);
	want.min_frame = 4096;            /* af_packet's framesz */
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.frame_room, 4096);
}

Test(port_size, frames_too_big_for_an_mbuf)
{
	want.mtu = 65500;
	cr_assert_eq(rxd_port_size(&info, &want, &size, err, sizeof(err)), -1);
	cr_assert(strstr(err, "do not fit an mbuf") != NULL, "%s", err);
}

Test(port_size, descriptors_within_the_limits)
{
	/* e1000: 32..4096 in steps of 8; vmxnet3-like: at least 128, by 32 */
	info.rx_desc_lim = (struct rte_eth_desc_lim){ .nb_max = 4096,
		.nb_min = 32, .nb_align = 8 };
	info.tx_desc_lim = (struct rte_eth_desc_lim){ .nb_max = 4096,
		.nb_min = 128, .nb_align = 32 };
	want.rx_desc = 1001;
	want.tx_desc = 100;
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.rx_desc, 1008);
	cr_assert_eq(size.tx_desc, 128);
	want.rx_desc = 16384;
	want.tx_desc = 1000;
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.rx_desc, 4096);
	cr_assert_eq(size.tx_desc, 1024);
	virtio();                          /* a 256-entry virtqueue */
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.rx_desc, 256);
}

Test(port_size, pool_covers_rings_and_caches)
{
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.mbufs, 16383, "the configured size when enough");
	want.rx_desc = want.tx_desc = 4096;
	want.nb_rxq = want.nb_txq = 2;
	want.lcores = 4;
	rxd_port_size(&info, &want, &size, err, sizeof(err));
	cr_assert_eq(size.mbufs, 4 * 4096 + 4 * 256);
}
