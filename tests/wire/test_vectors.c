/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire tests against the golden captures in tests/vectors:
 *  - rxe/: every frame made by Linux Soft-RoCE parses, every RoCEv2 ICRC
 *    verifies (rxd and an independent reference agree with the wire), and
 *    rebuilding each frame from its parsed fields gives the same bytes;
 *  - synthetic/: every frame gets the verdict roce-check's expected.tsv
 *    gives it, a failing frame for one of the listed reasons.
 * Frame counts are asserted so that a missing or short copy fails.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "rxd_icrc.h"
#include "rxd_test_pcap.h"
#include "rxd_test_pkt.h"
#include "rxd_test_ref.h"
#include "rxd_wire.h"

#ifndef RXD_TEST_VECTORS_DIR
#define RXD_TEST_VECTORS_DIR "tests/vectors"
#endif

/* What each rxe capture holds (frames, RoCEv2 frames), per roce-check. */
struct rxe_file {
	const char *name;
	unsigned int frames;
	unsigned int roce;
};

static const struct rxe_file rxe_files[] = {
	{ "cm_perftest_send_rdmacm.pcap", 68, 66 },
	{ "cm_rping.pcap", 43, 41 },
	{ "host_attach_kernel.pcap", 18, 0 },
	{ "host_attach_userspace.pcap", 8, 0 },
	{ "rc_atomic_cmp_swap.pcap", 40, 40 },
	{ "rc_atomic_fetch_add.pcap", 40, 40 },
	{ "rc_read_64k.pcap", 325, 325 },
	{ "rc_read_small.pcap", 40, 40 },
	{ "rc_send_only_small.pcap", 80, 80 },
	{ "rc_send_pingpong.pcap", 100, 100 },
	{ "rc_write_64k.pcap", 325, 325 },
	{ "rc_write_only_small.pcap", 82, 82 },
	{ "ud_send_pingpong.pcap", 20, 20 },
};

#define N_RXE_FILES (sizeof(rxe_files) / sizeof(rxe_files[0]))
#define RXE_TOTAL_FRAMES 1189
#define RXE_TOTAL_ROCE 1159
#define SYNTH_TOTAL_FRAMES 155
#define SYNTH_TOTAL_FILES 11

/* roce-check reason (substring) -> the rxd errors that may report it. */
#define MAX_ERRS 2

struct reason_map {
	const char *substr;
	enum rxd_wire_err errs[MAX_ERRS]; /* RXD_WIRE_OK ends the list */
	unsigned int skip;                /* parse flags that skip the check */
};

static const struct reason_map reason_map[] = {
	{ "ICRC mismatch", { RXD_WIRE_ICRC }, RXD_PARSE_NO_ICRC },
	{ "UDP checksum", { RXD_WIRE_UDP_CSUM }, RXD_PARSE_NO_CSUM },
	{ "IPv4 header checksum", { RXD_WIRE_IP_CSUM }, RXD_PARSE_NO_CSUM },
	{ "header version", { RXD_WIRE_BTH_VERSION }, 0 },
	{ "unknown/reserved BTH opcode", { RXD_WIRE_OPCODE }, 0 },
	{ "Reliable Datagram", { RXD_WIRE_OPCODE }, 0 },
	{ "XRC", { RXD_WIRE_OPCODE }, 0 },
	{ "requires", { RXD_WIRE_HDR_MISSING }, 0 },
	{ "not a multiple of 4", { RXD_WIRE_PAD }, 0 },
	{ "pad count", { RXD_WIRE_PAD }, 0 },
	{ "not a valid PMTU", { RXD_WIRE_LENGTH }, 0 },
	{ "carries no payload", { RXD_WIRE_LENGTH }, 0 },
	{ "DMA length", { RXD_WIRE_LENGTH }, 0 },
	{ "must carry an ACK syndrome", { RXD_WIRE_AETH }, 0 },
	{ "reserved opcode 10b", { RXD_WIRE_AETH }, 0 },
	{ "NAK code", { RXD_WIRE_AETH }, 0 },
	{ "reserved bit 7", { RXD_WIRE_AETH }, 0 },
	{ "CNP must carry 16", { RXD_WIRE_HDR_MISSING, RXD_WIRE_LENGTH }, 0 },
	{ "UDP length", { RXD_WIRE_UDP_LEN }, 0 },
	{ "fragment", { RXD_WIRE_IP_FRAG }, 0 },
	{ "group (multicast)", { RXD_WIRE_L2 }, 0 },
	{ "truncated", { RXD_WIRE_TRUNCATED }, 0 },
};

