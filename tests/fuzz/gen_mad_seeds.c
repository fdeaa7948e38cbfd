/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen-mad-seeds: seeds for fuzz_cm_mad made by the encoder, one MAD file
 * per attribute the codec knows (every field set to a different value;
 * REQ and SIDR_REQ carrying an RDMA CM IP header, IPv4 and IPv6) plus a
 * MAD one byte short.
 *
 * usage: gen-mad-seeds OUTDIR
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rxd_cm_mad.h"

static const uint16_t attrs[] = {
	RXD_CM_REQ, RXD_CM_MRA, RXD_CM_REJ, RXD_CM_REP, RXD_CM_RTU,
	RXD_CM_DREQ, RXD_CM_DREP, RXD_CM_SIDR_REQ, RXD_CM_SIDR_REP,
};

static int
write_mad(const char *dir, const char *name, const uint8_t *mad,
	  size_t len)
{
	char path[1024];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "%s/gen-%s", dir, name);
	fp = fopen(path, "wb");
	if (fp == NULL) {
		perror(path);
		return -1;
	}
	ok = fwrite(mad, 1, len, fp) == len;
	if (fclose(fp) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/* Every field and byte area a distinct, recognisable value. */
static void
fill(struct rxd_cm_msg *m, uint16_t attr, uint8_t ip_version)
{
	struct rxd_cm_ip_hdr h = { .ip_version = ip_version,
				   .src_port = 0xa941 };
	unsigned int i;

	rxd_cm_msg_init(m, attr, 0x0123456789abcdefull + attr);
	for (i = 0; i < RXD_CMF_COUNT; i++)
		m->f[i] = 0x0101010101010101ull * (i + 1);
	for (i = 0; i < 4; i++)
		memset(m->gid[i], 0x10 + (int)i, sizeof(m->gid[i]));
	memset(m->info, 0x20, sizeof(m->info));
	memset(m->pdata, 0x30, sizeof(m->pdata));
	if (ip_version == 0)
		return;
	memset(h.src, 0x0a, sizeof(h.src));
	memset(h.dst, 0x0b, sizeof(h.dst));
	rxd_cm_ip_hdr_encode(&h, m->pdata);
}

/* The MAD of attr, or with cut set the same one byte short. */
static int
write_attr(const char *dir, uint16_t attr, uint8_t ip_version, bool cut)
{
	uint8_t mad[RXD_MAD_LEN];
	struct rxd_cm_msg m;
	char name[32];

	fill(&m, attr, ip_version);
	if (rxd_cm_mad_encode(&m, mad) != 0)
		return -1;
	snprintf(name, sizeof(name), "%s-ip%u%s", rxd_cm_attr_name(attr),
		 ip_version, cut ? "-short" : "");
	return write_mad(dir, name, mad, sizeof(mad) - (cut ? 1 : 0));
}

int
main(int argc, char **argv)
{
	static const uint8_t ip_versions[] = { 0, 4, 6 };
	unsigned int i, v, n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		for (v = 0; v < sizeof(ip_versions); v++, n++)
			if (write_attr(argv[1], attrs[i], ip_versions[v],
				       false) != 0)
				return 1;
	if (write_attr(argv[1], RXD_CM_REQ, 4, true) != 0)
		return 1;
	printf("gen-mad-seeds: %u seeds in %s\n", n + 1, argv[1]);
	return 0;
}
