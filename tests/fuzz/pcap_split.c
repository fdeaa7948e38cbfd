/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap-split: turn captures into a libFuzzer seed corpus for fuzz_parse,
 * one file per frame, prefixed with the mode byte fuzz_parse expects
 * (0 for Ethernet frames, 4 = "starts at the IP header" for Linux cooked
 * captures, whose 16-byte SLL header is dropped).
 *
 * usage: pcap-split OUTDIR FILE.pcap|FILE.pcapng ...
 */
#include <stdio.h>
#include <string.h>

#include "rxd_test_pcap.h"

#define MODE_ETHERNET 0
#define MODE_IP_ONLY 4

struct split {
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

static int
write_seed(const struct split *s, unsigned int no, uint8_t mode,
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
	ok = fputc(mode, fp) != EOF && fwrite(data, 1, len, fp) == len;
	if (fclose(fp) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

static int
split_frame(const struct rxd_test_frame *f, void *arg)
{
	struct split *s = arg;
	int rc;

	if (f->linktype == RXD_TEST_DLT_LINUX_SLL) {
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
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUTDIR FILE.pcap ...\n", argv[0]);
		return 2;
	}
	s.outdir = argv[1];
	for (i = 2; i < argc; i++) {
		s.name = base_name(argv[i]);
		if (rxd_test_pcap_foreach(argv[i], split_frame, &s) < 0 ||
		    s.failed)
			return 1;
	}
	printf("pcap-split: %u seeds in %s\n", s.written, s.outdir);
	return 0;
}
