/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MR key table alone (lib/qp/rxd_mr.c, no engine): a rereg's
 * entry replaces the old one under the same key with a new serial
 * number, and a message that started on the old entry follows the new
 * one (rxd_mr_follow()) only when it maps the same bytes and grants the
 * right; never after a dereg, a translation change or a lost right.
 */
#include <stdint.h>

#include <criterion/criterion.h>

#include "rxd_mr.h"

static uint8_t mem[2][4096];
static const struct rxd_qp_core *const qp = (const void *)&mem;
static const struct ibv_pd *const pd = (const void *)&mem[1];

/* An MR over mem[which] with these rights, published. */
static struct rxd_mr *
published(int which, unsigned int access)
{
	static struct rxd_mr m[8];
	static unsigned int n;
	struct rxd_mr *mr = &m[n++ % 8];

	*mr = (struct rxd_mr){ .access = access };
	mr->ibmr.pd = (struct ibv_pd *)pd;
	mr->ibmr.addr = mem[which];
	mr->ibmr.length = sizeof(mem[which]);
	mr->iova = (uintptr_t)mem[which];
	cr_assert_eq(rxd_mr_publish(mr), 0);
	return mr;
}

/* A copy of mr as a rereg makes it, put in its place. */
static struct rxd_mr *
rereg(struct rxd_mr *mr, int which, unsigned int access)
{
	static struct rxd_mr m[8];
	static unsigned int n;
	struct rxd_mr *next = &m[n++ % 8];

	*next = *mr;
	next->ibmr.addr = mem[which];
	next->iova = (uintptr_t)mem[which];
	next->access = access;
	rxd_mr_replace(mr, next);
	return next;
}

static struct rxd_mr_hold
hold_of(const struct rxd_mr *mr)
{
	return (struct rxd_mr_hold){ .key = mr->ibmr.rkey,
		.serial = mr->serial, .delta = rxd_mr_delta(mr) };
}

#define WR (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

Test(mr_table, replacement_keeps_the_key_with_a_new_serial)
{
	struct rxd_mr *mr = published(0, WR), *next;
	uint64_t serial = mr->serial;

	next = rereg(mr, 0, WR | IBV_ACCESS_REMOTE_READ);
	cr_assert_eq(rxd_mr_find(mr->ibmr.rkey), next);
	cr_assert_neq(next->serial, serial);
	rxd_mr_unpublish(next);
	cr_assert_null(rxd_mr_find(mr->ibmr.rkey));
}

Test(mr_table, a_message_follows_only_the_same_bytes_with_the_right)
{
	struct rxd_mr *mr = published(0, WR), *next;
	struct rxd_mr_hold h = hold_of(mr);
	uint64_t va = (uintptr_t)mem[0] + 1024;

	cr_assert_eq(rxd_mr_follow(&h, va, 512, IBV_ACCESS_REMOTE_WRITE, qp,
				   pd), mr);
	/* access change that keeps the right: followed */
	next = rereg(mr, 0, WR | IBV_ACCESS_REMOTE_READ);
	cr_assert_eq(rxd_mr_follow(&h, va, 512, IBV_ACCESS_REMOTE_WRITE, qp,
				   pd), next);
	cr_assert_eq(h.serial, next->serial);
	/* the right gone: refused */
	mr = next;
	next = rereg(mr, 0, IBV_ACCESS_REMOTE_READ);
	cr_assert_null(rxd_mr_follow(&h, va, 512, IBV_ACCESS_REMOTE_WRITE,
				     qp, pd));
	/* another translation, same key: the message's addresses are not
	 * in it any more */
	mr = rereg(next, 0, WR);
	h = hold_of(mr);
	next = rereg(mr, 1, WR);
	cr_assert_null(rxd_mr_follow(&h, va, 512, IBV_ACCESS_REMOTE_WRITE,
				     qp, pd));
	/* the same iova over other bytes (an MR registered at an iova of its
	 * own): refused, never the new bytes */
	mr = rereg(next, 1, WR);
	mr->iova = 0x10000;
	h = hold_of(mr);
	next = rereg(mr, 0, WR);
	next->iova = 0x10000;
	cr_assert_null(rxd_mr_follow(&h, 0x10000 + 1024, 512,
				     IBV_ACCESS_REMOTE_WRITE, qp, pd));
	/* another PD: not this QP's key any more */
	h = hold_of(next);
	next->ibmr.pd = NULL;
	cr_assert_null(rxd_mr_follow(&h, (uintptr_t)mem[1], 64,
				     IBV_ACCESS_REMOTE_WRITE, qp, pd));
	next->ibmr.pd = (struct ibv_pd *)pd;
	/* deregistered: refused */
	rxd_mr_unpublish(next);
	cr_assert_null(rxd_mr_follow(&h, (uintptr_t)mem[1], 64,
				     IBV_ACCESS_REMOTE_WRITE, qp, pd));
}