#define N_REASONS (sizeof(reason_map) / sizeof(reason_map[0]))

static const char *
vectors_dir(void)
{
	const char *dir = getenv("RXD_TEST_VECTORS");

	return dir != NULL && *dir ? dir : RXD_TEST_VECTORS_DIR;
}

static void
vec_path(char *buf, size_t n, const char *sub, const char *name)
{
	snprintf(buf, n, "%s/%s/%s", vectors_dir(), sub, name);
}

/* A frame located in its capture: where the parsed offsets start. */
struct located {
	const uint8_t *base;  /* Ethernet header, or IP header for SLL */
	uint32_t len;
	enum rxd_wire_err err;
};

static struct located
parse_frame(const struct rxd_test_frame *f, struct rxd_pkt *pkt,
	    unsigned int flags)
{
	struct located l = { .base = f->data, .len = f->caplen };

	if (f->linktype == RXD_TEST_DLT_LINUX_SLL) {
		cr_assert_geq(f->caplen, RXD_TEST_SLL_HLEN);
		l.base += RXD_TEST_SLL_HLEN;
		l.len -= RXD_TEST_SLL_HLEN;
		l.err = rxd_wire_parse_ip(l.base, l.len, pkt, flags);
		return l;
	}
	cr_assert_eq(f->linktype, RXD_TEST_DLT_EN10MB, "link type %d",
		     f->linktype);
	l.err = rxd_wire_parse(l.base, l.len, pkt, flags);
	return l;
}

/* The stored ICRC equals rxd's and the reference's computation. */
static bool
icrc_ok(const struct rxd_pkt *pkt, const uint8_t *base)
{
	const uint8_t *ip = base + pkt->l3_off;
	uint32_t len = pkt->frame_len - pkt->l3_off - RXD_ICRC_LEN;
	uint32_t wire = rxd_test_get_le32(ip + len);

	return pkt->icrc == wire && rxd_icrc_compute(ip, len) == wire &&
		rxd_test_icrc_ref(ip, len) == wire;
}

/* Build the frame again from its parsed fields: byte for byte the same. */
static bool
rebuild_ok(const struct rxd_pkt *pkt, const uint8_t *base, const char *who,
	   unsigned int no)
{
	static uint8_t buf[RXD_TEST_FRAME_MAX];
	struct rxd_pkt copy = *pkt;
	const char *diff;
	uint32_t n, i;

	n = rxd_wire_build(&copy, base + pkt->payload_off, buf, sizeof(buf));
	if (n != pkt->frame_len) {
		cr_log_error("%s #%u: rebuilt %u bytes, frame has %u", who, no,
			     n, pkt->frame_len);
		return false;
	}
	for (i = 0; i < n && buf[i] == base[i]; i++)
		;
	if (i < n) {
		cr_log_error("%s #%u: rebuilt frame differs at byte %u", who,
			     no, i);
		return false;
	}
	diff = rxd_test_pkt_diff(pkt, &copy, RXD_TEST_CMP_ALL);
	if (diff != NULL) {
		cr_log_error("%s #%u: build changed field %s", who, no, diff);
		return false;
	}
	return true;
}

/* rxe captures */

struct rxe_walk {
	const char *name;
	unsigned int frames, roce, bad;
};

