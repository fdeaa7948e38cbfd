/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: capture files through libpcap.  Reading goes through
 * pcap_open_offline(), which takes pcap and pcapng alike; writing uses a
 * "dead" handle and pcap_dump.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pcap/pcap.h>

#include "rxd_test_pcap.h"

struct rxd_test_pcap_out {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	unsigned int count;
};

int
rxd_test_pcap_foreach(const char *path, rxd_test_frame_cb cb, void *arg)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct rxd_test_frame f = { .no = 0 };
	struct pcap_pkthdr *hdr;
	const u_char *data;
	pcap_t *p;
	int rc;

	p = pcap_open_offline(path, errbuf);
	if (p == NULL) {
		fprintf(stderr, "%s: %s\n", path, errbuf);
		return -1;
	}
	f.linktype = pcap_datalink(p);
	while ((rc = pcap_next_ex(p, &hdr, &data)) == 1) {
		f.data = data;
		f.caplen = hdr->caplen;
		f.wirelen = hdr->len;
		f.no++;
		if (cb(&f, arg) != 0)
			break;
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	pcap_close(p);
	return (int)f.no;
}

struct rxd_test_pcap_out *
rxd_test_pcap_create(const char *path, int linktype)
{
	struct rxd_test_pcap_out *out = calloc(1, sizeof(*out));

	if (out == NULL)
		return NULL;
	out->pcap = pcap_open_dead(linktype, 65535);
	if (out->pcap == NULL)
		goto fail;
	out->dumper = pcap_dump_open(out->pcap, path);
	if (out->dumper == NULL) {
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(out->pcap));
		pcap_close(out->pcap);
		goto fail;
	}
	return out;
fail:
	free(out);
	return NULL;
}

void
rxd_test_pcap_write(struct rxd_test_pcap_out *out, const uint8_t *data,
		    uint32_t len)
{
	struct pcap_pkthdr hdr = {
		.ts = { .tv_sec = 1700000000, .tv_usec = out->count },
		.caplen = len,
		.len = len,
	};

	pcap_dump((u_char *)out->dumper, &hdr, data);
	out->count++;
}

int
rxd_test_pcap_close(struct rxd_test_pcap_out *out)
{
	int rc = pcap_dump_flush(out->dumper);

	pcap_dump_close(out->dumper);
	pcap_close(out->pcap);
	free(out);
	return rc == 0 ? 0 : -1;
}
