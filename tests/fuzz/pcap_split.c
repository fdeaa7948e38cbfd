/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap-split: turn captures into libFuzzer seed corpora, one file per
 * frame.  For fuzz_parse, each frame prefixed with the mode byte it expects
 * (0 for Ethernet frames, 4 = "starts at the IP header" for Linux cooked
 * captures, whose 16-byte SLL header is dropped).  With --mad, for
 * fuzz_cm_mad: the 256-byte MAD of each RoCEv2 frame sent to QP1.
 *
 * usage: pcap-split [--mad] OUTDIR FILE.pcap|FILE.pcapng ...
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rxd_test_pcap.h"
#include "rxd_wire.h"

#define MAD_LEN 256
#define GSI_QPN 1

#define MODE_ETHERNET 0
#define MODE_IP_ONLY 4

struct split {
	bool mad;
	const char *outdir;
	const char *name;
	unsigned int written;
	int failed;
};

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* mode < 0: no mode byte. */
static int
write_seed(const struct split *s, unsigned int no, int mode,
	   const uint8_t *data, uint32_t len)
{
	char path[1024];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "%s/%s-%04u", s->outdir, s->name, no);
	fp = fopen(path, "wb");
	if (fp == NULL) {
		perror(path);
		return -1;
	}
	ok = (mode < 0 || fputc(mode, fp) != EOF) &&
	     fwrite(data, 1, len, fp) == len;
	if (fclose(fp) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/* The MAD of a frame to QP1 (write_seed's result), 1 for other frames. */
static int
write_mad(const struct split *s, const struct rxd_test_frame *f)
{
	struct rxd_pkt p;

	if (rxd_wire_parse(f->data, f->caplen, &p, 0) != RXD_WIRE_OK ||
	    p.kind != RXD_FRAME_ROCE || p.dqpn != GSI_QPN ||
	    p.payload_len != MAD_LEN)
		return 1;
	return write_seed(s, f->no, -1, f->data + p.payload_off, MAD_LEN);
}

static int
split_frame(const struct rxd_test_frame *f, void *arg)
{
	struct split *s = arg;
	int rc;

	if (s->mad) {
		rc = write_mad(s, f);
		if (rc > 0)
			return 0;
	} else if (f->linktype == RXD_TEST_DLT_LINUX_SLL) {
		if (f->caplen < RXD_TEST_SLL_HLEN)
			return 0;
		rc = write_seed(s, f->no, MODE_IP_ONLY,
				f->data + RXD_TEST_SLL_HLEN,
				f->caplen - RXD_TEST_SLL_HLEN);
	} else if (f->linktype == RXD_TEST_DLT_EN10MB) {
		rc = write_seed(s, f->no, MODE_ETHERNET, f->data, f->caplen);
	} else {
		return 0;
	}
	if (rc != 0) {
		s->failed = 1;
		return 1;
	}
	s->written++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct split s = { .written = 0 };
	int i = 1;

	if (argc > 1 && strcmp(argv[1], "--mad") == 0) {
		s.mad = true;
		i++;
	}
	if (argc < i + 2) {
		fprintf(stderr, "usage: %s [--mad] OUTDIR FILE.pcap ...\n",
			argv[0]);
		return 2;
	}
	s.outdir = argv[i];
	for (i++; i < argc; i++) {
		s.name = base_name(argv[i]);
		if (rxd_test_pcap_foreach(argv[i], split_frame, &s) < 0 ||
		    s.failed)
			return 1;
	}
	printf("pcap-split: %u seeds in %s\n", s.written, s.outdir);
	return 0;
}
