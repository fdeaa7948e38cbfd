/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and contexts: the device list (one rxdN per rxd port), open and
 * close, and the query verbs (device, port, GID, P_Key).  Every limit
 * reported here is one the implementation enforces.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "rxd/rxd_flush.h"
#include "rxd_mcast.h"
#include "rxd_verbs.h"
#include "rxd_verbs_speed.h"

/* Engine side: a port's link changed; every context of it hears. */
static void
port_event(unsigned int port, bool up)
{
	struct ibv_async_event ev = {
		.element.port_num = 1,
		.event_type = up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
	};
	struct rxd_context *ctx;

	pthread_mutex_lock(&rxd_verbs.lock);
	for (ctx = rxd_verbs.contexts; ctx != NULL; ctx = ctx->next)
		if (ctx->dev->port == port)
			rxd_verbs_async_push(ctx, &ev);
	pthread_mutex_unlock(&rxd_verbs.lock);
}

static void
make_devices(void)
{
	struct rxd_port_info info;
	unsigned int i, n = rxd_port_count();

	rxd_verbs.devices = calloc(n, sizeof(*rxd_verbs.devices));
	if (rxd_verbs.devices == NULL)
		return;
	rxd_verbs.conf = *rxd_config();
	for (i = 0; i < n; i++) {
		struct rxd_device *d = &rxd_verbs.devices[i];
		const uint8_t *m;
		uint64_t g;

		rxd_port_info(i, &info);
		m = info.mac;
		d->port = i;
		d->ibdev.node_type = IBV_NODE_CA;
		d->ibdev.transport_type = IBV_TRANSPORT_IB;
		snprintf(d->ibdev.name, sizeof(d->ibdev.name), "rxd%u", i);
		snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name),
			 "uverbs-rxd%u", i);
		snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path),
			 "/sys/class/infiniband_verbs/uverbs-rxd%u", i);
		snprintf(d->ibdev.ibdev_path, sizeof(d->ibdev.ibdev_path),
			 "/sys/class/infiniband/rxd%u", i);
		g = (uint64_t)(m[0] ^ 2) << 56 | (uint64_t)m[1] << 48 |
			(uint64_t)m[2] << 40 | 0xfffeull << 24 |
			(uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
		d->guid = htobe64(g);
	}
	rxd_verbs.n_devices = n;
	rxd_set_port_event_handler(port_event);
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int i;
	int rc;

	pthread_mutex_lock(&rxd_verbs.lock);
	rc = rxd_verbs_start();
	if (rc == 0 && rxd_verbs.devices == NULL)
		make_devices();
	pthread_mutex_unlock(&rxd_verbs.lock);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	list = calloc(rxd_verbs.n_devices + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < rxd_verbs.n_devices; i++)
		list[i] = &rxd_verbs.devices[i].ibdev;
	if (num_devices != NULL)
		*num_devices = (int)rxd_verbs.n_devices;
	return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return ((struct rxd_device *)device)->guid;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return (int)((struct rxd_device *)device)->port;
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct rxd_device *dev = (struct rxd_device *)device;
	struct rxd_context *ctx;
	struct rxd_port_info info;
	struct ibv_context *c;

	if (rxd_verbs_fork_child()) {   /* its parent's device */
		errno = ENODEV;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = dev;
	if (rxd_port_info(dev->port, &info) == 0)
		ctx->ib_mtu = info.ib_mtu;
	c = &ctx->vctx.context;
	c->device = device;
	/* no kernel device to talk to, but programs dup, poll and pass the
	 * command descriptor: an eventfd nothing ever signals */
	c->cmd_fd = eventfd(0, EFD_CLOEXEC);
	c->async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (c->cmd_fd < 0 || c->async_fd < 0) {
		if (c->cmd_fd >= 0)
			close(c->cmd_fd);
		if (c->async_fd >= 0)
			close(c->async_fd);
		free(ctx);
		return NULL;
	}
	c->num_comp_vectors = 1;
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&c->mutex, NULL);
	pthread_mutex_init(&ctx->async_lock, NULL);
	ctx->vctx.sz = sizeof(ctx->vctx);
	rxd_verbs_set_ops(ctx);
	pthread_mutex_lock(&rxd_verbs.lock);
	ctx->next = rxd_verbs.contexts;
	rxd_verbs.contexts = ctx;
	pthread_mutex_unlock(&rxd_verbs.lock);
	return c;
}