static int
rxe_frame(const struct rxd_test_frame *f, void *arg)
{
	struct rxe_walk *w = arg;
	struct rxd_pkt pkt;
	struct located l = parse_frame(f, &pkt, 0);

	w->frames++;
	if (l.err != RXD_WIRE_OK) {
		cr_log_error("%s #%u: %s", w->name, f->no,
			     rxd_wire_strerror(l.err));
		w->bad++;
		return 0;
	}
	if (pkt.kind != RXD_FRAME_ROCE)
		return 0;
	w->roce++;
	if (!icrc_ok(&pkt, l.base)) {
		cr_log_error("%s #%u: ICRC disagrees", w->name, f->no);
		w->bad++;
	}
	if (!rebuild_ok(&pkt, l.base, w->name, f->no))
		w->bad++;
	return 0;
}

static void
check_rxe_files(const char *crc)
{
	unsigned int i, frames = 0, roce = 0;
	char path[512];

	for (i = 0; i < N_RXE_FILES; i++) {
		struct rxe_walk w = { .name = rxe_files[i].name };
		int n;

		vec_path(path, sizeof(path), "rxe", rxe_files[i].name);
		n = rxd_test_pcap_foreach(path, rxe_frame, &w);
		cr_assert_geq(n, 0, "cannot read %s", path);
		cr_expect_eq(w.frames, rxe_files[i].frames, "%s: %u frames",
			     w.name, w.frames);
		cr_expect_eq(w.roce, rxe_files[i].roce, "%s: %u RoCE frames",
			     w.name, w.roce);
		cr_expect_eq(w.bad, 0, "%s: %u bad frames", w.name, w.bad);
		frames += w.frames;
		roce += w.roce;
	}
	cr_assert_eq(frames, RXE_TOTAL_FRAMES, "rxe: %u frames", frames);
	cr_assert_eq(roce, RXE_TOTAL_ROCE, "rxe: %u RoCE frames", roce);
	cr_log_info("vectors: %u frames from %u rxe files, %u RoCE, all ICRC "
		    "ok (%s CRC), all rebuilt byte-identical", frames,
		    (unsigned int)N_RXE_FILES, roce, crc);
}

Test(vectors, rxe_every_frame)
{
	check_rxe_files(rxd_crc32_impl_name(rxd_crc32_get_impl()));
}

/* The same with every other CRC implementation this CPU can run. */
Test(vectors, rxe_every_frame_each_crc)
{
	enum rxd_crc32_impl was = rxd_crc32_get_impl(), i;

	for (i = RXD_CRC32_TABLE; i < RXD_CRC32_N_IMPLS; i++)
		if (i != was && rxd_crc32_set_impl(i) == 0)
			check_rxe_files(rxd_crc32_impl_name(i));
	cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_TABLE), 0);
}

static bool
is_known_rxe(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_RXE_FILES; i++)
		if (strcmp(name, rxe_files[i].name) == 0)
			return true;
	return false;
}

/* Every capture in tests/vectors/rxe is in the table above, none missing. */
Test(vectors, rxe_directory_matches_table)
{
	unsigned int seen = 0;
	struct dirent *de;
	char path[512];
	DIR *d;

	snprintf(path, sizeof(path), "%s/rxe", vectors_dir());
	d = opendir(path);
	cr_assert_not_null(d, "cannot open %s", path);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		cr_expect(is_known_rxe(de->d_name), "%s not in the table",
			  de->d_name);
		seen++;
	}
	closedir(d);
	cr_assert_eq(seen, N_RXE_FILES, "%u files in %s", seen, path);
}

/* synthetic captures against expected.tsv */

#define MAX_ROWS 256
#define MAX_FILES 32

struct expect_row {
	char file[64];
	unsigned int no;
	char verdict[16];
	char reasons[256];
	bool seen;
};

struct expect_table {
	struct expect_row rows[MAX_ROWS];
	unsigned int n;
	unsigned int reason_used[N_REASONS];
	unsigned int verdicts[3]; /* pass, fail, ignored */
	unsigned int bad;
};

