/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB width and speed ibv_query_port() reports for each Ethernet link
 * speed: the closest pair, as ib_core gives Soft-RoCE and mlx5, and an
 * unknown speed (net_virtio) as 1000 Mbit/s.
 */
#include <criterion/criterion.h>

#include "rxd_verbs_speed.h"

static const struct {
	uint32_t mbps;
	uint8_t width, speed;        /* ibv_port_attr encodings */
} cases[] = {
	{ 10, 1, 1 }, { 1000, 1, 1 },          /* 1X SDR */
	{ 2500, 1, 8 }, { 10000, 1, 8 },       /* 1X FDR10 */
	{ 20000, 2, 2 },                       /* 4X DDR */
	{ 25000, 1, 32 },                      /* 1X EDR */
	{ 40000, 2, 8 },                       /* 4X FDR10 */
	{ 50000, 16, 32 },                     /* 2X EDR */
	{ 100000, 2, 32 },                     /* 4X EDR */
	{ 200000, 2, 64 },                     /* 4X HDR */
	{ 400000, 2, 128 }, { 800000, 2, 128 },/* 4X NDR */
	{ 0, 1, 1 }, { UINT32_MAX, 1, 1 },     /* none, unknown: as 1G */
};

Test(verbs_speed, closest_ib_pair)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t w = 0, s = 0;

		rxd_verbs_ib_speed(cases[i].mbps, &w, &s);
		cr_expect_eq(w, cases[i].width, "%u Mbit/s: width %u",
			     cases[i].mbps, w);
		cr_expect_eq(s, cases[i].speed, "%u Mbit/s: speed %u",
			     cases[i].mbps, s);
	}
}