int
ibv_close_device(struct ibv_context *context)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct rxd_async_event *e, *next;
	struct rxd_context **pp;

	pthread_mutex_lock(&rxd_verbs.lock);
	for (pp = &rxd_verbs.contexts; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	pthread_mutex_unlock(&rxd_verbs.lock);
	for (e = ctx->async_head; e != NULL; e = next) {
		next = e->next;
		free(e);
	}
	close(context->async_fd);
	close(context->cmd_fd);
	pthread_mutex_destroy(&ctx->async_lock);
	pthread_mutex_destroy(&context->mutex);
	free(ctx);
	return 0;
}

void
rxd_verbs_device_attr(struct rxd_context *ctx, struct ibv_device_attr *a)
{
	const struct rxd_conf *conf = &rxd_verbs.conf;

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "rxd 0.1.0");
	a->node_guid = ctx->dev->guid;
	a->sys_image_guid = ctx->dev->guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = RXD_VENDOR_ID;
	a->vendor_part_id = RXD_VENDOR_PART_ID;
	a->max_qp = (int)conf->max_qp;
	a->max_qp_wr = (int)conf->sq_depth;
	/* memory windows as Soft-RoCE reports them: type 1 and 2B (a type 2
	 * window is bound to a QP) */
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
		IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	a->max_sge = RXD_MAX_SGE;
	a->max_sge_rd = RXD_MAX_SGE;
	a->max_cq = (int)conf->max_cq;
	a->max_cqe = (int)conf->cq_depth;
	a->max_mr = (int)conf->max_mr;
	a->max_mw = (int)conf->max_mr;      /* MRs and windows share keys */
	a->max_pd = RXD_MAX_PD;
	a->max_qp_rd_atom = RXD_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = RXD_MAX_RD_ATOMIC;
	a->max_res_rd_atom = RXD_MAX_RD_ATOMIC * (int)conf->max_qp;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = RXD_MAX_AH;
	a->max_mcast_grp = RXD_MCAST_GROUPS;
	a->max_mcast_qp_attach = RXD_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = RXD_MCAST_TOTAL_ATTACH;
	a->max_srq = (int)conf->max_srq;
	a->max_srq_wr = (int)conf->srq_depth;
	a->max_srq_sge = RXD_MAX_SGE;
	a->max_pkeys = RXD_PKEY_TBL_LEN;
	a->local_ca_ack_delay = RXD_LOCAL_ACK_DELAY;
	a->phys_port_cnt = 1;
}

int
ibv_query_device(struct ibv_context *context,
		 struct ibv_device_attr *device_attr)
{
	rxd_verbs_device_attr(rxd_ctx(context), device_attr);
	return 0;
}

static enum ibv_mtu
mtu_enum(unsigned int bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (256u << m) <= bytes)
		m++;
	return m;
}

static int
query_port(struct rxd_context *ctx, uint8_t port_num,
	   struct ibv_port_attr *pa)
{
	struct rxd_port_counters c;
	struct rxd_port_info info;

	if (port_num != 1)
		return EINVAL;
	if (rxd_port_info(ctx->dev->port, &info) != 0)
		return errno;
	memset(pa, 0, sizeof(*pa));
	pa->state = info.link_up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	pa->phys_state = info.link_up ? 5 : 2; /* LinkUp / Polling */
	pa->max_mtu = IBV_MTU_4096;
	pa->active_mtu = mtu_enum(info.ib_mtu);
	pa->gid_tbl_len = RXD_GID_TBL_LEN;
	pa->port_cap_flags = IBV_PORT_CM_SUP;
	pa->max_msg_sz = RXD_MAX_MSG_SZ;
	pa->pkey_tbl_len = RXD_PKEY_TBL_LEN;
	pa->link_layer = IBV_LINK_LAYER_ETHERNET;
	rxd_verbs_ib_speed(info.link_speed, &pa->active_width,
			   &pa->active_speed);
	if (rxd_port_counters(ctx->dev->port, &c) == 0)
		pa->qkey_viol_cntr = (uint32_t)c.qkey_viol;
	return 0;
}