static void
split_row(char *line, struct expect_row *r)
{
	char *save = NULL;
	char *file = strtok_r(line, "\t\n", &save);
	char *no = strtok_r(NULL, "\t\n", &save);
	char *verdict = strtok_r(NULL, "\t\n", &save);
	char *reasons = strtok_r(NULL, "\t\n", &save);

	cr_assert(file && no && verdict && reasons, "bad expected.tsv line");
	snprintf(r->file, sizeof(r->file), "%s", file);
	r->no = (unsigned int)strtoul(no, NULL, 10);
	snprintf(r->verdict, sizeof(r->verdict), "%s", verdict);
	snprintf(r->reasons, sizeof(r->reasons), "%s",
		 strcmp(reasons, "-") == 0 ? "" : reasons);
}

static void
load_expected(struct expect_table *t)
{
	char path[512], line[512];
	FILE *fp;

	vec_path(path, sizeof(path), "synthetic", "expected.tsv");
	fp = fopen(path, "r");
	cr_assert_not_null(fp, "cannot open %s", path);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		cr_assert_lt(t->n, MAX_ROWS);
		split_row(line, &t->rows[t->n++]);
	}
	fclose(fp);
}

static struct expect_row *
find_row(struct expect_table *t, const char *file, unsigned int no)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->rows[i].no == no && strcmp(t->rows[i].file, file) == 0)
			return &t->rows[i];
	return NULL;
}

static const struct reason_map *
map_reason(struct expect_table *t, const char *reason)
{
	unsigned int i;

	for (i = 0; i < N_REASONS; i++) {
		if (strstr(reason, reason_map[i].substr) != NULL) {
			t->reason_used[i]++;
			return &reason_map[i];
		}
	}
	return NULL;
}

static bool
map_allows(const struct reason_map *m, enum rxd_wire_err err)
{
	unsigned int i;

	for (i = 0; i < MAX_ERRS && m->errs[i] != RXD_WIRE_OK; i++)
		if (m->errs[i] == err)
			return true;
	return false;
}

/*
 * A failing frame: the error is one a listed reason maps to; if every
 * reason is a check the parser can skip, skipping them makes it valid.
 */
static bool
check_fail(struct expect_table *t, const struct expect_row *r,
	   const struct rxd_test_frame *f, enum rxd_wire_err err)
{
	char reasons[sizeof(r->reasons)], *save = NULL, *reason;
	unsigned int skip = 0;
	bool allowed = false, all_skippable = true;
	struct rxd_pkt pkt;

	snprintf(reasons, sizeof(reasons), "%s", r->reasons);
	for (reason = strtok_r(reasons, ";", &save); reason != NULL;
	     reason = strtok_r(NULL, ";", &save)) {
		const struct reason_map *m = map_reason(t, reason);

		cr_assert_not_null(m, "no rxd error for reason '%s'", reason);
		allowed |= map_allows(m, err);
		all_skippable &= m->skip != 0;
		skip |= m->skip;
	}
	if (!allowed)
		return false;
	if (!all_skippable)
		return true;
	return parse_frame(f, &pkt, skip).err == RXD_WIRE_OK &&
		pkt.kind == RXD_FRAME_ROCE;
}

static bool
check_verdict(struct expect_table *t, const struct expect_row *r,
	      const struct rxd_test_frame *f)
{
	struct rxd_pkt pkt;
	struct located l = parse_frame(f, &pkt, 0);

	if (strcmp(r->verdict, "pass") == 0) {
		t->verdicts[0]++;
		return l.err == RXD_WIRE_OK && pkt.kind == RXD_FRAME_ROCE &&
			icrc_ok(&pkt, l.base);
	}
	if (strcmp(r->verdict, "ignored") == 0) {
		t->verdicts[2]++;
		return l.err == RXD_WIRE_OK && pkt.kind != RXD_FRAME_ROCE;
	}
	cr_assert_str_eq(r->verdict, "fail");
	t->verdicts[1]++;
	return l.err != RXD_WIRE_OK && check_fail(t, r, f, l.err);
}

