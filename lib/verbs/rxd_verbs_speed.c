/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet speed to IB active width and speed (see rxd_verbs_speed.h).
 */
#include <stddef.h>

#include "rxd_verbs_speed.h"

/* ibv_port_attr encodings (IBTA PortInfo:LinkWidthActive/LinkSpeedActive) */
enum { W1X = 1, W4X = 2, W2X = 16 };
enum { SDR = 1, DDR = 2, FDR10 = 8, EDR = 32, HDR = 64, NDR = 128 };

/*
 * Ethernet speeds up to max_mbps report this pair: the steps Linux's
 * ib_core takes for Soft-RoCE and mlx5 (ib_get_eth_speed() when the
 * driver reports no lane count), whose data rates are width x lane rate:
 * 1X SDR 2.5 Gb/s (for <= 1G), 1X FDR10 10, 4X DDR 20, 1X EDR 25,
 * 4X FDR10 40, 2X EDR 50, 4X EDR 100, 4X HDR 200, then 4X NDR 400.
 * Kernels before 6.7 (Debian 12's 6.1) stop at 40G and report 4X EDR
 * for every faster link.
 */
static const struct {
	uint32_t max_mbps;
	uint8_t width, speed;
} speed_table[] = {
	{ 1000, W1X, SDR },
	{ 10000, W1X, FDR10 },
	{ 20000, W4X, DDR },
	{ 25000, W1X, EDR },
	{ 40000, W4X, FDR10 },
	{ 50000, W2X, EDR },
	{ 100000, W4X, EDR },
	{ 200000, W4X, HDR },
	{ UINT32_MAX, W4X, NDR },
};

void
rxd_verbs_ib_speed(uint32_t mbps, uint8_t *width, uint8_t *speed)
{
	size_t i = 0;

	if (mbps == RXD_SPEED_UNKNOWN || mbps == 0)
		mbps = 1000;
	while (mbps > speed_table[i].max_mbps)
		i++;
	*width = speed_table[i].width;
	*speed = speed_table[i].speed;
}