int
rxd_verbs_query_port(struct ibv_context *context, uint8_t port_num,
	      struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr pa;
	int rc = query_port(rxd_ctx(context), port_num, &pa);

	if (rc == 0)
		memcpy(port_attr, &pa, port_attr_len < sizeof(pa) ?
		       port_attr_len : sizeof(pa));
	return rc;
}

#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr);

int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	/* the header's wrapper passes a whole struct ibv_port_attr */
	return rxd_verbs_query_port(context, port_num,
		(struct ibv_port_attr *)port_attr,
		sizeof(struct ibv_port_attr));
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	struct rxd_context *ctx = rxd_ctx(context);

	if (port_num != 1 || index < 0 || index >= RXD_GID_TBL_LEN)
		return -1;
	if (rxd_query_gid(ctx->dev->port, (unsigned int)index, gid->raw) != 0)
		memset(gid->raw, 0, sizeof(gid->raw)); /* empty entry */
	return 0;
}

/*
 * IBVERBS_PRIVATE_34 (ibv_devinfo imports it).  The type is rdma-core's
 * provider-side enum ibv_gid_type_sysfs, not in the public headers: 0 is
 * "IB/RoCE v1", 1 is "RoCE v2".  Every rxd GID is RoCE v2.
 */
#define GID_TYPE_SYSFS_ROCE_V2 1

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		   unsigned int index, int *type)
{
	(void)context;
	if (port_num != 1 || index >= RXD_GID_TBL_LEN)
		return -1;
	*type = GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

static int
gid_entry(struct rxd_context *ctx, uint32_t index, struct ibv_gid_entry *e)
{
	if (rxd_query_gid(ctx->dev->port, index, e->gid.raw) != 0)
		return ENODATA;
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 0;
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		  uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int rc;

	if (flags != 0 || port_num != 1 || entry_size < sizeof(e))
		return EINVAL;
	if (gid_index >= RXD_GID_TBL_LEN)
		return EINVAL;
	memset(&e, 0, sizeof(e));
	rc = gid_entry(rxd_ctx(context), gid_index, &e);
	if (rc == 0)
		memcpy(entry, &e, sizeof(e));
	return rc;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context,
		     struct ibv_gid_entry *entries, size_t max_entries,
		     uint32_t flags, size_t entry_size)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct ibv_gid_entry e;
	size_t n = 0;
	uint32_t i;

	if (flags != 0 || entry_size < sizeof(e)) {
		errno = EINVAL;
		return -EINVAL;
	}
	for (i = 0; i < RXD_GID_TBL_LEN; i++) {
		memset(&e, 0, sizeof(e));
		if (gid_entry(ctx, i, &e) != 0)
			continue;
		if (n == max_entries) {
			errno = EINVAL;
			return -EINVAL;
		}
		memcpy((char *)entries + n++ * entry_size, &e, sizeof(e));
	}
	return (ssize_t)n;
}

int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
	       __be16 *pkey)
{
	(void)context;
	if (port_num != 1 || index != 0)
		return -1;
	*pkey = htobe16(0xffff);
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		   __be16 pkey)
{
	(void)context;
	if (port_num != 1 || be16toh(pkey) != 0xffff)
		return -1;
	return 0;
}

int
rxd_verbs_query_device_ex(struct ibv_context *context,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	if (attr_size < sizeof(a.orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	rxd_verbs_device_attr(rxd_ctx(context), &a.orig_attr);
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	/* ATOMIC WRITE and FLUSH for global visibility; no persistence */
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags |
		RXD_DEVICE_ATOMIC_WRITE | RXD_DEVICE_FLUSH_GLOBAL;
	a.completion_timestamp_mask = UINT64_MAX;
	a.hca_core_clock = rte_get_tsc_hz() / 1000; /* kHz of the TSC */
	a.max_dm_size = 0;
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}