struct synth_walk {
	struct expect_table *t;
	const char *file;
};

static int
synth_frame(const struct rxd_test_frame *f, void *arg)
{
	struct synth_walk *w = arg;
	struct expect_row *r = find_row(w->t, w->file, f->no);
	struct rxd_pkt pkt;

	cr_assert_not_null(r, "%s #%u not in expected.tsv", w->file, f->no);
	r->seen = true;
	if (!check_verdict(w->t, r, f)) {
		cr_log_error("%s #%u: expected %s (%s), rxd says %s", w->file,
			     f->no, r->verdict, r->reasons,
			     rxd_wire_strerror(parse_frame(f, &pkt, 0).err));
		w->t->bad++;
	}
	return 0;
}

static unsigned int
walk_synthetic(struct expect_table *t)
{
	const char *files[MAX_FILES];
	unsigned int i, j, nfiles = 0;
	char path[512];

	for (i = 0; i < t->n; i++) {
		for (j = 0; j < nfiles; j++)
			if (strcmp(files[j], t->rows[i].file) == 0)
				break;
		if (j == nfiles) {
			cr_assert_lt(nfiles, MAX_FILES);
			files[nfiles++] = t->rows[i].file;
		}
	}
	for (j = 0; j < nfiles; j++) {
		struct synth_walk w = { .t = t, .file = files[j] };

		vec_path(path, sizeof(path), "synthetic", files[j]);
		cr_assert_geq(rxd_test_pcap_foreach(path, synth_frame, &w), 0,
			      "cannot read %s", path);
	}
	return nfiles;
}

Test(vectors, synthetic_verdicts)
{
	static struct expect_table t;
	unsigned int i, nfiles;

	load_expected(&t);
	cr_assert_eq(t.n, SYNTH_TOTAL_FRAMES, "expected.tsv: %u rows", t.n);
	nfiles = walk_synthetic(&t);
	cr_assert_eq(nfiles, SYNTH_TOTAL_FILES, "%u synthetic files", nfiles);
	for (i = 0; i < t.n; i++)
		cr_expect(t.rows[i].seen, "%s #%u missing from the capture",
			  t.rows[i].file, t.rows[i].no);
	for (i = 0; i < N_REASONS; i++)
		cr_expect_gt(t.reason_used[i], 0, "reason '%s' never seen",
			     reason_map[i].substr);
	cr_assert_eq(t.bad, 0, "%u synthetic frames with the wrong verdict",
		     t.bad);
	cr_log_info("vectors: %u synthetic frames from %u files: %u pass, "
		    "%u fail for the expected reason, %u ignored", t.n, nfiles,
		    t.verdicts[0], t.verdicts[1], t.verdicts[2]);
}

/* The one hardware-made ICRC (ConnectX-4 Lx CNP), read from its capture. */
static int
cx4_frame(const struct rxd_test_frame *f, void *arg)
{
	struct rxd_pkt *pkt = arg;

	cr_assert_eq(parse_frame(f, pkt, 0).err, RXD_WIRE_OK);
	return 1;
}

Test(vectors, cx4lx_cnp_fields)
{
	struct rxd_pkt pkt;
	char path[512];

	vec_path(path, sizeof(path), "synthetic", "hw-cx4lx-cnp.pcap");
	cr_assert_eq(rxd_test_pcap_foreach(path, cx4_frame, &pkt), 1);
	cr_expect_eq(pkt.kind, RXD_FRAME_ROCE);
	cr_expect_eq(pkt.opcode, RXD_OP_CNP);
	cr_expect_eq(pkt.dqpn, 0x118);
	cr_expect(pkt.becn);
	cr_expect_not(pkt.fecn);
	cr_expect_eq(pkt.tos, 0xc2);
	cr_expect_eq(pkt.udp_sport, 0);
	cr_expect_eq(pkt.icrc, 0x2a00fd82u, "ICRC %08x", pkt.icrc);
}
